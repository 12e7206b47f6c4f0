// Tests for attn/linear.hpp: y = x Wᵀ + b with PyTorch's (out, in) weight layout.
#include <catch2/catch.hpp>

#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "support/tensor_match.hpp"

TEST_CASE("linear computes x W-transpose plus b with W stored as out by in", "[linear][lesson03]") {
    const attn::Matrix x = {{1, 2}, {3, 4}};
    const attn::Matrix W = {{1, 0}, {0, 1}, {1, 1}};  // (out=3, in=2)
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2, 3}, {3, 4, 7}}), attn::linear(x, W), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2, 13}, {3, 4, 17}}), attn::linear(x, W, attn::Vector{0, 0, 10}), 0.0, 0.0);
}

TEST_CASE("linear carries leading axes through", "[linear][lesson03]") {
    const attn::Tensor3 x = {{{1, 2}}, {{3, 4}}};  // (B=2, T=1, in=2)
    const attn::Matrix W = {{2, -1}};              // (out=1, in=2)
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0.5}}, {{2.5}}}), attn::linear(x, W, attn::Vector{0.5}), 0.0, 0.0);
}

TEST_CASE("linear names the weight and both shapes when they disagree", "[linear][errors][lesson03]") {
    const attn::Matrix x = {{1, 2, 3}};
    const attn::Matrix W = {{1, 0}, {0, 1}};
    CHECK_THROWS_WITH(attn::linear(x, W, "W_a"), Catch::Contains("x (1, 3) (N, in) has in = 3 but W_a (2, 2) (out, in) has in = 2") &&
                                                        Catch::Contains("W_a must be (out, in) = (2, 3)"));
    CHECK_THROWS_AS(attn::linear(attn::Matrix({{1, 2}}), W, attn::Vector{1, 2, 3}), attn::ShapeError);
}
