// Tests for attn/transformer_backward.hpp: transformer_steps gives transformer()'s numbers; the
// backward of a small nn.Transformer (two layers per stack) against central differences on src,
// tgt and every parameter (post-norm with every padding mask and causal, pre-norm), against
// PyTorch's autograd of nn.Transformer, and the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xbuilder.hpp>

#include "attn/error.hpp"
#include "attn/transformer.hpp"
#include "attn/transformer_backward.hpp"
#include "support/gradient_check.hpp"
#include "support/layer_parameters.hpp"
#include "support/tensor_match.hpp"

using attn::testing::each_transformer_parameter;
using attn::testing::weighted_sum;

namespace {

// Two encoder and two decoder layers of D = 4, F = 6 and the final norms, from a fixed seed.
attn::TransformerWeights small_model() {
    attn::testing::SeededValues values(31415);
    attn::TransformerWeights w;
    for (int i = 0; i < 2; ++i) w.encoder_layers.push_back(attn::testing::seeded_encoder_layer(values, 4, 6));
    for (int j = 0; j < 2; ++j) w.decoder_layers.push_back(attn::testing::seeded_decoder_layer(values, 4, 6));
    // The final norms: a layer of D = 4 gives their weights and biases their ranges.
    const attn::EncoderLayerWeights norms = attn::testing::seeded_encoder_layer(values, 4, 6);
    w.encoder_norm = {norms.norm1_weight, norms.norm1_bias};
    w.decoder_norm = {norms.norm2_weight, norms.norm2_bias};
    return w;
}

// B = 2, S = 4 source positions, T = 3 target positions, D = 4.
const attn::Tensor3 small_src = {
    {{1.0, 0.25, -0.5, 0.75}, {-1.0, 1.5, 0.5, 0.0}, {0.25, -0.75, 1.25, -0.5}, {0.5, 0.5, -1.5, 1.0}},
    {{-0.5, 1.0, 0.75, -0.25}, {1.25, -0.5, 0.0, 0.5}, {0.0, 0.75, -1.0, 1.5}, {-1.25, 0.25, 0.5, -0.75}}};
const attn::Tensor3 small_tgt = {{{0.5, -1.0, 0.25, 1.5}, {1.0, 0.5, -0.5, 0.0}, {-0.25, 2.0, 1.0, -1.0}},
                                 {{0.75, 0.0, 0.5, 0.25}, {-1.5, 1.0, 0.0, 2.0}, {0.5, 0.5, -0.5, 1.0}}};
// A quarter of the layer tests' upstream gradient. Through two stacks L = Σ output ∘ upstream is
// rounded in many more places than in one layer, and the two losses of a central difference differ
// by a few units in L's last place even where L does not change: with the full upstream (L = 4.98)
// by 4 units, 3.6e-15, which over 2h is 1.8e-10, more than the 1e-10 a gradient that is zero
// everywhere is held to (b_k's: the softmax ignores what all of a query's scores share). A
// quarter makes L 1.25 and 1.75 in the two cases, and that error a quarter as large.
const attn::Tensor3 small_upstream =
    0.25 * attn::Tensor3{{{1, -0.5, 2, 0.25}, {-1, 0.75, 0.5, 1.5}, {0.5, 1, -1.5, -2}},
                         {{2, -0.25, 0.75, 1}, {0.25, 0.5, -1, 1}, {-0.75, 1.25, 0.5, -0.5}}};

}  // namespace

