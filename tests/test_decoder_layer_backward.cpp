// Tests for attn/decoder_layer_backward.hpp: every input (tgt and memory) and parameter of a small
// layer against central differences (post-norm and pre-norm; relu, gelu and gelu-tanh; causal,
// padding masks on both attentions, additive masks), against PyTorch's autograd of
// nn.TransformerDecoderLayer, a padded memory position's zero gradient, and the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attn/decoder_layer.hpp"
#include "attn/decoder_layer_backward.hpp"
#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "support/gradient_check.hpp"
#include "support/layer_parameters.hpp"
#include "support/tensor_match.hpp"

using attn::testing::each_decoder_parameter;
using attn::testing::weighted_sum;

namespace {

// A small layer: D = 4, h = 2, F = 6, its values from a fixed-seed generator.
attn::DecoderLayerWeights small_weights() {
    attn::testing::SeededValues values(2718);
    return attn::testing::seeded_decoder_layer(values, 4, 6);
}

// B = 2, T = 3 target positions, S = 4 memory positions, D = 4.
const attn::Tensor3 small_tgt = {{{0.5, -1.0, 0.25, 1.5}, {1.0, 0.5, -0.5, 0.0}, {-0.25, 2.0, 1.0, -1.0}},
                                 {{0.75, 0.0, 0.5, 0.25}, {-1.5, 1.0, 0.0, 2.0}, {0.5, 0.5, -0.5, 1.0}}};
const attn::Tensor3 small_memory = {
    {{1.0, 0.25, -0.5, 0.75}, {-1.0, 1.5, 0.5, 0.0}, {0.25, -0.75, 1.25, -0.5}, {0.5, 0.5, -1.5, 1.0}},
    {{-0.5, 1.0, 0.75, -0.25}, {1.25, -0.5, 0.0, 0.5}, {0.0, 0.75, -1.0, 1.5}, {-1.25, 0.25, 0.5, -0.75}}};
const attn::Tensor3 small_upstream = {{{1, -0.5, 2, 0.25}, {-1, 0.75, 0.5, 1.5}, {0.5, 1, -1.5, -2}},
                                      {{2, -0.25, 0.75, 1}, {0.25, 0.5, -1, 1}, {-0.75, 1.25, 0.5, -0.5}}};

}  // namespace

TEST_CASE("transformer_decoder_layer_backward matches central differences on tgt, memory and every parameter",
          "[decoder_layer_backward][lesson10]") {
    attn::DecoderLayerOptions options(2);
    SECTION("post-norm, relu, causal, padding on both attentions") {
        options.causal = true;
        options.tgt_attention_mask = attn::Matrix{{1, 1, 0}, {1, 1, 1}};
        options.memory_attention_mask = attn::Matrix{{1, 1, 1, 0}, {1, 1, 0, 0}};
    }
    SECTION("pre-norm, gelu, causal, memory padding") {
        options.norm_first = true;
        options.activation = attn::Activation::gelu;
        options.causal = true;
        options.memory_attention_mask = attn::Matrix{{1, 1, 1, 1}, {1, 0, 1, 1}};
    }
    SECTION("post-norm, gelu-tanh, additive tgt_mask and memory_mask") {
        options.activation = attn::Activation::gelu_tanh;
        options.tgt_mask = attn::Tensor3{{{0, -1, 0.5}, {0.25, 0, -2}, {0, 0, 0}}};
        options.memory_mask = attn::Tensor3{{{0, -0.5, 0, 1}, {-1, 0, 0.5, 0}, {0, 0.75, 0, -0.25}}};
    }
    SECTION("pre-norm, relu, no mask") { options.norm_first = true; }
    attn::Tensor3 tgt = small_tgt, memory = small_memory;
    attn::DecoderLayerWeights w = small_weights();
    const auto loss = [&] {
        return weighted_sum(attn::transformer_decoder_layer(tgt, memory, w, options).output, small_upstream);
    };
    const auto step = attn::transformer_decoder_layer(tgt, memory, w, options);
    // relu's kink must be further than the step h from every pre-activation (it is by 1e-3).
    for (double u : attn::linear(attn::rows_of(step.ffn_input), w.linear1_weight, w.linear1_bias)) {
        CHECK(std::abs(u) > 1e-3);
    }
    auto grad = attn::transformer_decoder_layer_backward(tgt, memory, w, options, step, small_upstream);
    CHECK_GRADIENT("tgt", tgt, loss, grad.tgt);
    CHECK_GRADIENT("memory", memory, loss, grad.memory);
    std::vector<attn::DynamicTensor> analytic;
    each_decoder_parameter(grad.weights, [&](const std::string&, auto& g) { analytic.emplace_back(g); });
    std::size_t i = 0;
    each_decoder_parameter(w, [&](const std::string& name, auto& parameter) {
        CHECK_GRADIENT(name, parameter, loss, analytic[i++]);
    });
}

