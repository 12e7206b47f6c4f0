// The tutor's output on a projector, through the real program, for every lesson found in lessons/
// and in both languages (--lang en, --lang es: the Spanish edition and the program's Spanish): no
// line of `attn lesson N --no-pause`, `--screens`, `attn check`, `attn list` or `attn exercise`
// wider than 80 columns (measured as the C library's wcwidth counts them, escape codes excluded);
// every screen of `attn lesson N --screens` at 80×24 and 100×30 exactly fills the terminal, starts
// with the lesson and its step, and together the screens show every step and every check; a check
// that does not fit one line puts its difference whole on the second.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <clocale>
#include <cwchar>
#include <filesystem>
#include <fstream>
#include <locale.h>
#include <set>

#include "support/per_lesson.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::LessonFolder;
using attn::testing::run_attn;
namespace fs = std::filesystem;

// Columns of one line on a UTF-8 terminal, counted by glibc's wcwidth (independently of the
// tutor's own visible_width); -1 when the line holds a control character.
int terminal_columns(const std::string& line) {
    static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    REQUIRE(utf8 != static_cast<locale_t>(nullptr));
    const locale_t previous = uselocale(utf8);
    int columns = 0;
    std::mbstate_t state{};
    for (std::size_t i = 0; i < line.size();) {
        if (line[i] == '\033') {  // CSI ... final byte, or OSC ... BEL / ESC backslash
            std::size_t j = i + 1;
            if (j < line.size() && line[j] == '[') {
                for (++j; j < line.size() && !(line[j] >= 0x40 && line[j] <= 0x7e); ++j) {
                }
                i = j + 1;
                continue;
            }
            columns = -1;
            break;
        }
        wchar_t character = 0;
        const std::size_t length = std::mbrtowc(&character, line.data() + i, line.size() - i, &state);
        if (length == static_cast<std::size_t>(-1) || length == static_cast<std::size_t>(-2) || length == 0) {
            columns = -1;
            break;
        }
        const int width = wcwidth(character);
        if (width < 0) {
            columns = -1;
            break;
        }
        columns += width;
        i += length;
    }
    uselocale(previous);
    return columns;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) lines.push_back(text.substr(start, end - start));
    if (start < text.size()) lines.push_back(text.substr(start));
    return lines;
}

// Every line at most `width` columns, none with a control character.
void check_fits(const std::string& text, int width, const std::string& what) {
    int widest = 0;
    for (const auto& line : lines_of(text)) {
        const int columns = terminal_columns(line);
        INFO(what << ": " << line);
        CHECK(columns >= 0);
        CHECK(columns <= width);
        widest = std::max(widest, columns);
    }
    CHECK(widest > width / 2);  // the output is really there
}

// A lesson's document in a language: README.md, or README.es.md.
std::string document_of(const LessonFolder& lesson, const std::string& language) {
    return lesson.path + "/" + (language == "en" ? "README.md" : "README." + language + ".md");
}

const std::vector<std::string> languages = {"en", "es"};

// What the program calls a lesson and an introduction in a language.
std::string lesson_word(const std::string& language) { return language == "en" ? "Lesson " : "Lección "; }

// The `## ` headings of a document, backticks removed, and the number of attn blocks under each.
std::vector<std::pair<std::string, int>> steps_of(const LessonFolder& lesson, const std::string& language) {
    std::ifstream file(document_of(lesson, language));
    REQUIRE(file);
    std::vector<std::pair<std::string, int>> steps{{language == "en" ? "Introduction" : "Introducción", 0}};
    bool in_fence = false;
    for (std::string line; std::getline(file, line);) {
        if (line.rfind("```", 0) == 0) {
            if (!in_fence && line.rfind("```attn ", 0) == 0) steps.back().second += 1;
            in_fence = !in_fence;
            continue;
        }
        if (in_fence || line.rfind("## ", 0) != 0) continue;
        std::string heading = line.substr(3);
        heading.erase(std::remove(heading.begin(), heading.end(), '`'), heading.end());
        steps.emplace_back(heading, 0);
    }
    return steps;
}

std::vector<std::string> screens_of(const std::string& out) {
    std::vector<std::string> screens;
    const std::string separator = "\n\f\n";
    for (std::size_t start = 0, end; (end = out.find(separator, start)) != std::string::npos; start = end + separator.size()) {
        screens.push_back(out.substr(start, end - start));
    }
    return screens;
}

