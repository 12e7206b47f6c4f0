// tests/support/lesson_runs.hpp — a lesson of the source tree run as `attn check` runs it, for the
// tests that read the tensors its program computed (lessons/NN-slug/tests.cpp).
//
//   const attn::tutor::LessonRun run = attn::testing::run_this_lesson();  // in lessons/NN-slug/tests.cpp
//   attn::DynamicTensor weights = attn::testing::computed(run, "main", "weights");
#pragma once

#include <string>

#include "tutor/lesson/lessons.hpp"

namespace attn::testing {

/// Runs the source tree's lesson `number_or_slug` ("8", "08", "positions"), as `attn check` does.
tutor::LessonRun run_source_lesson(const std::string& number_or_slug);

/// The tensor `name` that the run's program computed for `example`; throws when there is none.
attn::DynamicTensor computed(const tutor::LessonRun& run, const std::string& example, const std::string& name);

#ifdef ATTN_LESSON_NUMBER
namespace {  // unnamed: each lesson's tests run their own lesson (support/lesson_test_case.hpp)
/// In a lesson's own tests: that lesson, run.
[[maybe_unused]] tutor::LessonRun run_this_lesson() { return run_source_lesson(std::to_string(ATTN_LESSON_NUMBER)); }
}  // namespace
#endif

}  // namespace attn::testing
