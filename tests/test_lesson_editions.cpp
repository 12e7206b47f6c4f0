// The lessons in two languages from one source of numbers: every lesson has a Spanish edition,
// lessons/NN-slug/README.es.md beside its README.md, and the two hold the same attn blocks — the
// same opening line (kind, name, every attribute, in the same order), the same values as written —
// in the same order and in the same steps. Only the prose differs, so a number can never be
// corrected in one edition and forgotten in the other: tools/lesson_expectations.py writes both,
// and this test fails the moment they drift. The Spanish edition also passes every check, run by
// the same machinery as `attn check`, and the Spanish hints (hints.es.md beside hints.md) are
// about the same steps, in the same order.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include "support/per_lesson.hpp"
#include "support/temp_dir.hpp"
#include "tutor/exercises.hpp"
#include "tutor/lesson/lesson_report.hpp"
#include "tutor/lesson/lessons.hpp"

namespace {

using namespace attn::tutor;
namespace fs = std::filesystem;

const std::string lessons_dir = ATTN_SOURCE_DIR "/lessons";

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream file(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);) lines.push_back(line);
    return lines;
}

// The step number a heading names ("Step 3 — …", "Paso 3 — …", "Lesson 1 — …"), or "" for a
// heading without one ("Where the code lives").
std::string step_number(const std::string& heading) {
    static const std::regex numbered(R"(^\S+ (\d+)( —|$))");
    std::smatch match;
    return std::regex_search(heading, match, numbered) ? match[1].str() : "";
}

// Each block's section (0 is the introduction), by block index.
std::vector<std::size_t> section_of_blocks(const LessonDocument& document) {
    std::vector<std::size_t> sections(document.blocks.size(), 0);
    for (std::size_t section = 0; section < document.sections.size(); ++section)
        for (const auto& segment : document.sections[section].segments)
            if (segment.block >= 0) sections.at(static_cast<std::size_t>(segment.block)) = section;
    return sections;
}

// Every way in which `edition` departs from `english` in its numbers or its steps, one line each,
// with file and line; empty when the two editions hold the same blocks in the same steps.
std::vector<std::string> edition_differences(const std::string& english_path, const std::string& edition_path) {
    const LessonDocument english = read_lesson_document(english_path), edition = read_lesson_document(edition_path);
    const auto english_lines = read_lines(english_path), edition_lines = read_lines(edition_path);
    std::vector<std::string> differences;
    const auto where = [](const std::string& path, int line) { return path + ":" + std::to_string(line); };

    if (step_number(english.title) != step_number(edition.title))
        differences.push_back(edition_path + ": the title is lesson '" + step_number(edition.title) + "', the English one lesson '" +
                              step_number(english.title) + "'");
    if (english.sections.size() != edition.sections.size())
        differences.push_back(edition_path + ": " + std::to_string(edition.sections.size() - 1) + " steps (## sections), the English edition " +
                              std::to_string(english.sections.size() - 1));
    for (std::size_t i = 1; i < std::min(english.sections.size(), edition.sections.size()); ++i) {
        if (step_number(english.sections[i].heading) != step_number(edition.sections[i].heading))
            differences.push_back(where(edition_path, edition.sections[i].line) + ": section " + std::to_string(i) + " is numbered '" +
                                  step_number(edition.sections[i].heading) + "', in " + where(english_path, english.sections[i].line) +
                                  " '" + step_number(english.sections[i].heading) + "'");
    }

    if (english.blocks.size() != edition.blocks.size())
        differences.push_back(edition_path + ": " + std::to_string(edition.blocks.size()) + " attn blocks, the English edition " +
                              std::to_string(english.blocks.size()));
    const auto english_sections = section_of_blocks(english), edition_sections = section_of_blocks(edition);
    for (std::size_t i = 0; i < std::min(english.blocks.size(), edition.blocks.size()); ++i) {
        const LessonBlock &a = english.blocks[i], &b = edition.blocks[i];
        const std::string pair = "block " + std::to_string(i) + " (" + where(english_path, a.line) + ", " + where(edition_path, b.line) + ")";
        // The opening line carries the kind, the name and every attribute, as written.
        const std::string& fence_a = english_lines.at(static_cast<std::size_t>(a.line - 1));
        const std::string& fence_b = edition_lines.at(static_cast<std::size_t>(b.line - 1));
        if (fence_a != fence_b) differences.push_back(pair + ": `" + fence_b + "` is `" + fence_a + "` in English");
        if (a.text != b.text) differences.push_back(pair + ": the values of '" + a.name + "' are not written the same");
        if (english_sections[i] != edition_sections[i])
            differences.push_back(pair + ": '" + a.name + "' is in section " + std::to_string(edition_sections[i]) +
                                  " of the edition, section " + std::to_string(english_sections[i]) + " in English");
    }
    return differences;
}