// No line of the lesson is wider than the width given, in either language.
void lesson_fits_the_width(const LessonFolder& lesson) {
    const std::string number = std::to_string(lesson.number);
    for (const std::string& language : languages) {
        for (int width : {80, 100}) {
            const auto r = run_attn({"lesson", number, "--no-pause", "--width", std::to_string(width), "--lang", language});
            INFO("lesson " << number << " (" << language << ") at " << width << "\n" << r.err);
            REQUIRE(r.exit_code == 0);
            check_fits(r.out, width, "lesson " + number + " " + language);
        }
        // Off a terminal the width can also come from COLUMNS; and the other views fit too.
        const auto from_columns = run_attn({"lesson", number, "--lang", language}, {{"COLUMNS", "80"}});
        check_fits(from_columns.out, 80, "lesson " + number + " " + language + " with COLUMNS=80");
        for (const std::string show : {"both", "tensor"}) {
            const auto r = run_attn({"lesson", number, "--no-pause", "--width", "80", "--show", show, "--all-inputs", "--lang", language});
            check_fits(r.out, 80, "lesson " + number + " " + language + " --show " + show);
        }
    }
}

}  // namespace

ATTN_PER_LESSON_TEST("projector - no line is wider than the width given in either language", "[projector][slow]",
                     lesson_fits_the_width)

// A check is cut only between its phrases — "✓ name", "(README.md:12): matches" and
// "· max |Δ| … over N values" — each whole on a line, the lines after the first indented under
// the name: no line of a check ends with a lone word of a phrase.
void check_check_lines(const std::string& out, const std::string& what) {
    const auto lines = lines_of(out);
    std::size_t checks = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].rfind("  ✓ ", 0) != 0) continue;
        ++checks;
        // The check's lines: up to the one with the summary (|Δ|).
        std::size_t last = i;
        while (last < lines.size() && lines[last].find("|Δ| ") == std::string::npos && last < i + 3) ++last;
        std::string check;
        for (std::size_t k = i; k <= std::min(last, lines.size() - 1); ++k) check += lines[k] + "\n";
        INFO(what << ":\n" << check);
        REQUIRE(last < i + 3);  // three lines at most: name, verdict, summary
        std::size_t verdicts = 0;
        for (std::size_t k = i; k <= last; ++k) {
            const std::string& line = lines[k];
            const bool verdict = line.find(" (README") != std::string::npos;
            verdicts += verdict;
            CHECK(verdict == (line.find("): ") != std::string::npos));  // "(README.md:12): matches" not split
            if (k > i) {
                CHECK(line.rfind("    ", 0) == 0);
                CHECK((verdict || line.rfind("    · ", 0) == 0));  // a continuation starts with a whole phrase
            }
        }
        CHECK(verdicts == 1);
        CHECK(lines[last].find("· ") < lines[last].find("|Δ| "));  // the summary starts on its own line's "· "
    }
    CHECK(checks > 0);
}

TEST_CASE("projector - no line of attn check is wider than the width given, in either language", "[projector][slow]") {
    for (const std::string& language : languages) {
        for (int width : {80, 100}) {
            const auto r = run_attn({"check", "--width", std::to_string(width), "--lang", language});
            REQUIRE(r.exit_code == 0);
            check_fits(r.out, width, "check (" + language + ") at " + std::to_string(width));
            check_check_lines(r.out, "check (" + language + ") at " + std::to_string(width));
        }
        check_fits(run_attn({"check", "--lang", language}, {{"COLUMNS", "80"}}).out, 80, "check (" + language + ") with COLUMNS=80");
    }
}

TEST_CASE("projector - attn list fits 80 columns, a long title going on under itself", "[projector]") {
    for (const std::string& language : languages) {
        for (int width : {80, 60}) {
            const auto r = run_attn({"list", "--lang", language}, {{"COLUMNS", std::to_string(width)}});
            INFO(language << " at " << width << ":\n" << r.out);
            REQUIRE(r.exit_code == 0);
            check_fits(r.out, width, "list (" + language + ")");
            // A continuation line starts under the title, never at the number's column.
            for (const auto& line : lines_of(r.out)) {
                if (line.empty()) continue;
                const bool numbered = line.size() > 2 && std::isdigit(static_cast<unsigned char>(line[1]));
                if (!numbered && line[0] == ' ') CHECK(line.rfind("    ", 0) == 0);
            }
        }
    }
}

