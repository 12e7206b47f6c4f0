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

ATTN_LESSON_TEST_CASE("the KV cache's steps and greedy decoding equal the whole prefix recomputed", "[lesson04]") {
    const auto nine = attn::testing::run_this_lesson();
    // Step 10: the token-by-token rows are the causal self-attention of the whole sequence.
    check_same_values(computed(nine, "main", "causal_output"), computed(nine, "main", "cached_output"), 1e-14);
    // Step 13: the cached loop chooses the ids the uncached loop chooses, from the same logits.
    const attn::DynamicTensor ids = computed(nine, "main", "generated_ids");
    REQUIRE(ids.size() >= 2);
    check_same_values(computed(nine, "main", "uncached_generated_ids"), ids, 0.0);
    check_same_values(computed(nine, "main", "uncached_step_logits"), computed(nine, "main", "step_logits"), 1e-12);
    CHECK(ids(ids.size() - 1) == 1.0);  // the document's stop id ends the decoding
}