TEST_CASE("transformer_steps computes what transformer() computes, keeping every layer's step", "[transformer_backward][lesson10]") {
    attn::TransformerOptions options(2);
    options.causal = true;
    options.src_attention_mask = options.memory_attention_mask = attn::Matrix{{1, 1, 1, 0}, {1, 1, 1, 1}};
    const attn::TransformerWeights w = small_model();
    const auto steps = attn::transformer_steps(small_src, small_tgt, w, options);
    const auto result = attn::transformer(small_src, small_tgt, w, options);
    CHECK_TENSOR_CLOSE(result.memory, steps.memory, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(result.output, steps.output, 0.0, 0.0);
    REQUIRE(steps.encoder_layers.size() == 2);
    REQUIRE(steps.decoder_layers.size() == 2);
    CHECK_TENSOR_CLOSE(steps.encoder_layers[1].output, steps.encoder_stack_output, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(steps.decoder_layers[1].output, steps.decoder_stack_output, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::layer_norm(steps.decoder_stack_output, w.decoder_norm.first, w.decoder_norm.second),
                       steps.output, 0.0, 0.0);
}

TEST_CASE("transformer_backward matches central differences on src, tgt and every parameter",
          "[transformer_backward][lesson10]") {
    attn::TransformerOptions options(2);
    SECTION("post-norm, relu, causal, every padding mask") {
        options.causal = true;
        options.src_attention_mask = options.memory_attention_mask = attn::Matrix{{1, 1, 1, 0}, {1, 1, 0, 0}};
        options.tgt_attention_mask = attn::Matrix{{1, 1, 1}, {1, 1, 0}};
    }
    SECTION("pre-norm, gelu, causal, a final_norm_eps of its own") {
        options.norm_first = true;
        options.activation = attn::Activation::gelu;
        options.causal = true;
        options.final_norm_eps = 0.25;
    }
    attn::Tensor3 src = small_src, tgt = small_tgt;
    attn::TransformerWeights w = small_model();
    const auto loss = [&] { return weighted_sum(attn::transformer(src, tgt, w, options).output, small_upstream); };
    const auto steps = attn::transformer_steps(src, tgt, w, options);
    INFO("L = " << weighted_sum(steps.output, small_upstream));
    CHECK(std::abs(weighted_sum(steps.output, small_upstream)) < 2.0);
    auto grad = attn::transformer_backward(src, tgt, w, options, steps, small_upstream);
    CHECK_GRADIENT("src", src, loss, grad.src);
    CHECK_GRADIENT("tgt", tgt, loss, grad.tgt);
    std::vector<attn::DynamicTensor> analytic;
    each_transformer_parameter(grad.weights, [&](const std::string&, auto& g) { analytic.emplace_back(g); });
    std::size_t i = 0;
    each_transformer_parameter(w, [&](const std::string& name, auto& parameter) {
        CHECK_GRADIENT(name, parameter, loss, analytic[i++]);
    });
}

TEST_CASE("transformer_backward matches torch.autograd.grad of nn.Transformer", "[transformer_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("transformer")) {
        attn::TransformerWeights w;
        w.encoder_layers.resize(std::stoul(fixture.options.at("encoder_layers")), attn::testing::empty_encoder_layer());
        w.decoder_layers.resize(std::stoul(fixture.options.at("decoder_layers")), attn::testing::empty_decoder_layer());
        each_transformer_parameter(w, [&](const std::string& name, auto& parameter) { parameter = fixture.input(name); });
        auto options = attn::testing::layer_options_of<attn::TransformerOptions>(fixture);
        options.causal = fixture.option("causal");
        if (fixture.has("src_attention_mask")) {   // nn.Transformer: src_ and memory_key_padding_mask alike
            options.src_attention_mask = options.memory_attention_mask = attn::Matrix(fixture.input("src_attention_mask"));
        }
        if (fixture.has("tgt_attention_mask")) options.tgt_attention_mask = attn::Matrix(fixture.input("tgt_attention_mask"));
        const attn::Tensor3 src = fixture.input("src"), tgt = fixture.input("tgt");
        const auto steps = attn::transformer_steps(src, tgt, w, options);
        auto grad = attn::transformer_backward(src, tgt, w, options, steps, fixture.input("grad_output"));
        CHECK_AUTOGRAD(fixture, "src", grad.src);
        CHECK_AUTOGRAD(fixture, "tgt", grad.tgt);
        each_transformer_parameter(grad.weights,
                                   [&](const std::string& name, auto& gradient) { CHECK_AUTOGRAD(fixture, name, gradient); });
    }
}

TEST_CASE("transformer_backward names what does not fit and an upstream gradient not finite",
          "[transformer_backward][lesson10]") {
    const attn::TransformerWeights w = small_model();
    const attn::TransformerOptions options(2);
    const auto steps = attn::transformer_steps(small_src, small_tgt, w, options);
    const attn::Tensor3 wrong = xt::ones<double>({2, 4, 4});
    CHECK_THROWS_AS(attn::transformer_backward(small_src, small_tgt, w, options, steps, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::transformer_backward(small_src, small_tgt, w, options, steps, wrong),
                      Catch::Matchers::Contains("transformer_backward") && Catch::Matchers::Contains("grad_output (2, 4, 4)"));
    attn::Tensor3 not_finite = small_upstream;
    not_finite(0, 1, 2) = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(attn::transformer_backward(small_src, small_tgt, w, options, steps, not_finite),
                      Catch::Matchers::Contains("grad_output[0, 1, 2] is inf"));
    attn::TransformerWeights one_decoder_layer = w;
    one_decoder_layer.decoder_layers.pop_back();   // the steps are of two
    CHECK_THROWS_WITH(attn::transformer_backward(small_src, small_tgt, one_decoder_layer, options, steps, small_upstream),
                      Catch::Matchers::Contains("steps.decoder_layers holds 2 layer steps but weights.decoder_layers 1"));
}
