// Tests for lessons/07-online-softmax's classic mistakes
// (lessons/07-online-softmax/exercise/mistakes.hpp): each computes what its name says, written out
// by formula on the lesson's worked example (one query, scores 2, 1 | 3, 0 in two tiles of two) or
// on a causal batch, and differs from the right result (a mistake that gives the right numbers
// could not be diagnosed).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include <xtensor/xrandom.hpp>

#include "07-online-softmax/exercise/mistakes.hpp"
#include "07-online-softmax/exercise/trace_steps.hpp"
#include "support/tensor_match.hpp"
#include "tutor/lesson/check.hpp"

namespace {

using attn::OnlineSoftmaxOptions;
using attn::OnlineSoftmaxResult;

// lessons/07-online-softmax's worked example.
const attn::Tensor3 Q = {{{2, 0, 1, 1}}};
const attn::Tensor3 K = {{{1, 1, 1, 1}, {0, 3, 1, 1}, {2, 1, 1, 1}, {1, 0, -1, -1}}};
const attn::Tensor3 V = {{{1, 0}, {0, 1}, {1, 1}, {2, 0}}};
const double e1 = std::exp(-1.0), e2 = std::exp(-2.0), e3 = std::exp(-3.0);

OnlineSoftmaxResult right_of_example() { return attn::online_softmax_attention(Q, K, V, OnlineSoftmaxOptions{1, 2, false}); }

// Query t's attention over keys 0 … last only (lessons/04-causal-self-attention's, written out):
// what a query gets when the keys after `last` are lost.
attn::Vector attention_over_first_keys(const attn::Tensor3& q, const attn::Tensor3& k, const attn::Tensor3& v, std::size_t t,
                                       std::size_t last) {
    const double scale = 1.0 / std::sqrt(double(q.shape(2)));
    std::vector<double> scores;
    for (std::size_t s = 0; s <= last; ++s) {
        double dot = 0.0;
        for (std::size_t x = 0; x < q.shape(2); ++x) dot += q(0, t, x) * k(0, s, x);
        scores.push_back(dot * scale);
    }
    const double top = *std::max_element(scores.begin(), scores.end());
    double total = 0.0;
    for (double& s : scores) total += s = std::exp(s - top);
    attn::Vector out = xt::zeros<double>({v.shape(2)});
    for (std::size_t s = 0; s <= last; ++s)
        for (std::size_t x = 0; x < v.shape(2); ++x) out(x) += scores[s] / total * v(0, s, x);
    return out;
}

attn::Vector row_of(const attn::Tensor3& output, std::size_t t) {
    attn::Vector row = attn::Vector::from_shape({output.shape(2)});
    for (std::size_t x = 0; x < row.size(); ++x) row(x) = output(0, t, x);
    return row;
}

}  // namespace

TEST_CASE("l not rescaled keeps the first tile's terms against m = 2 on lesson 7's example", "[mistakes][lesson07]") {
    const auto right = right_of_example();
    const auto wrong = attn::mistakes::online_sum_not_rescaled(right);
    CHECK(wrong.trace[0].running_sum(0) == Approx(1 + e1).epsilon(1e-14));
    // 1.3679 + 1 + 0.0498 instead of 0.5032 + 1 + 0.0498 = 1.5530.
    const double l = 1 + e1 + 1 + e3;
    CHECK(wrong.trace[1].running_sum(0) == Approx(l).epsilon(1e-14));
    CHECK_TENSOR_CLOSE(right.trace[1].accumulator, wrong.trace[1].accumulator, 0.0, 0.0);  // the accumulator is right
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{(e1 + 1 + 2 * e3) / l, (e2 + 1) / l}}}), wrong.output, 1e-14, 1e-14);
    CHECK_FALSE(attn::tutor::compare(right.output, wrong.output, {1e-3, 1e-3}).passed);
}

TEST_CASE("the accumulator rescaled by e^(m_new - m_old) is NaN from the first tile while l stays right", "[mistakes][lesson07]") {
    const auto right = right_of_example();
    const auto wrong = attn::mistakes::online_accumulator_wrong_factor(right, V);
    for (const auto& tile : wrong.trace) {
        for (double value : tile.accumulator) CHECK(std::isnan(value));
    }
    for (double value : wrong.output) CHECK(std::isnan(value));
    CHECK_TENSOR_CLOSE(right.trace[1].running_sum, wrong.trace[1].running_sum, 0.0, 0.0);
}

TEST_CASE("dividing by l after every tile adds the second tile to a mean on lesson 7's example", "[mistakes][lesson07]") {
    const auto right = right_of_example();
    const auto wrong = attn::mistakes::online_divided_per_tile(right, V);
    // After tile 0 the running output [1, e^-1] / (1 + e^-1) = [0.7311, 0.2689]
    // (lessons/07-online-softmax, step 4).
    const double l0 = 1 + e1, l1 = e1 * l0 + 1 + e3;
    CHECK_TENSOR_CLOSE(attn::Matrix({{1 / l0, e1 / l0}}), wrong.trace[0].accumulator, 1e-15, 1e-14);
    const attn::Matrix second = {{(e1 / l0 + 1 + 2 * e3) / l1, (e1 * e1 / l0 + 1) / l1}};
    CHECK_TENSOR_CLOSE(second, wrong.trace[1].accumulator, 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{second(0, 0), second(0, 1)}}}), wrong.output, 1e-15, 1e-14);
    CHECK_FALSE(attn::tutor::compare(right.output, wrong.output, {1e-3, 1e-3}).passed);
}

