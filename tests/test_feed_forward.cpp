// Tests for attn/feed_forward.hpp: relu and the exact GELU, and the two-layer network by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "attn/error.hpp"
#include "attn/feed_forward.hpp"
#include "support/tensor_match.hpp"

TEST_CASE("relu and the exact erf GELU", "[feed_forward][lesson06]") {
    const attn::Matrix x = {{-1, 0, 1, 2}};
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, 0, 1, 2}}), attn::relu(x), 0.0, 0.0);
    // GELU(1) = Φ(1) = 0.841344746…, GELU(−1) = −(1 − Φ(1)), GELU(2) = 2 Φ(2) with Φ(2) = 0.977249868…
    CHECK_TENSOR_CLOSE(attn::Matrix({{-0.15865525393145707, 0.0, 0.8413447460685429, 1.9544997361036416}}), attn::gelu(x),
                       1e-15, 1e-14);
}

TEST_CASE("feed_forward widens to F and comes back to D", "[feed_forward][lesson06]") {
    const attn::Matrix x = {{1, -1}};                            // (N=1, D=2)
    const attn::Matrix W1 = {{1, 0}, {0, 1}, {1, 1}};            // (F=3, D=2)
    const attn::Vector b1 = {0, 0, 0.5};
    const attn::Matrix W2 = {{1, 1, 1}, {0, 0, 2}};              // (D=2, F=3)
    const attn::Vector b2 = {0, -1};
    const auto step = attn::feed_forward(x, W1, b1, W2, b2, attn::Activation::relu);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, -1, 0.5}}), step.hidden_preactivation, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 0, 0.5}}), step.hidden, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1.5, 0}}), step.output, 0.0, 0.0);
    const auto with_gelu = attn::feed_forward(x, W1, b1, W2, b2, attn::Activation::gelu);
    CHECK(with_gelu.hidden(0, 1) == Approx(-0.15865525393145707).epsilon(1e-14));
}

TEST_CASE("feed_forward names the weight that does not fit and unknown activations", "[feed_forward][errors][lesson06]") {
    const attn::Matrix x = {{1, -1}};
    const attn::Matrix W1 = {{1, 0}, {0, 1}, {1, 1}};
    CHECK_THROWS_WITH(attn::feed_forward(x, W1, attn::Vector{0, 0, 0}, attn::Matrix({{1, 1}, {1, 1}}), attn::Vector{0, 0},
                                         attn::Activation::relu),
                      Catch::Contains("linear1_weight (3, 2) (F, D) has F = 3 but linear2_weight (2, 2) (D, F) has F = 2") &&
                          Catch::Contains("linear2_weight must be (D, F) = (2, 3)"));
    CHECK_THROWS_WITH(attn::feed_forward(x, attn::Matrix({{1, 0, 0}}), attn::Vector{0}, attn::Matrix({{1}, {1}}),
                                         attn::Vector{0, 0}, attn::Activation::relu),
                      Catch::Contains("x (1, 2) (N, D) has D = 2 but linear1_weight (1, 3) (F, D) has D = 3"));
    CHECK(attn::parse_activation("gelu") == attn::Activation::gelu);
    CHECK(attn::parse_activation("gelu-tanh") == attn::Activation::gelu_tanh);
    CHECK_THROWS_WITH(attn::parse_activation("swish"),
                      Catch::Contains("unknown activation 'swish'; expected relu, gelu (the exact erf form) or gelu-tanh"));
}

TEST_CASE("gelu_tanh is PyTorch's approximate=tanh GELU, not the exact one", "[feed_forward][lesson06]") {
    const attn::Matrix x = {{-3, -1, -0.5, 0}, {0.5, 1, 2, 3}};
    // torch.nn.functional.gelu(x, approximate="tanh") and gelu(x), in float64 (torch 1.13).
    const attn::Matrix tanh_form = {{-0.0036373920817729943, -0.1588080093917233, -0.15428599017485606, 0.0},
                                    {0.34571400982514394, 0.8411919906082768, 1.954597694087775, 2.996362607918227}};
    const attn::Matrix erf_form = {{-0.00404969409489031, -0.15865525393145702, -0.15426876936299344, 0.0},
                                   {0.34573123063700656, 0.841344746068543, 1.9544997361036416, 2.99595030590511}};
    CHECK_TENSOR_CLOSE(tanh_form, attn::gelu_tanh(x), 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(tanh_form, attn::activate(x, attn::Activation::gelu_tanh), 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(erf_form, attn::activate(x, attn::Activation::gelu), 1e-15, 1e-14);
    // The two differ by 4.1e-4 at x = -3: enough to tell them apart in a model's output.
    CHECK(std::abs(attn::gelu_tanh(x)(0, 0) - attn::gelu(x)(0, 0)) > 4e-4);
}
