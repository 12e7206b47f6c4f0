// Tests for attn/softmax.hpp: literal values a person can check, the properties every softmax
// has, and the policies for masked (−∞) and non-finite rows.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xrandom.hpp>

#include "attn/softmax.hpp"
#include "support/tensor_match.hpp"

namespace {
const double inf = std::numeric_limits<double>::infinity();
}

TEST_CASE("softmax of lesson 1's scores", "[softmax][lesson01]") {
    const attn::Matrix scores = {{50, 57}, {19, 19}};
    const double first = 1.0 / (1.0 + std::exp(7.0));  // e^50 / (e^50 + e^57)
    const attn::Matrix expected = {{first, 1.0 - first}, {0.5, 0.5}};
    CHECK_TENSOR_CLOSE(expected, attn::softmax_last_axis(scores), 1e-15, 1e-14);
}

TEST_CASE("softmax is taken over the last axis only, row by row", "[softmax][lesson01]") {
    // The row-wise one-liner with a lazy keep_dims reducer gives wrong numbers on this very input
    // with xtensor 0.24.3; the library must not.
    const attn::Matrix x = {{1, 2, 3}, {30, 40, 50}};
    const double a = std::exp(-2.0), b = std::exp(-1.0), sum1 = a + b + 1.0;
    const double c = std::exp(-20.0), d = std::exp(-10.0), sum2 = c + d + 1.0;
    const attn::Matrix expected = {{a / sum1, b / sum1, 1.0 / sum1}, {c / sum2, d / sum2, 1.0 / sum2}};
    CHECK_TENSOR_CLOSE(expected, attn::softmax_last_axis(x), 1e-15, 1e-13);
}

TEST_CASE("softmax rows sum to one and are unchanged by adding a constant", "[softmax][property][lesson01]") {
    xt::random::seed(7);
    const attn::Tensor3 x = xt::random::randn<double>({4, 5, 9}) * 10.0;
    const attn::Tensor3 y = attn::softmax_last_axis(x);
    const attn::Matrix row_sums = xt::sum(y, {2});
    CHECK_TENSOR_CLOSE(xt::ones<double>({4, 5}), row_sums, 1e-14, 0.0);
    CHECK(xt::all(y >= 0.0));
    const attn::Tensor3 shifted = attn::softmax_last_axis(attn::Tensor3(x + 123.0));
    CHECK_TENSOR_CLOSE(y, shifted, 1e-14, 1e-12);
}

TEST_CASE("softmax does not overflow on large scores", "[softmax][lesson01]") {
    const attn::Vector x = {1000.0, 1001.0};
    const double small = 1.0 / (1.0 + std::exp(1.0));
    CHECK_TENSOR_CLOSE(attn::Vector({small, 1.0 - small}), attn::softmax_last_axis(x), 1e-15, 1e-14);
}

TEST_CASE("masked positions get weight exactly zero", "[softmax][mask][lesson01]") {
    const attn::Matrix x = {{0.0, -inf, -inf}, {1.0, 1.0, -inf}};
    const attn::Matrix y = attn::softmax_last_axis(x);
    CHECK(y(0, 0) == 1.0);
    CHECK(y(0, 1) == 0.0);
    CHECK(y(1, 0) == 0.5);
    CHECK(y(1, 2) == 0.0);
}

TEST_CASE("a fully masked row is all zeros - the library's policy", "[softmax][mask][lesson01]") {
    const attn::Matrix x = {{-inf, -inf}, {2.0, 2.0}};
    const attn::Matrix y = attn::softmax_last_axis(x);
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.0, 0.0}, {0.5, 0.5}}), y, 0.0, 0.0);
}

TEST_CASE("a +inf score takes all the weight and NaN stays NaN", "[softmax][lesson01]") {
    const attn::Matrix x = {{inf, 1.0, inf}, {std::nan(""), 0.0, 0.0}};
    const attn::Matrix y = attn::softmax_last_axis(x);
    CHECK(y(0, 0) == 0.5);
    CHECK(y(0, 1) == 0.0);
    CHECK(y(0, 2) == 0.5);
    CHECK(std::isnan(y(1, 0)));
    CHECK(std::isnan(y(1, 2)));
}

TEST_CASE("softmax of a single position is 1", "[softmax][lesson01]") {
    const attn::Tensor4 x = {{{{-3.5}}, {{42.0}}}};
    CHECK_TENSOR_CLOSE(xt::ones<double>({1, 2, 1, 1}), attn::softmax_last_axis(x), 0.0, 0.0);
}