TEST_CASE("the causal tile skips off by one and against the first query lose the keys of the tiles they skip", "[mistakes][lesson07]") {
    // T = S = 6 in tiles of 3 queries and 2 keys: query tiles 0-2, 3-5; key tiles 0-1, 2-3, 4-5.
    xt::random::seed(7);
    const attn::Tensor3 q = xt::random::randn<double>(std::vector<std::size_t>{1, 6, 4});
    const attn::Tensor3 k = xt::random::randn<double>(std::vector<std::size_t>{1, 6, 4});
    const attn::Tensor3 v = xt::random::randn<double>(std::vector<std::size_t>{1, 6, 2});
    const OnlineSoftmaxOptions options{3, 2, true};
    const auto right = attn::online_softmax_attention(q, k, v, options);
    REQUIRE(right.tiles_skipped == 1);  // queries 0-2 × keys 4-5 only (2 > 2 is false for keys 2-3)
    const auto off_by_one = attn::mistakes::online_tile_skip_off_by_one(right, q, k, v, options);
    const auto first_query = attn::mistakes::online_tile_skip_first_query(right, q, k, v, options);
    // ≥: queries 0-2 × keys 2-3 is skipped (2 ≥ 2), so query 2 loses its own key 2.
    CHECK(off_by_one.trace[1].skipped);
    CHECK(off_by_one.tiles_skipped == 2);
    CHECK(off_by_one.tiles_computed == 4);
    CHECK_TENSOR_CLOSE(attention_over_first_keys(q, k, v, 2, 1), row_of(off_by_one.output, 2), 1e-14, 1e-12);
    for (std::size_t t : {0, 1, 3, 4, 5}) CHECK_TENSOR_CLOSE(row_of(right.output, t), row_of(off_by_one.output, t), 1e-14, 1e-12);
    // First query: also queries 3-5 × keys 4-5 (4 > 3), so query 4 loses key 4 and query 5 keys 4 and 5.
    CHECK(first_query.trace[1].skipped);
    CHECK(first_query.trace[5].skipped);
    CHECK(first_query.tiles_skipped == 3);
    CHECK_TENSOR_CLOSE(attention_over_first_keys(q, k, v, 4, 3), row_of(first_query.output, 4), 1e-14, 1e-12);
    CHECK_TENSOR_CLOSE(attention_over_first_keys(q, k, v, 5, 3), row_of(first_query.output, 5), 1e-14, 1e-12);
    // A skipped tile leaves the state as it was: rescale 1, exponentials 0, m and l unchanged.
    const auto& skipped = first_query.trace[5];
    CHECK_TENSOR_CLOSE(attn::Vector({1, 1, 1}), skipped.rescale, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(first_query.trace[4].running_sum, skipped.running_sum, 0.0, 0.0);
    // Without the causal mask nothing is skipped, and both are the right result.
    const OnlineSoftmaxOptions full{3, 2, false};
    const auto unmasked = attn::online_softmax_attention(q, k, v, full);
    CHECK_TENSOR_CLOSE(unmasked.output, attn::mistakes::online_tile_skip_off_by_one(unmasked, q, k, v, full).output, 0.0, 0.0);
}

TEST_CASE("exercise 7's trace tables lay the trace out by tile and name a trace out of place", "[mistakes][lesson07]") {
    const auto right = right_of_example();
    const attn::exercises::TraceGeometry geometry{1, 1, 4, 2, 1, 2};
    const auto steps = attn::exercises::trace_steps(right, geometry);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{2, 3}}}), steps.running_max, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0, e1}}}), steps.rescale, 0.0, 1e-15);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{1, e1, 1, e3}}}), steps.exponentials, 0.0, 1e-15);
    CHECK_TENSOR_CLOSE(attn::Vector({2, 0}), steps.tile_counts, 0.0, 0.0);
    auto shortened = right;
    shortened.trace.pop_back();
    CHECK_THROWS_WITH(attn::exercises::trace_steps(shortened, geometry),
                      Catch::Contains("your trace has 1 tiles; it needs one per batch item, query tile and key tile") &&
                          Catch::Contains("= 1 · 1 · 2 = 2"));
    auto swapped = right;
    std::swap(swapped.trace[0], swapped.trace[1]);
    CHECK_THROWS_WITH(attn::exercises::trace_steps(swapped, geometry),
                      Catch::Contains("your trace's tile 0 (batch 0, queries 0, keys 0–1) says batch 0, queries from 0 (1), "
                                      "keys from 2 (2)"));
    auto narrow = right;
    narrow.trace[1].accumulator = xt::zeros<double>({1, 3});
    CHECK_THROWS_WITH(attn::exercises::trace_steps(narrow, geometry),
                      Catch::Contains("your trace's tile 1 (batch 0, queries 0, keys 2–3) has accumulator of shape (1, 3); "
                                      "it must be (1, 2)"));
}
