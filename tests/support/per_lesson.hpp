// tests/support/per_lesson.hpp — one Catch2 test case per lesson folder, registered at start-up.
//
// Why: a lesson is a folder (docs/adding-a-lesson.md). A test that holds for every lesson — its
// checks pass, both editions hold the same blocks, its exercise's solution passes — is written
// once, and each folder found in the source tree's lessons/ gets its own test case, named with its
// number and tagged [lessonNN], so `attn_tests "[lesson08]"` runs lesson 8's share of them the day
// its folder exists, with no edit to any test.
//
//   void every_check_passes(const attn::testing::LessonFolder& lesson) { … }
//   ATTN_PER_LESSON_TEST("every expected value matches", "[lessons]", every_check_passes)
//   // → "lesson 1 - dot-product - every expected value matches" [lessons][lesson01], …
#pragma once

#include <string>
#include <vector>

namespace attn::testing {

struct LessonFolder {
    int number;
    std::string folder;  // "01-dot-product"
    std::string slug;    // "dot-product"
    std::string path;    // the source tree's lessons/01-dot-product
    std::string tag;     // "[lesson01]": two digits at least, as the tests' tags are written
    bool has_exercise() const;  // exercise/stub.cpp is there
};

/// Every lesson folder of the source tree (lessons/NN-slug with a README.md), by number.
const std::vector<LessonFolder>& lesson_folders();

/// Registers "lesson N - slug - <title>" with `tags` and the lesson's own tag, for every folder
/// that `applies` (nullptr: every folder), running test(folder).
struct PerLessonTests {
    PerLessonTests(const char* title, const char* tags, void (*test)(const LessonFolder&),
                   bool (*applies)(const LessonFolder&) = nullptr);
};

bool with_exercise(const LessonFolder& lesson);

}  // namespace attn::testing

#define ATTN_PER_LESSON_TEST_NAME2(line) attn_per_lesson_tests_##line
#define ATTN_PER_LESSON_TEST_NAME(line) ATTN_PER_LESSON_TEST_NAME2(line)
/// At namespace scope: `test` (void(const LessonFolder&)) as one test case per lesson folder.
#define ATTN_PER_LESSON_TEST(title, tags, ...) \
    static const attn::testing::PerLessonTests ATTN_PER_LESSON_TEST_NAME(__LINE__)(title, tags, __VA_ARGS__);
