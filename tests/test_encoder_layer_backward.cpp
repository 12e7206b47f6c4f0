// Tests for attn/encoder_layer_backward.hpp: every input and parameter of a small layer against
// central differences (post-norm and pre-norm, relu, gelu and gelu-tanh, padding and a causal
// src_mask), against PyTorch's autograd of nn.TransformerEncoderLayer, and the shape error.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xbuilder.hpp>

#include "attn/encoder_layer.hpp"
#include "attn/encoder_layer_backward.hpp"
#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "support/gradient_check.hpp"
#include "support/layer_parameters.hpp"
#include "support/tensor_match.hpp"

using attn::testing::each_encoder_parameter;
using attn::testing::weighted_sum;

namespace {

// A small layer: B = 2, T = 3, D = 4, h = 2, F = 6, its values from a fixed-seed generator.
attn::EncoderLayerWeights small_weights() {
    attn::testing::SeededValues values(12345);
    return attn::testing::seeded_encoder_layer(values, 4, 6);
}

attn::Tensor3 causal_src_mask(std::size_t T) {
    attn::Tensor3 mask = xt::zeros<double>({std::size_t(1), T, T});
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t s = t + 1; s < T; ++s) mask(0, t, s) = -std::numeric_limits<double>::infinity();
    return mask;
}

}  // namespace

TEST_CASE("transformer_encoder_layer_backward matches central differences on every input and parameter",
          "[encoder_layer_backward][lesson10]") {
    attn::EncoderLayerOptions options(2);
    SECTION("post-norm, relu, padding") { options.attention_mask = attn::Matrix{{1, 1, 0}, {1, 1, 1}}; }
    SECTION("pre-norm, gelu, causal") {
        options.norm_first = true;
        options.activation = attn::Activation::gelu;
        options.additive_mask = causal_src_mask(3);
    }
    SECTION("post-norm, gelu-tanh") { options.activation = attn::Activation::gelu_tanh; }
    attn::Tensor3 x = {{{0.5, -1.0, 0.25, 1.5}, {1.0, 0.5, -0.5, 0.0}, {-0.25, 2.0, 1.0, -1.0}},
                       {{0.75, 0.0, 0.5, 0.25}, {-1.5, 1.0, 0.0, 2.0}, {0.5, 0.5, -0.5, 1.0}}};
    const attn::Tensor3 upstream = {{{1, -0.5, 2, 0.25}, {-1, 0.75, 0.5, 1.5}, {0.5, 1, -1.5, -2}},
                                    {{2, -0.25, 0.75, 1}, {0.25, 0.5, -1, 1}, {-0.75, 1.25, 0.5, -0.5}}};
    attn::EncoderLayerWeights w = small_weights();
    const auto loss = [&] { return weighted_sum(attn::transformer_encoder_layer(x, w, options).output, upstream); };
    const auto step = attn::transformer_encoder_layer(x, w, options);
    // relu's kink must be further than the step h from every pre-activation (it is by 1e-3).
    for (double u : attn::linear(attn::rows_of(step.ffn_input), w.linear1_weight, w.linear1_bias)) CHECK(std::abs(u) > 1e-3);
    auto grad = attn::transformer_encoder_layer_backward(x, w, options, step, upstream);
    CHECK_GRADIENT("x", x, loss, grad.x);
    std::vector<attn::DynamicTensor> analytic;
    each_encoder_parameter(grad.weights, [&](const std::string&, auto& g) { analytic.emplace_back(g); });
    std::size_t i = 0;
    each_encoder_parameter(w, [&](const std::string& name, auto& parameter) {
        CHECK_GRADIENT(name, parameter, loss, analytic[i++]);
    });
}

TEST_CASE("transformer_encoder_layer_backward matches torch.autograd.grad of nn.TransformerEncoderLayer",
          "[encoder_layer_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("encoder-layer")) {
        attn::EncoderLayerWeights w = attn::testing::empty_encoder_layer();
        each_encoder_parameter(w, [&](const std::string& name, auto& parameter) { parameter = fixture.input(name); });
        auto options = attn::testing::layer_options_of<attn::EncoderLayerOptions>(fixture);
        const attn::Tensor3 x = fixture.input("x");
        if (fixture.has("attention_mask")) options.attention_mask = attn::Matrix(fixture.input("attention_mask"));
        if (fixture.option("causal")) options.additive_mask = causal_src_mask(x.shape(1));
        const auto step = attn::transformer_encoder_layer(x, w, options);
        auto grad = attn::transformer_encoder_layer_backward(x, w, options, step, fixture.input("grad_output"));
        CHECK_AUTOGRAD(fixture, "x", grad.x);
        each_encoder_parameter(grad.weights,
                               [&](const std::string& name, auto& gradient) { CHECK_AUTOGRAD(fixture, name, gradient); });
    }
}

TEST_CASE("transformer_encoder_layer_backward names an upstream gradient of the wrong shape or not finite", "[encoder_layer_backward][lesson10]") {
    const attn::Tensor3 x = xt::ones<double>({2, 3, 4});
    const attn::EncoderLayerWeights w = small_weights();
    const attn::EncoderLayerOptions options(2);
    const auto step = attn::transformer_encoder_layer(x, w, options);
    const attn::Tensor3 wrong = xt::ones<double>({2, 4, 4});
    CHECK_THROWS_AS(attn::transformer_encoder_layer_backward(x, w, options, step, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::transformer_encoder_layer_backward(x, w, options, step, wrong),
                      Catch::Matchers::Contains("grad_output (2, 4, 4)"));
    attn::Tensor3 not_finite = xt::ones<double>({2, 3, 4});
    not_finite(1, 0, 2) = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(attn::transformer_encoder_layer_backward(x, w, options, step, not_finite),
                      Catch::Matchers::Contains("grad_output[1, 0, 2] is nan"));
}
