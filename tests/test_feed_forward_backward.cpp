// Tests for attn/feed_forward_backward.hpp: the activations' derivatives at points a reader can
// check, central differences and PyTorch's autograd for relu, gelu and gelu-tanh, and the shape error.
#include <catch2/catch.hpp>
#include <limits>
#include <cmath>

#include "attn/error.hpp"
#include "attn/feed_forward.hpp"
#include "attn/feed_forward_backward.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"

using attn::testing::weighted_sum;

TEST_CASE("activation derivatives at points a reader can check", "[feed_forward_backward][lesson10]") {
    const attn::Matrix u = {{-1.0, 0.0, 2.0}}, ones = {{1.0, 1.0, 1.0}};
    // relu: 0, 0 (at the kink, as PyTorch), 1.
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, 0, 1}}), attn::activation_backward(u, ones, attn::Activation::relu), 0.0, 0.0);
    // gelu: Φ(u) + u φ(u); at 0 exactly 1/2; at ±1 and 2 from erf and exp.
    const auto exact = [](double v) {
        return 0.5 * (1 + std::erf(v / std::sqrt(2.0))) + v * std::exp(-v * v / 2) / std::sqrt(2 * M_PI);
    };
    CHECK_TENSOR_CLOSE(attn::Matrix({{exact(-1), 0.5, exact(2)}}), attn::activation_backward(u, ones, attn::Activation::gelu),
                       1e-15, 1e-15);
    CHECK(exact(-1) == Approx(-0.0833155).margin(1e-7));   // Φ(−1) − φ(1) = 0.1586553 − 0.2419707
    // gelu-tanh: 1/2 at 0 (tanh(0) = 0), and close to gelu's elsewhere (the approximation is good to 1e-3).
    const attn::Matrix tanh_form = attn::activation_backward(u, ones, attn::Activation::gelu_tanh);
    CHECK(tanh_form(0, 1) == 0.5);
    CHECK(tanh_form(0, 0) == Approx(exact(-1)).margin(1e-3));
    CHECK(tanh_form(0, 2) == Approx(exact(2)).margin(1e-3));
}

TEST_CASE("feed_forward_backward matches central differences for relu, gelu and gelu-tanh", "[feed_forward_backward][lesson10]") {
    const auto activation = GENERATE(attn::Activation::relu, attn::Activation::gelu, attn::Activation::gelu_tanh);
    // N = 3, D = 2, F = 3; every pre-activation is more than 0.01 from relu's kink (the closest is 0.05).
    attn::Matrix x = {{1.0, -0.5}, {0.25, 2.0}, {-1.5, 0.75}};
    attn::Matrix W1 = {{0.5, 1.0}, {-1.0, 0.25}, {0.75, -0.5}};
    attn::Vector b1 = {0.1, -0.2, 0.3};
    attn::Matrix W2 = {{1.0, -0.5, 0.25}, {0.5, 0.75, -1.0}};
    attn::Vector b2 = {0.05, -0.05};
    const attn::Matrix upstream = {{1, -2}, {0.5, 1.5}, {-1, 0.25}};
    const auto forward = [&] { return attn::feed_forward(x, W1, b1, W2, b2, activation); };
    for (double u : forward().hidden_preactivation) CHECK(std::abs(u) > 0.01);
    const auto loss = [&] { return weighted_sum(forward().output, upstream); };
    const auto grad = attn::feed_forward_backward(x, W1, W2, forward(), activation, upstream);
    CHECK_GRADIENT("x", x, loss, grad.x);
    CHECK_GRADIENT("linear1_weight", W1, loss, grad.linear1_weight);
    CHECK_GRADIENT("linear1_bias", b1, loss, grad.linear1_bias);
    CHECK_GRADIENT("linear2_weight", W2, loss, grad.linear2_weight);
    CHECK_GRADIENT("linear2_bias", b2, loss, grad.linear2_bias);
}

TEST_CASE("feed_forward_backward matches torch.autograd.grad", "[feed_forward_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("feed-forward")) {
        const auto activation = attn::parse_activation(fixture.options.at("activation"));
        const attn::Matrix x = fixture.input("x"), W1 = fixture.input("linear1_weight"), W2 = fixture.input("linear2_weight");
        const auto forward = attn::feed_forward(x, W1, attn::Vector(fixture.input("linear1_bias")), W2,
                                                attn::Vector(fixture.input("linear2_bias")), activation);
        const auto grad = attn::feed_forward_backward(x, W1, W2, forward, activation, attn::Matrix(fixture.input("grad_output")));
        CHECK_AUTOGRAD(fixture, "x", grad.x);
        CHECK_AUTOGRAD(fixture, "linear1_weight", grad.linear1_weight);
        CHECK_AUTOGRAD(fixture, "linear1_bias", grad.linear1_bias);
        CHECK_AUTOGRAD(fixture, "linear2_weight", grad.linear2_weight);
        CHECK_AUTOGRAD(fixture, "linear2_bias", grad.linear2_bias);
    }
}

TEST_CASE("feed_forward_backward names an upstream gradient of the wrong shape or not finite", "[feed_forward_backward][lesson10]") {
    const attn::Matrix x = {{1, 2}}, W1 = {{1, 0}, {0, 1}, {1, 1}}, W2 = {{1, 0, 1}, {0, 1, 1}};
    const auto forward = attn::feed_forward(x, W1, attn::Vector{0, 0, 0}, W2, attn::Vector{0, 0}, attn::Activation::relu);
    const attn::Matrix wrong = {{1, 2, 3}};   // (N, F), not (N, D)
    CHECK_THROWS_AS(attn::feed_forward_backward(x, W1, W2, forward, attn::Activation::relu, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::feed_forward_backward(x, W1, W2, forward, attn::Activation::relu, wrong),
                      Catch::Matchers::Contains("grad_output (1, 3)"));
    const attn::Matrix not_finite = {{1, -std::numeric_limits<double>::infinity()}};
    CHECK_THROWS_WITH(attn::feed_forward_backward(x, W1, W2, forward, attn::Activation::relu, not_finite),
                      Catch::Matchers::Contains("grad_output[0, 1] is -inf"));
}
