// Tests for attn/layer_norm.hpp: PyTorch's and the Annotated Transformer's layer norms on inputs a
// person can redo, and their errors.
#include <catch2/catch.hpp>
#include <cmath>

#include "attn/error.hpp"
#include "attn/layer_norm.hpp"
#include "support/tensor_match.hpp"

namespace {
const attn::Vector ones4 = {1, 1, 1, 1}, zeros4 = {0, 0, 0, 0};
}

TEST_CASE("layer_norm on 1 0 0 0 gives 1.732 and annotated_layer_norm gives 1.5", "[layer_norm][lesson06]") {
    const attn::Matrix x = {{1, 0, 0, 0}};
    // mean 1/4; biased variance 3/16; (1 − 1/4) / sqrt(3/16 + eps).
    const double scale = std::sqrt(3.0 / 16.0 + 1e-5);
    const auto pytorch = attn::layer_norm(x, ones4, zeros4);
    CHECK(pytorch.mean(0) == 0.25);
    CHECK(pytorch.variance(0) == Approx(3.0 / 16.0).epsilon(1e-15));
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.75 / scale, -0.25 / scale, -0.25 / scale, -0.25 / scale}}), pytorch.output, 1e-15, 1e-14);
    CHECK(pytorch.output(0, 0) == Approx(1.7320).margin(1e-4));
    // Unbiased variance 1/4, std 1/2: (1 − 1/4) / (1/2 + eps).
    const auto annotated = attn::annotated_layer_norm(x, ones4, zeros4);
    CHECK(annotated.variance(0) == Approx(0.25).epsilon(1e-15));
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.75 / 0.500001, -0.25 / 0.500001, -0.25 / 0.500001, -0.25 / 0.500001}}),
                       annotated.output, 1e-15, 1e-14);
}

TEST_CASE("layer_norm applies weight and bias per feature and works on each row alone", "[layer_norm][lesson06]") {
    const attn::Matrix x = {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}};
    const attn::Vector weight = {1, 2, 1, 1, 1}, bias = {0, 0, 0, 0, 10};
    const auto step = attn::layer_norm(x, weight, bias);
    const double s = std::sqrt(2.0 + 1e-5);  // both rows: mean centre, biased variance 2
    CHECK_TENSOR_CLOSE(attn::Vector({2, 7}), step.mean, 0.0, 1e-15);
    CHECK_TENSOR_CLOSE(attn::Matrix({{-2 / s, -2 / s, 0, 1 / s, 10 + 2 / s}, {-2 / s, -2 / s, 0, 1 / s, 10 + 2 / s}}),
                       step.output, 1e-14, 1e-14);
}

TEST_CASE("layer_norm of a constant row is its bias", "[layer_norm][lesson06]") {
    const auto step = attn::layer_norm(attn::Matrix({{3, 3, 3, 3}}), ones4, attn::Vector{1, 2, 3, 4});
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2, 3, 4}}), step.output, 0.0, 0.0);
}

TEST_CASE("layer_norm over B T D matches the matrix form row by row", "[layer_norm][lesson06]") {
    const attn::Tensor3 x = {{{1, 2, 4, 8}, {0, 1, 0, 1}}, {{5, 5, 6, 6}, {-1, 0, 1, 2}}};
    const attn::Tensor3 got = attn::layer_norm(x, ones4, zeros4);
    attn::Matrix rows = xt::reshape_view(x, {4, 4});
    const auto expected = attn::layer_norm(rows, ones4, zeros4).output;
    CHECK_TENSOR_CLOSE(attn::DynamicTensor(xt::reshape_view(expected, {2, 2, 4})), got, 0.0, 0.0);
}

TEST_CASE("layer_norm errors name the shapes and refuse eps of zero or less", "[layer_norm][errors][lesson06]") {
    const attn::Matrix x = {{1, 0, 0, 0}};
    CHECK_THROWS_WITH(attn::layer_norm(x, attn::Vector{1, 1, 1}, zeros4),
                      Catch::Contains("x (1, 4) (N, D) has D = 4 but weight (3) (D) has D = 3"));
    CHECK_THROWS_WITH(attn::layer_norm(x, ones4, zeros4, 0.0), Catch::Contains("eps must be a positive number"));
    CHECK_THROWS_WITH(attn::layer_norm(x, ones4, zeros4, -1e-5), Catch::Contains("eps"));
    CHECK_THROWS_WITH(attn::annotated_layer_norm(attn::Matrix({{1}}), attn::Vector{1}, attn::Vector{0}),
                      Catch::Contains("D ≥ 2"));
}
