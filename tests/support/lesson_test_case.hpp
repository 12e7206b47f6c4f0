// tests/support/lesson_test_case.hpp — a test case of one lesson, written in that lesson's folder.
//
// Why: a test about one lesson's document or program lives with the lesson (lessons/NN-slug/tests.cpp
// or tests/*.cpp; docs/adding-a-lesson.md), and nothing in it writes the lesson's number. CMake
// compiles those files with the folder's ATTN_LESSON_NUMBER, ATTN_LESSON_FOLDER and ATTN_LESSON_TAG
// (cmake/lessons.cmake), so the case is named and tagged from the folder, and a copied folder
// (cp -r lessons/08-positions lessons/99-copy) registers test cases of distinct names — Catch2
// refuses two cases of one name.
//
//   ATTN_LESSON_TEST_CASE("bad ids are refused", "[cli][hostile]") { … }
//   // in lessons/08-positions: "08-positions - bad ids are refused" [lessons][lesson08][cli][hostile]
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/temp_dir.hpp"

#if !defined(ATTN_LESSON_NUMBER) || !defined(ATTN_LESSON_FOLDER) || !defined(ATTN_LESSON_TAG)
#error "a lesson's tests are compiled with its folder's names: list the file in lessons/NN-slug/tests.cpp or tests/"
#endif

/// A Catch2 TEST_CASE named "<folder> - title", tagged [lessons], the lesson's tag, then `tags`.
#define ATTN_LESSON_TEST_CASE(title, ...) TEST_CASE(ATTN_LESSON_FOLDER " - " title, "[lessons]" ATTN_LESSON_TAG __VA_ARGS__)

namespace attn::testing {
// Unnamed: each lesson's files see their own folder's names, so these differ from one lesson to
// the next and must not be one inline function of the whole program.
namespace {

/// The source tree's folder of this lesson ("…/lessons/08-positions"), and its number as
/// `attn` reads it ("8").
[[maybe_unused]] std::string this_lesson_path() { return ATTN_SOURCE_DIR "/lessons/" ATTN_LESSON_FOLDER; }
[[maybe_unused]] std::string this_lesson_number() { return std::to_string(ATTN_LESSON_NUMBER); }

/// A lessons folder in `dir` whose copy of this lesson's folder holds only `document` as its
/// README.md: `attn --lessons-dir FOLDER check N` reads it with this lesson's program.
[[maybe_unused]] std::string this_lesson_with_document(const TempDir& dir, const std::string& document) {
    const std::string lessons = dir.path() + "/lessons";
    std::filesystem::create_directories(lessons + "/" ATTN_LESSON_FOLDER);
    write_file(lessons + "/" ATTN_LESSON_FOLDER "/README.md", document);
    return lessons;
}

/// A document of this lesson with one step holding these input blocks, each in example `example`;
/// the first block's values are on line 6.
[[maybe_unused]] std::string document_with_inputs(const std::string& example,
                                                  const std::vector<std::pair<std::string, std::string>>& inputs) {
    std::string text = "# Lesson " + this_lesson_number() + " — hostile\n\n## Step\n\n";
    for (const auto& [name, values] : inputs) text += "```attn input " + name + " example=" + example + "\n" + values + "\n```\n\n";
    return text;
}

/// `attn --lessons-dir … check N` with `document` as this lesson's README.md refuses it: exit 2,
/// every fragment in the message (expect_refused).
[[maybe_unused]] void expect_check_refused(const std::string& document, const std::vector<std::string>& fragments) {
    TempDir dir;
    expect_refused({"--lessons-dir", this_lesson_with_document(dir, document), "check", this_lesson_number()}, fragments);
}

}  // namespace
}  // namespace attn::testing
