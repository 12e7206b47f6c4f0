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
#include "support/tensor_match.hpp"

using attn::testing::weighted_sum;

namespace {

// Every parameter of the layer with its gradient, by name, for the checks that go through them all.
template <class Weights, class Visit>
void each_parameter(Weights& w, Visit visit) {
    visit("w_q", w.attention.w_q), visit("w_k", w.attention.w_k), visit("w_v", w.attention.w_v);
    visit("b_q", w.attention.b_q), visit("b_k", w.attention.b_k), visit("b_v", w.attention.b_v);
    visit("w_o", *w.attention.w_o), visit("b_o", *w.attention.b_o);
    visit("norm1_weight", w.norm1_weight), visit("norm1_bias", w.norm1_bias);
    visit("norm2_weight", w.norm2_weight), visit("norm2_bias", w.norm2_bias);
    visit("linear1_weight", w.linear1_weight), visit("linear1_bias", w.linear1_bias);
    visit("linear2_weight", w.linear2_weight), visit("linear2_bias", w.linear2_bias);
}

// A small layer: B = 2, T = 3, D = 4, h = 2, F = 6, its values from a fixed-seed generator.
attn::EncoderLayerWeights small_weights() {
    attn::EncoderLayerWeights w;
    w.attention.w_o = attn::Matrix();
    w.attention.b_o = attn::Vector();
    std::uint32_t state = 12345;
    const auto next = [&state] {   // a linear congruential generator: values in [−1, 1)
        state = state * 1664525u + 1013904223u;
        return double(state >> 8) / double(1u << 23) - 1.0;
    };
    const auto fill = [&](auto& tensor, std::vector<std::size_t> shape, double scale, double offset) {
        tensor = xt::zeros<double>(shape);
        for (double& value : tensor) value = offset + scale * next();
    };
    for (auto* m : {&w.attention.w_q, &w.attention.w_k, &w.attention.w_v, &*w.attention.w_o}) fill(*m, {4, 4}, 0.5, 0.0);
    for (auto* b : {&w.attention.b_q, &w.attention.b_k, &w.attention.b_v, &*w.attention.b_o}) fill(*b, {4}, 0.1, 0.0);
    fill(w.norm1_weight, {4}, 0.3, 1.0), fill(w.norm2_weight, {4}, 0.3, 1.0);
    fill(w.norm1_bias, {4}, 0.1, 0.0), fill(w.norm2_bias, {4}, 0.1, 0.0);
    fill(w.linear1_weight, {6, 4}, 0.5, 0.0), fill(w.linear1_bias, {6}, 0.1, 0.0);
    fill(w.linear2_weight, {4, 6}, 0.4, 0.0), fill(w.linear2_bias, {4}, 0.1, 0.0);
    return w;
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
    each_parameter(grad.weights, [&](const char*, auto& g) { analytic.emplace_back(g); });
    std::size_t i = 0;
    each_parameter(w, [&](const char* name, auto& parameter) { CHECK_GRADIENT(name, parameter, loss, analytic[i++]); });
}

TEST_CASE("transformer_encoder_layer_backward matches torch.autograd.grad of nn.TransformerEncoderLayer",
          "[encoder_layer_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("encoder-layer")) {
        attn::EncoderLayerWeights w;
        w.attention.w_o = attn::Matrix();
        w.attention.b_o = attn::Vector();
        each_parameter(w, [&](const char* name, auto& parameter) { parameter = fixture.input(name); });
        attn::EncoderLayerOptions options(std::stoul(fixture.options.at("heads")));
        options.norm_first = fixture.option("norm_first");
        options.activation = attn::parse_activation(fixture.options.at("activation"));
        options.eps = std::stod(fixture.options.at("eps"));
        const attn::Tensor3 x = fixture.input("x");
        if (fixture.has("attention_mask")) options.attention_mask = attn::Matrix(fixture.input("attention_mask"));
        if (fixture.option("causal")) options.additive_mask = causal_src_mask(x.shape(1));
        const auto step = attn::transformer_encoder_layer(x, w, options);
        auto grad = attn::transformer_encoder_layer_backward(x, w, options, step, fixture.input("grad_output"));
        CHECK_AUTOGRAD(fixture, "x", grad.x);
        each_parameter(grad.weights, [&](const char* name, auto& gradient) { CHECK_AUTOGRAD(fixture, name, gradient); });
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