LessonInfo spanish(const LessonInfo& lesson) {
    LessonInfo edition = lesson;
    edition.document_path = edition_path(lesson, "es");
    return edition;
}

std::string hints_edition(const std::string& hints_path, const std::string& language) {
    return (fs::path(hints_path).parent_path() / ("hints." + language + ".md")).string();
}

// Both editions of one lesson hold the same blocks in the same steps.
void both_editions_hold_the_same_blocks(const attn::testing::LessonFolder& folder) {
    const LessonInfo lesson = find_lesson(list_lessons(lessons_dir), std::to_string(folder.number));
    const std::string es = edition_path(lesson, "es");
    REQUIRE(fs::is_regular_file(es));
    const auto differences = edition_differences(lesson.document_path, es);
    for (const auto& difference : differences) UNSCOPED_INFO(difference);
    CHECK(differences.empty());
    CHECK(read_lesson_document(es).blocks.size() >= 3);
}

// The Spanish edition passes every check, as attn check runs it.
void the_spanish_edition_passes(const attn::testing::LessonFolder& folder) {
    const LessonInfo lesson = find_lesson(list_lessons(lessons_dir), std::to_string(folder.number));
    INFO(edition_path(lesson, "es"));
    REQUIRE(fs::is_regular_file(edition_path(lesson, "es")));
    REQUIRE(lesson.program != nullptr);
    const LessonRun english = run_lesson(lesson), run = run_lesson(spanish(lesson));
    CHECK(run.checks.size() == english.checks.size());
    REQUIRE(run.checks.size() >= 3);
    for (const auto& check : run.checks) {
        INFO(describe_check(Terminal{}, run, check));
        CHECK(check.comparison.passed);
    }
}

// The Spanish hints of the lesson's exercise are about the same steps, in the same order.
void the_spanish_hints_follow_the_english(const attn::testing::LessonFolder& folder) {
    const std::string hints = folder.path + "/exercise/hints.md", es = hints_edition(hints, "es");
    INFO(es);
    REQUIRE(fs::is_regular_file(es));
    const auto english = read_hints(hints), spanish_hints = read_hints(es);
    REQUIRE(spanish_hints.size() == english.size());
    for (std::size_t i = 0; i < spanish_hints.size(); ++i) {
        INFO("hint " << i + 1);
        CHECK(spanish_hints[i].steps == english[i].steps);
        CHECK(spanish_hints[i].text.size() > english[i].text.size() / 2);  // a hint, not an empty section
    }
}

}  // namespace

TEST_CASE("editions - every lesson has a Spanish edition, and it is not a lesson of its own", "[lessons][editions]") {
    const auto lessons = list_lessons(lessons_dir);
    std::size_t folders = 0;
    for (const auto& entry : fs::directory_iterator(lessons_dir))
        if (fs::is_regular_file(entry.path() / "README.md")) ++folders;
    CHECK(lessons.size() == folders);
    CHECK(lessons.size() >= 7);
    for (const auto& lesson : lessons) {
        INFO(lesson.document_path);
        CHECK(fs::path(lesson.document_path).filename() == "README.md");
        CHECK(edition_path(lesson, "en") == lesson.document_path);
        CHECK(fs::is_regular_file(edition_path(lesson, "es")));
    }

    // A folder with both editions is one lesson, read from README.md; a Spanish edition alone is none.
    attn::testing::TempDir dir;
    fs::create_directories(dir.path() + "/01-dot-product");
    fs::create_directories(dir.path() + "/02-luong");
    attn::testing::write_file(dir.path() + "/01-dot-product/README.md", "# Lesson 1 — English\n");
    attn::testing::write_file(dir.path() + "/01-dot-product/README.es.md", "# Lección 1 — Español\n");
    attn::testing::write_file(dir.path() + "/02-luong/README.es.md", "# Lección 2 — Español\n");
    const auto planted = list_lessons(dir.path());
    REQUIRE(planted.size() == 1);
    CHECK(planted[0].title == "Lesson 1 — English");
    CHECK(edition_path(planted[0], "es") == dir.path() + "/01-dot-product/README.es.md");
}

