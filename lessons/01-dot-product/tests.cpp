// This lesson's own tests: the errors a lesson author sees when this lesson's program and a
// document disagree, and a wrong expected value's report.
#include <catch2/catch.hpp>
#include <filesystem>

#include "support/lesson_test_case.hpp"
#include "support/temp_dir.hpp"
#include "tutor/lesson/lessons.hpp"

namespace {

using attn::testing::TempDir;
using attn::testing::write_file;
using namespace attn::tutor;  // the lesson runs: list_lessons, find_lesson, run_lesson

}  // namespace

ATTN_LESSON_TEST_CASE("a document the program cannot use names the file and line", "[errors]") {
    TempDir dir;
    std::filesystem::create_directories(dir.path() + "/" ATTN_LESSON_FOLDER "");
    const std::string path = dir.path() + "/" ATTN_LESSON_FOLDER "/README.md";
    const std::string inputs =
        "# L\n```attn input encoder_outputs\n[[[1, 2]]]\n```\n```attn input decoder_output\n[[1, 1]]\n```\n";

    write_file(path, inputs + "```attn expect attention\n[[1.]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number())),
                      Catch::Contains("README.md:8:") && Catch::Contains("computes no tensor 'attention'") &&
                          Catch::Contains("it computes: context, scores"));

    write_file(path, "# L\n```attn input encoder_outputs\n[[[1, 2]]]\n```\n```attn expect scores\n[[1.]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number())),
                      Catch::Contains("no input block for 'decoder_output'"));

    write_file(path, "# L\n```attn input encoder_outputs\n[[1, 2]]\n```\n```attn input decoder_output\n[[1, 1]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number())),
                      Catch::Contains("has shape (1, 2); the lesson needs (B, S, H)"));

    write_file(path, "# L\n```attn input encoder_outputs\n[[[1, 2]]]\n```\n```attn input decoder_output\n[[1, 1, 1]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number())),
                      Catch::Contains("README.md") && Catch::Contains("encoder_outputs (1, 1, 2) (B, S, H) has H = 2 but decoder_output (1, 3) (B, H) has H = 3"));
}

ATTN_LESSON_TEST_CASE("a wrong expected value fails its check with the numbers") {
    TempDir dir;
    std::filesystem::create_directories(dir.path() + "/" ATTN_LESSON_FOLDER "");
    write_file(dir.path() + "/" ATTN_LESSON_FOLDER "/README.md",
                              "# L\n```attn input encoder_outputs\n[[[1, 2], [3, 4]]]\n```\n"
                              "```attn input decoder_output\n[[1, 1]]\n```\n"
                              "```attn expect scores\ntensor([[3., 8.]])\n```\n");
    const LessonRun run = run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number()));
    REQUIRE(run.checks.size() == 1);
    CHECK_FALSE(run.passed());
    CHECK(run.checks[0].comparison.max_abs_difference == 1.0);
    CHECK_THAT(run.checks[0].comparison.summary(), Catch::Contains("first at [0, 1]: expected 8, got 7"));
}
