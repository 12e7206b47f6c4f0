// This lesson's own tests: its one-query cross-attention against lesson 1, read across lessons;
// the KV cache and greedy decoding against the whole prefix recomputed; and its program on hostile
// documents, through the real `attn check --lessons-dir`: exit 2 naming the input, never a crash,
// a hang or an allocation sized by a number from the document.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"
#include "support/temp_dir.hpp"

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

namespace {

using attn::testing::expect_refused;
using attn::testing::TempDir;

void expect_check_refused(const std::string& document, const std::vector<std::string>& fragments) {
    TempDir dir;
    expect_refused({"--lessons-dir", attn::testing::this_lesson_with_document(dir, document), "check",
                    attn::testing::this_lesson_number()},
                   fragments);
}

// One step holding these input blocks.
std::string document_with(const std::vector<std::pair<std::string, std::string>>& inputs) {
    std::string text = "# Lesson " + attn::testing::this_lesson_number() + " — hostile\n\n## Step\n\n";
    for (const auto& [name, values] : inputs) text += "```attn input " + name + "\n" + values + "\n```\n\n";
    return text;
}

// The lesson's own document with one input block's values replaced.
std::string document_replacing(const std::string& name, const std::string& values) {
    std::string text = attn::testing::read_file(attn::testing::this_lesson_path() + "/README.md");
    const std::string opening = "```attn input " + name + "\n";
    const std::size_t start = text.find(opening);
    REQUIRE(start != std::string::npos);
    const std::size_t first = start + opening.size(), end = text.find("\n```", first);
    return text.replace(first, end - first, values);
}

}  // namespace

ATTN_LESSON_TEST_CASE("hostile - full-size sizes are refused before anything is drawn", "[cli][hostile]") {
    const auto sizes = [](const std::string& values) { return document_with({{"sizes", values}, {"seed", "[1]"}}); };
    expect_check_refused(sizes("[64, 256, 256, 512, 8, 2048]"),
                         {"sizes: tgt (64, 256, 512) would hold more than 4194304 values"});
    expect_check_refused(sizes("[4096, 4096, 4096, 4096, 8, 4096]"), {"sizes: tgt", "too large"});
    expect_check_refused(sizes("[1, 2, 3]"), {"sizes must hold B, T, S, D, h, F"});
    expect_check_refused(sizes("[1, 2, 2, 6, 4, 8]"), {"D = 6", "not a multiple of the number of heads h = 4"});
    expect_check_refused(sizes("[1, 2, 2, 1e9, 4, 8]"), {"input 'sizes' holds 1e+09"});
    expect_check_refused(document_with({{"sizes", "[1, 2, 2, 4, 2, 8]"}, {"seed", "[-1]"}}), {"input 'seed' holds -1"});
}

ATTN_LESSON_TEST_CASE("hostile - cache sizes and grouped heads", "[cli][hostile]") {
    expect_check_refused(document_with({{"cache_sizes", "[[1048576, 1048576, 1048576, 1048576]]"}}),
                         {"kv_cache_bytes_per_token", "does not fit"});
    expect_check_refused(document_with({{"cache_sizes", "[[12, 12, 64]]"}}), {"cache_sizes must hold rows of"});
    const std::string two_heads = "[[[[1, 0]], [[0, 1]]]]";
    expect_check_refused(document_with({{"q", "[[[[1, 0]], [[0, 1]], [[1, 1]]]]"}, {"k", two_heads}, {"v", two_heads}}),
                         {"q_new (1, 3, 1, 2) has h = 3 query heads, which the cache's kv_heads g = 2 does not divide"});
    expect_check_refused(document_with({{"q", two_heads}, {"k", two_heads}, {"v", "[[[[1, 0, 0]], [[0, 1, 0]]]]"}}),
                         {"v_new (1, 2, 1, 3)"});
}

ATTN_LESSON_TEST_CASE("hostile - decoding reads ids of the vocabulary and a bounded length", "[cli][hostile]") {
    expect_check_refused(document_replacing("start_id", "[6]"), {"input 'start_id' holds 6"});
    expect_check_refused(document_replacing("stop_id", "[-1]"), {"input 'stop_id' holds -1"});
    expect_check_refused(document_replacing("max_tokens", "[1e6]"), {"input 'max_tokens' holds 1e+06"});
    expect_check_refused(document_replacing("max_tokens", "[0]"), {"input 'max_tokens' holds 0"});
}