ATTN_PER_LESSON_TEST("both editions hold the same blocks in the same steps", "[lessons][editions]",
                     both_editions_hold_the_same_blocks)

TEST_CASE("editions - any difference in a block or in the steps is found", "[lessons][editions]") {
    attn::testing::TempDir dir;
    const std::string english = "# Lesson 1 — Title\n\nIntro.\n\n## Step 1 — Inputs\n\nText.\n\n"
                                "```attn input x shape=B,S\n[[1, 2]]\n```\n\n"
                                "```attn input x example=one\n[[3]]\n```\n\n```attn input x example=two\n[[4]]\n```\n\n"
                                "## Step 2 — Scores\n\n```attn expect scores shape=B,S atol=0\ntensor([[50., 57.]])\n```\n\n"
                                "```attn expect weights example=one heatmap rows=a columns=b,c\n[[0.5, 0.5]]\n```\n\n"
                                "```attn expect context\n[[1.5]]\n```\n\n"
                                "## Where the code lives\n\nHere.\n";
    const std::string english_path = dir.path() + "/README.md", edition = dir.path() + "/README.es.md";
    attn::testing::write_file(english_path, english);

    const auto differences_with = [&](const std::string& from, const std::string& to) {
        std::string text = english;
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
        attn::testing::write_file(edition, text);
        return edition_differences(english_path, edition);
    };
    // Prose, headings and titles may say anything, in any language.
    CHECK(differences_with("Text.", "Texto, mucho más largo.\n\nY otro párrafo.").empty());
    CHECK(differences_with("## Step 2 — Scores", "## Paso 2 — Puntuaciones").empty());
    CHECK(differences_with("# Lesson 1 — Title", "# Lección 1 — Título").empty());
    CHECK(differences_with("## Where the code lives", "## Dónde está el código").empty());
    // The numbers and the steps may not.
    for (const auto& change : std::vector<std::pair<std::string, std::string>>{
             {"[[50., 57.]]", "[[50., 58.]]"},                      // a value
             {"[[1, 2]]", "[[1,  2]]"},                             // a value as written
             {"scores shape=B,S atol=0", "scores shape=B,S"},     // a tolerance dropped
             {"atol=0", "atol=0.0"},                                // a tolerance as written
             {"shape=B,S atol=0", "atol=0 shape=B,S"},              // the attributes' order
             {"weights example=one", "weights example=two"},        // the example
             {"rows=a", "rows=z"},                                  // a heatmap label
             {"attn expect context", "attn input context"},         // the kind
             {"attn expect scores", "attn expect score"},           // the name
             {"## Step 2 — Scores\n\n", "Scores\n\n"},              // a step merged into the one before
             {"## Step 2 — Scores", "## Paso 3 — Puntuaciones"},    // a step renumbered
             {"# Lesson 1 — Title", "# Lección 2 — Título"},        // the lesson's number
             {"Text.\n\n", "Text.\n\n## Step 1b — More\n\n"},       // a step added
         }) {
        INFO("changed " << change.first << " into " << change.second);
        CHECK_FALSE(differences_with(change.first, change.second).empty());
    }
    // Two blocks swapped, and a block gone.
    std::string swapped = english;
    const std::string scores = "```attn expect scores shape=B,S atol=0\ntensor([[50., 57.]])\n```\n\n";
    swapped.erase(swapped.find(scores), scores.size());
    swapped.insert(swapped.find("## Where"), scores);
    attn::testing::write_file(edition, swapped);
    CHECK_FALSE(edition_differences(english_path, edition).empty());
    std::string missing = english;
    missing.erase(missing.find(scores), scores.size());
    attn::testing::write_file(edition, missing);
    CHECK_FALSE(edition_differences(english_path, edition).empty());
}

ATTN_PER_LESSON_TEST("the Spanish edition passes every check, as attn check runs it", "[lessons][editions]",
                     the_spanish_edition_passes)
ATTN_PER_LESSON_TEST("the Spanish hints are about the same steps, in the same order", "[exercises][editions]",
                     the_spanish_hints_follow_the_english, attn::testing::with_exercise)
