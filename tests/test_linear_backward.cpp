// Tests for attn/linear_backward.hpp: dW = dYᵀ X, db = Σ dY, dX = dY W by hand, against central
// differences and PyTorch's autograd, for rows and for (B, T, in) sequences, and the shape error.
#include <catch2/catch.hpp>
#include <limits>
#include <xtensor/xbuilder.hpp>

#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/linear_backward.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"

using attn::testing::weighted_sum;

TEST_CASE("linear_backward by hand: dW = dYT X, db = sum dY, dX = dY W", "[linear_backward][lesson10]") {
    const attn::Matrix x = {{1, 2}}, W = {{1, 0}, {0, 1}, {1, 1}}, dY = {{1, 0, 1}};
    const auto grad = attn::linear_backward(x, W, dY);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2}, {0, 0}, {1, 2}}), grad.weight, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Vector({1, 0, 1}), grad.bias, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{2, 1}}), grad.x, 0.0, 0.0);   // row 0 of W plus row 2
}

TEST_CASE("linear_backward matches central differences, rows and sequences", "[linear_backward][lesson10]") {
    attn::Matrix W = {{0.5, -1.0, 0.25}, {1.5, 0.75, -0.5}};
    attn::Vector b = {0.1, -0.2};
    SECTION("rows (N, in)") {
        attn::Matrix x = {{1.0, -2.0, 0.5}, {0.25, 1.0, 3.0}, {-1.5, 0.5, 0.0}, {2.0, 2.0, -1.0}};
        const attn::Matrix upstream = {{1, -1}, {0.5, 2}, {-0.25, 1.5}, {3, -2}};
        const auto loss = [&] { return weighted_sum(attn::linear(x, W, b), upstream); };
        const auto grad = attn::linear_backward(x, W, upstream);
        CHECK_GRADIENT("x", x, loss, grad.x);
        CHECK_GRADIENT("weight", W, loss, grad.weight);
        CHECK_GRADIENT("bias", b, loss, grad.bias);
    }
    SECTION("sequences (B, T, in)") {
        attn::Tensor3 x = {{{1.0, -2.0, 0.5}, {0.25, 1.0, 3.0}}, {{-1.5, 0.5, 0.0}, {2.0, 2.0, -1.0}}};
        const attn::Tensor3 upstream = {{{1, -1}, {0.5, 2}}, {{-0.25, 1.5}, {3, -2}}};
        const auto loss = [&] { return weighted_sum(attn::linear(x, W, b), upstream); };
        const auto grad = attn::linear_backward(x, W, upstream);
        CHECK_GRADIENT("x", x, loss, grad.x);
        CHECK_GRADIENT("weight", W, loss, grad.weight);
        CHECK_GRADIENT("bias", b, loss, grad.bias);
    }
}

TEST_CASE("linear_backward matches torch.autograd.grad", "[linear_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("linear")) {
        const attn::Matrix x = fixture.input("x"), W = fixture.input("weight");
        const auto grad = attn::linear_backward(x, W, attn::Matrix(fixture.input("grad_output")));
        CHECK_AUTOGRAD(fixture, "x", grad.x);
        CHECK_AUTOGRAD(fixture, "weight", grad.weight);
        CHECK_AUTOGRAD(fixture, "bias", grad.bias);
    }
}

TEST_CASE("linear_backward names an upstream gradient of the wrong shape or not finite", "[linear_backward][lesson10]") {
    const attn::Matrix x = {{1, 2}}, W = {{1, 0}, {0, 1}, {1, 1}};
    const attn::Matrix wrong = {{1, 0}};   // (N, in), not (N, out)
    CHECK_THROWS_AS(attn::linear_backward(x, W, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::linear_backward(x, W, wrong),
                      Catch::Matchers::Contains("grad_output (1, 2)") && Catch::Matchers::Contains("(1, 3)"));
    const attn::Matrix not_finite = {{1, 0, std::numeric_limits<double>::infinity()}};
    CHECK_THROWS_WITH(attn::linear_backward(x, W, not_finite), Catch::Matchers::Contains("grad_output[0, 2] is inf"));
    const attn::Tensor3 sequences = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
    attn::Tensor3 not_finite_sequence = xt::zeros<double>({2, 2, 3});
    not_finite_sequence(1, 0, 2) = std::numeric_limits<double>::quiet_NaN();   // row 2 of (B·T, out), named (1, 0, 2)
    CHECK_THROWS_WITH(attn::linear_backward(sequences, W, not_finite_sequence),
                      Catch::Matchers::Contains("grad_output[1, 0, 2] is nan"));
}
