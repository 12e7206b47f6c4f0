// This lesson's own tests: what its program computes, read across steps, and hostile widths
// through the real `attn check --lessons-dir`.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"

namespace {

using attn::testing::computed;
using attn::testing::expect_refused;
using attn::testing::TempDir;
using attn::tutor::LessonRun;

}  // namespace

ATTN_LESSON_TEST_CASE("decoding with a KV cache gives the new tokens the rows of the full computation") {
    // Step 11: queries 2 and 3 over all four keys, aligned bottom-right, are rows 2 and 3 of step 4;
    // aligned top-left (the same example's `_top_left` tensors) they are not.
    const LessonRun run = attn::testing::run_this_lesson();
    const attn::DynamicTensor full = computed(run, "main", "weights"), cached = computed(run, "kv_cache", "weights_bottom_right");
    const attn::DynamicTensor top_left = computed(run, "kv_cache", "weights_top_left");
    REQUIRE(cached.shape() == std::vector<std::size_t>({1, 2, 4}));
    for (std::size_t t = 0; t < 2; ++t)
        for (std::size_t s = 0; s < 4; ++s) {
            INFO("query " << t << " key " << s);
            CHECK(cached(0, t, s) == Approx(full(0, t + 2, s)).margin(1e-15));
        }
    CHECK(top_left(0, 0, 0) == 1.0);
    const attn::DynamicTensor full_output = computed(run, "main", "output"), cached_output = computed(run, "kv_cache", "output_bottom_right");
    for (std::size_t i = 0; i < 3; ++i) CHECK(cached_output(0, 1, i) == Approx(full_output(0, 3, i)).margin(1e-15));
}

ATTN_LESSON_TEST_CASE("hostile - widths must be whole numbers in range", "[cli][hostile]") {
    TempDir dir;
    for (const auto& [widths, fragment] : std::vector<std::pair<std::string, std::string>>{
             {"[1e9]", "README.md:5: input 'widths' holds 1e+09 at [0]; it must be a whole number from 1 to 4096"},
             {"[4, -1]", "README.md:5: input 'widths' holds -1 at [1]"},
             {"[0.5]", "README.md:5: input 'widths' holds 0.5 at [0]"},
             {"[4096, 4096, 4096]", "README.md:5: the values of input 'widths' add up to 12288; at most 8192"},
             {"[nan]", "README.md:6:2: nan cannot be checked"}}) {
        const std::string lessons = attn::testing::this_lesson_with_document(
            dir, "# Lesson " + attn::testing::this_lesson_number() +
                     " — hostile\n\n## Spread\n\n```attn input widths example=spread shape=n\n" + widths + "\n```\n");
        INFO(widths);
        expect_refused({"--lessons-dir", lessons, "check", attn::testing::this_lesson_number()}, {fragment});
    }
}
