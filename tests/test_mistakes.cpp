// Tests for attn/mistakes.hpp: each mistake computes what its name says, and differs from the
// correct result on its lesson's worked example (a mistake that gives the right numbers could not
// be diagnosed).
#include <catch2/catch.hpp>
#include <cmath>

#include "attn/mistakes.hpp"
#include "support/tensor_match.hpp"

namespace {
// Lesson 1's worked example.
const attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
const attn::Matrix b = {{7, 8, 9}, {2, 1, 1}};
}  // namespace

TEST_CASE("softmax over the batch axis normalises columns and differs on lesson 1", "[mistakes]") {
    const auto wrong = attn::mistakes::dot_attention_softmax_over_batch(A, b);
    // Column 0 holds scores 50 and 19: softmax over the batch gives 1/(1 + e^-31) and e^-31/(1 + e^-31).
    const double top = 1.0 / (1.0 + std::exp(-31.0)), top2 = 1.0 / (1.0 + std::exp(-38.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{top, top2}, {1 - top, 1 - top2}}), wrong.weights, 1e-15, 1e-12);
    const auto right = attn::dot_attention(A, b);
    CHECK_FALSE(attn::tutor::compare(right.weights, wrong.weights, {1e-3, 1e-3}).passed);
    CHECK_FALSE(attn::tutor::compare(right.context, wrong.context, {1e-3, 1e-3}).passed);
}

TEST_CASE("attention without the softmax uses the raw scores as weights and differs on lesson 1", "[mistakes]") {
    const auto wrong = attn::mistakes::dot_attention_without_softmax(A, b);
    CHECK_TENSOR_CLOSE(attn::Matrix({{50, 57}, {19, 19}}), wrong.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{50 + 114, 100 + 114, 150 + 171}, {152, 190, 228}}), wrong.context, 1e-12, 1e-12);
    CHECK_FALSE(attn::tutor::compare(attn::dot_attention(A, b).context, wrong.context, {1e-3, 1e-3}).passed);
}
