// This lesson's own tests: its one-query cross-attention against lesson 1, read across lessons.
#include <catch2/catch.hpp>

#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"

namespace {

using attn::testing::computed;

void check_same_values(const attn::DynamicTensor& expected, const attn::DynamicTensor& got, double margin) {
    REQUIRE(expected.size() == got.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("value " << i << ": expected " << expected.data()[i] << ", got " << got.data()[i]);
        CHECK(got.data()[i] == Approx(expected.data()[i]).margin(margin));
    }
}

}  // namespace

ATTN_LESSON_TEST_CASE("lesson 1's attention is a cross-attention of one query", "[lesson01]") {
    // The document's step 1 says so with lesson 1's numbers: the same scores, weights and context,
    // one query axis of length 1 added (B, 1, S) and (B, 1, H).
    const auto one = attn::testing::run_source_lesson("dot-product"), nine = attn::testing::run_this_lesson();
    CHECK(computed(nine, "lesson1", "one_query_weights").shape(1) == 1);
    check_same_values(computed(one, "main", "scores"), computed(nine, "lesson1", "one_query_scores"), 0.0);
    check_same_values(computed(one, "main", "weights"), computed(nine, "lesson1", "one_query_weights"), 1e-15);
    check_same_values(computed(one, "main", "context"), computed(nine, "lesson1", "one_query_context"), 1e-14);
}
