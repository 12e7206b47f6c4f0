// Every lesson document's checks, run as the tutor runs them: one test per lesson folder
// (support/per_lesson.hpp). Plus the tutor's list of lessons against the folders. Tests about one
// lesson's document or program live in its folder (lessons/NN-slug/tests.cpp).
#include <catch2/catch.hpp>
#include <algorithm>

#include "support/per_lesson.hpp"
#include "tutor/lesson/lesson_report.hpp"
#include "tutor/lesson/lessons.hpp"

namespace {

using namespace attn::tutor;

const std::string lessons_dir = ATTN_SOURCE_DIR "/lessons";

// Runs every check of a lesson and reports each failure with its numbers.
void every_check_passes(const attn::testing::LessonFolder& folder) {
    const auto lessons = list_lessons(lessons_dir);
    const LessonInfo& lesson = find_lesson(lessons, std::to_string(folder.number));
    REQUIRE(lesson.program != nullptr);
    const LessonRun run = run_lesson(lesson);
    REQUIRE(run.checks.size() >= 3);  // a lesson without checks would pass vacuously
    for (const auto& check : run.checks) {
        INFO(describe_check(Terminal{}, run, check));
        CHECK(check.comparison.passed);
    }
}

}  // namespace

// One test case per lesson folder: "lesson N - slug - every expected value matches" [lessonNN].
ATTN_PER_LESSON_TEST("every expected value matches", "[lessons]", every_check_passes)

TEST_CASE("every lesson folder has a program and every program a folder", "[lessons]") {
    const auto lessons = list_lessons(lessons_dir);
    for (const auto& lesson : lessons) {
        INFO(lesson.document_path);
        CHECK(lesson.program != nullptr);
    }
    for (const auto& program : lesson_programs()) {
        INFO(program.slug);
        CHECK_NOTHROW(find_lesson(lessons, program.slug));
    }
}

TEST_CASE("the per-lesson tests are registered for every lesson the tutor lists", "[lessons]") {
    // The tests' own discovery (support/per_lesson.hpp) against the tutor's: a lesson missed by
    // one of them would silently have no per-lesson tests.
    const auto lessons = list_lessons(lessons_dir);
    const auto& folders = attn::testing::lesson_folders();
    REQUIRE(folders.size() >= 7);  // the lessons are really there
    std::vector<std::pair<int, std::string>> listed, found;
    for (const auto& lesson : lessons) listed.emplace_back(lesson.number, lesson.slug);
    for (const auto& folder : folders) found.emplace_back(folder.number, folder.slug);
    std::sort(listed.begin(), listed.end());
    CHECK(found == listed);
}

TEST_CASE("lessons are found by number or slug and a typo lists them", "[lessons]") {
    // The first lesson folder, whichever it is: found by its number, its folder's digits, its slug.
    const auto lessons = list_lessons(lessons_dir);
    const attn::testing::LessonFolder& first = attn::testing::lesson_folders().at(0);
    const std::string number = std::to_string(first.number), digits = first.folder.substr(0, first.folder.find('-'));
    CHECK(find_lesson(lessons, number).slug == first.slug);
    CHECK(find_lesson(lessons, digits).number == first.number);
    CHECK(find_lesson(lessons, first.slug).number == first.number);
    CHECK_THROWS_WITH(find_lesson(lessons, "424242"),
                      Catch::Contains("unknown lesson '424242'") && Catch::Contains(number + " " + first.slug));
    CHECK_THROWS_WITH(find_lesson(lessons, first.slug.substr(0, 3)),
                      Catch::Contains("unknown lesson '" + first.slug.substr(0, 3) + "'"));
}