TEST_CASE("projector - an exercise report fits 80 columns in either language, failing or not implemented",
          "[projector][exercises][slow]") {
    attn::testing::TempDir state;
    for (const std::string& language : languages) {
        for (const std::string file : {"/lessons/01-dot-product/exercise/stub.cpp", "/tests/data/exercises/planted/squeeze_trap.cpp"}) {
            const auto r = run_attn({"exercise", "1", "--lang", language, "--file", attn::testing::as_handed_in(ATTN_SOURCE_DIR + file)},
                                    {{"COLUMNS", "80"}, {"ATTN_STATE_DIR", state.path()}}, 600);
            INFO(language << " " << file << "\n" << r.out << r.err);
            CHECK(r.exit_code == 1);
            check_fits(r.out, 80, "exercise 1 (" + language + ") with " + file);
        }
    }
}

namespace {

// Every screen shows its lesson and step and fills the terminal exactly, in either language.
void screens_fill_the_terminal(const LessonFolder& lesson) {
    const std::string number = std::to_string(lesson.number);
    for (const std::string& language : languages) {
        const auto steps = steps_of(lesson, language);
        for (const auto& [width, height] : std::vector<std::pair<int, int>>{{80, 24}, {100, 30}}) {
            const auto r = run_attn({"lesson", number, "--screens", "--width", std::to_string(width), "--height",
                                     std::to_string(height), "--lang", language});
            REQUIRE(r.exit_code == 0);
            const auto screens = screens_of(r.out);
            REQUIRE(screens.size() >= steps.size());
            std::map<std::string, int> screens_per_step;
            for (std::size_t i = 0; i < screens.size(); ++i) {
                const auto rows = lines_of(screens[i]);
                INFO("lesson " << number << " (" << language << ") at " << width << "x" << height << ", screen " << i << ":\n"
                               << screens[i]);
                REQUIRE(rows.size() == static_cast<std::size_t>(height));
                CHECK_THAT(rows[0], Catch::StartsWith(lesson_word(language) + number + " "));
                REQUIRE_THAT(rows[1], Catch::StartsWith("── "));
                // The rule names one of the document's steps (its title may wrap onto a second line).
                std::string named;
                for (const auto& step : steps) {
                    if (rows[1].rfind("── " + step.first.substr(0, std::min<std::size_t>(step.first.size(), width - 10)), 0) == 0 &&
                        step.first.size() > named.size()) {
                        named = step.first;
                    }
                }
                CHECK_FALSE(named.empty());
                screens_per_step[named] += 1;
                for (const auto& row : rows) {
                    const int columns = terminal_columns(row);
                    CHECK(columns >= 0);
                    CHECK(columns <= width);
                }
                // The status bar keeps a visible gap between the keys and where the class is.
                const std::string& bar = rows.back();
                const std::size_t where = bar.rfind(language == "en" ? " step " : " paso ");
                REQUIRE(where != std::string::npos);
                CHECK(bar.compare(where - 2, 3, "   ") == 0);
            }
            // Every step is shown, with a pause before each of its tensor blocks (inputs seen
            // before are one line each, without a pause: at least one screen per step).
            for (const auto& [title, blocks] : steps) {
                INFO("lesson " << number << " (" << language << ") at " << width << "x" << height << ": " << title);
                CHECK(screens_per_step[title] >= 1);
            }
            // Every check of the continuous text is on some screen.
            const auto continuous =
                run_attn({"lesson", number, "--no-pause", "--width", std::to_string(width), "--lang", language});
            std::set<std::string> checks, shown;
            for (const auto& line : lines_of(continuous.out)) {
                if (line.rfind("  ✓ ", 0) == 0) checks.insert(line);
            }
            for (const auto& line : lines_of(r.out)) {
                if (line.rfind("  ✓ ", 0) == 0) shown.insert(line);
            }
            CHECK(!checks.empty());
            CHECK(shown == checks);
        }
    }
}

}  // namespace

ATTN_PER_LESSON_TEST("projector - every screen shows its lesson and step and fills the terminal in either language",
                     "[projector][editions][slow]", screens_fill_the_terminal)

TEST_CASE("projector - bad sizes and steps are exit 2 with the option named", "[projector][errors]") {
    const auto step = run_attn({"lesson", "1", "--step", "42"});
    CHECK(step.exit_code == 2);
    CHECK_THAT(step.err, Catch::Contains("--step 42") && Catch::Contains("steps 0 to"));
    for (const std::vector<std::string>& arguments :
         {std::vector<std::string>{"lesson", "1", "--width", "12"}, {"lesson", "1", "--height", "3"}, {"check", "--width", "abc"},
          {"lesson", "1", "--show", "pictures"}, {"lesson", "1", "--light", "--dark"}, {"lesson", "1", "--step", "-1"}}) {
        const auto r = run_attn(arguments);
        INFO(arguments[2] << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(arguments[2]));
    }
}