TEST_CASE("transformer_decoder_layer_backward matches torch.autograd.grad of nn.TransformerDecoderLayer",
          "[decoder_layer_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("decoder-layer")) {
        attn::DecoderLayerWeights w = attn::testing::empty_decoder_layer();
        each_decoder_parameter(w, [&](const std::string& name, auto& parameter) { parameter = fixture.input(name); });
        auto options = attn::testing::layer_options_of<attn::DecoderLayerOptions>(fixture);
        options.causal = fixture.option("causal");
        if (fixture.has("tgt_attention_mask")) options.tgt_attention_mask = attn::Matrix(fixture.input("tgt_attention_mask"));
        if (fixture.has("memory_attention_mask")) {
            options.memory_attention_mask = attn::Matrix(fixture.input("memory_attention_mask"));
        }
        const attn::Tensor3 tgt = fixture.input("tgt"), memory = fixture.input("memory");
        const auto step = attn::transformer_decoder_layer(tgt, memory, w, options);
        auto grad = attn::transformer_decoder_layer_backward(tgt, memory, w, options, step, fixture.input("grad_output"));
        CHECK_AUTOGRAD(fixture, "tgt", grad.tgt);
        CHECK_AUTOGRAD(fixture, "memory", grad.memory);
        each_decoder_parameter(grad.weights,
                               [&](const std::string& name, auto& gradient) { CHECK_AUTOGRAD(fixture, name, gradient); });
    }
}

TEST_CASE("transformer_decoder_layer_backward gives a padded memory position no gradient",
          "[decoder_layer_backward][lesson10]") {
    // No query may read memory positions 2 and 3 of the second sentence, so nothing the layer
    // outputs depends on them: their gradient is exactly 0. The visible positions' is not.
    attn::DecoderLayerOptions options(2);
    options.memory_attention_mask = attn::Matrix{{1, 1, 1, 1}, {1, 1, 0, 0}};
    const attn::DecoderLayerWeights w = small_weights();
    const auto step = attn::transformer_decoder_layer(small_tgt, small_memory, w, options);
    const auto grad = attn::transformer_decoder_layer_backward(small_tgt, small_memory, w, options, step, small_upstream);
    const attn::Tensor3 hidden = xt::view(grad.memory, xt::range(1, 2), xt::range(2, 4), xt::all());
    CHECK_TENSOR_CLOSE(attn::Tensor3(xt::zeros<double>({1, 2, 4})), hidden, 0.0, 0.0);
    for (std::size_t s = 0; s < 2; ++s) CHECK(xt::amax(xt::abs(xt::view(grad.memory, 1, s, xt::all())))() > 1e-3);
}

TEST_CASE("transformer_decoder_layer_backward names what does not fit and an upstream gradient not finite",
          "[decoder_layer_backward][lesson10]") {
    const attn::DecoderLayerWeights w = small_weights();
    const attn::DecoderLayerOptions options(2);
    const auto step = attn::transformer_decoder_layer(small_tgt, small_memory, w, options);
    const attn::Tensor3 wrong = xt::ones<double>({2, 4, 4});
    CHECK_THROWS_AS(attn::transformer_decoder_layer_backward(small_tgt, small_memory, w, options, step, wrong),
                    attn::ShapeError);
    CHECK_THROWS_WITH(attn::transformer_decoder_layer_backward(small_tgt, small_memory, w, options, step, wrong),
                      Catch::Matchers::Contains("grad_output (2, 4, 4)"));
    const attn::Tensor3 other_memory = xt::ones<double>({2, 5, 4});   // not the memory the step read
    CHECK_THROWS_WITH(attn::transformer_decoder_layer_backward(small_tgt, other_memory, w, options, step, small_upstream),
                      Catch::Matchers::Contains("step.cross_attention.weights"));
    attn::Tensor3 not_finite = small_upstream;
    not_finite(1, 2, 3) = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(attn::transformer_decoder_layer_backward(small_tgt, small_memory, w, options, step, not_finite),
                      Catch::Matchers::Contains("grad_output[1, 2, 3] is nan"));
}
