// The tutor's output on a projector, through the real program, for every lesson: no line of
// `attn lesson N --no-pause` or `attn check` wider than the width it was given (80 and 100
// columns, measured as the C library's wcwidth counts them, escape codes excluded); every screen
// of `attn lesson N --screens` at 80×24 and 100×30 exactly fills the terminal, starts with the
// lesson and its step, and together the screens show every step and every check.
#include <catch2/catch.hpp>

#include <clocale>
#include <cwchar>
#include <filesystem>
#include <fstream>
#include <locale.h>
#include <set>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

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

std::string document_of(int lesson) {
    for (const auto& entry : fs::directory_iterator(ATTN_SOURCE_DIR "/lessons")) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 3 && std::stoi(name.substr(0, 2)) == lesson) return (entry.path() / "README.md").string();
    }
    FAIL("no lesson " << lesson);
    return "";
}

// The `## ` headings of a document, backticks removed, and the number of attn blocks under each.
std::vector<std::pair<std::string, int>> steps_of(int lesson) {
    std::ifstream file(document_of(lesson));
    std::vector<std::pair<std::string, int>> steps{{"Introduction", 0}};
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

}  // namespace

TEST_CASE("projector - no line of any lesson is wider than the width given", "[projector]") {
    for (int lesson = 1; lesson <= 6; ++lesson) {
        for (int width : {80, 100}) {
            const auto r = run_attn({"lesson", std::to_string(lesson), "--no-pause", "--width", std::to_string(width)});
            INFO("lesson " << lesson << " at " << width << "\n" << r.err);
            REQUIRE(r.exit_code == 0);
            check_fits(r.out, width, "lesson " + std::to_string(lesson));
        }
        // Off a terminal the width can also come from COLUMNS; and the other views of heat maps fit too.
        const auto from_columns = run_attn({"lesson", std::to_string(lesson)}, {{"COLUMNS", "80"}});
        check_fits(from_columns.out, 80, "lesson " + std::to_string(lesson) + " with COLUMNS=80");
        for (const std::string show : {"both", "tensor"}) {
            const auto r = run_attn({"lesson", std::to_string(lesson), "--no-pause", "--width", "80", "--show", show});
            check_fits(r.out, 80, "lesson " + std::to_string(lesson) + " --show " + show);
        }
    }
}

TEST_CASE("projector - no line of attn check is wider than the width given", "[projector]") {
    for (int width : {80, 100}) {
        const auto r = run_attn({"check", "--width", std::to_string(width)});
        REQUIRE(r.exit_code == 0);
        check_fits(r.out, width, "check at " + std::to_string(width));
    }
    check_fits(run_attn({"check"}, {{"COLUMNS", "80"}}).out, 80, "check with COLUMNS=80");
}

TEST_CASE("projector - every screen shows its lesson and step and fills the terminal exactly", "[projector]") {
    for (int lesson = 1; lesson <= 6; ++lesson) {
        const auto steps = steps_of(lesson);
        for (const auto& [width, height] : std::vector<std::pair<int, int>>{{80, 24}, {100, 30}}) {
            const auto r = run_attn({"lesson", std::to_string(lesson), "--screens", "--width", std::to_string(width), "--height",
                                     std::to_string(height)});
            REQUIRE(r.exit_code == 0);
            const auto screens = screens_of(r.out);
            REQUIRE(screens.size() >= steps.size());
            std::map<std::string, int> screens_per_step;
            for (std::size_t i = 0; i < screens.size(); ++i) {
                const auto rows = lines_of(screens[i]);
                INFO("lesson " << lesson << " at " << width << "x" << height << ", screen " << i << ":\n" << screens[i]);
                REQUIRE(rows.size() == static_cast<std::size_t>(height));
                CHECK_THAT(rows[0], Catch::StartsWith("Lesson " + std::to_string(lesson) + " "));
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
            }
            // Every step is shown, with a pause before each of its tensor blocks.
            for (const auto& [title, blocks] : steps) {
                INFO("lesson " << lesson << " at " << width << "x" << height << ": " << title);
                CHECK(screens_per_step[title] >= std::max(1, blocks));
            }
            // Every check of the continuous text is on some screen.
            const auto continuous = run_attn({"lesson", std::to_string(lesson), "--no-pause", "--width", std::to_string(width)});
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

TEST_CASE("projector - the Spanish editions fit the width and fill the screens too", "[projector][editions]") {
    // Each lesson's README.es.md, shown from a folder where it is the lesson's README.md.
    attn::testing::TempDir spanish;
    for (const auto& entry : fs::directory_iterator(ATTN_SOURCE_DIR "/lessons")) {
        if (!fs::is_regular_file(entry.path() / "README.es.md")) continue;
        fs::create_directories(spanish.path() + "/" + entry.path().filename().string());
        fs::copy_file(entry.path() / "README.es.md", fs::path(spanish.path()) / entry.path().filename() / "README.md");
    }
    for (int lesson = 1; lesson <= 7; ++lesson) {
        const std::string number = std::to_string(lesson);
        const auto r = run_attn({"lesson", number, "--no-pause", "--width", "80", "--lessons-dir", spanish.path()});
        INFO("Spanish lesson " << lesson << "\n" << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("── Lección " + number + " — "));
        check_fits(r.out, 80, "Spanish lesson " + number);
        const auto screens = run_attn({"lesson", number, "--screens", "--width", "80", "--height", "24", "--lessons-dir", spanish.path()});
        REQUIRE(screens.exit_code == 0);
        for (const auto& screen : screens_of(screens.out)) {
            const auto rows = lines_of(screen);
            INFO(screen);
            CHECK(rows.size() == 24);
            CHECK_THAT(rows[0], Catch::StartsWith("Lección " + number + " "));
            for (const auto& row : rows) CHECK(terminal_columns(row) <= 80);
        }
    }
}

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
