// Tests of attn/fast/encoder_layer.hpp side by side with the lesson path
// (attn::transformer_encoder_layer, double): post- and pre-norm, relu and GELU, padding, tiles
// that cut the sequence unevenly, absent biases; the non-finite policy; the shape errors.
// Tolerance against the lesson path: 1e-5 absolute (float32 against double, values of order 1).
#include <catch2/catch.hpp>

#include <limits>
#include <random>

#include "attn/encoder_layer.hpp"
#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "support/fast_inputs.hpp"
#include "support/tensor_match.hpp"

using attn::testing::lesson_weights;
using attn::testing::random_fast_layer;
using attn::testing::random_float;
using attn::testing::widen;

TEST_CASE("the lesson path and the fast encoder layer agree to 1e-5", "[fast_attention][lesson06]") {
    std::mt19937 generator(29);
    const std::size_t B = 2, T = 9, D = 32, F = 64, h = 4;
    for (const bool norm_first : {false, true}) {
        for (const auto activation : {attn::Activation::relu, attn::Activation::gelu, attn::Activation::gelu_tanh}) {
            for (const bool biases : {true, false}) {
                INFO("norm_first " << norm_first << " activation (relu, gelu, gelu_tanh) " << int(activation)
                                   << " biases " << biases);
                const auto x = random_float<3>(generator, {B, T, D});
                auto fast = random_fast_layer(generator, D, F);
                if (!biases) {
                    fast.attention.b_q.reset();
                    fast.attention.b_o.reset();
                    fast.linear1_bias.reset();
                    fast.linear2_bias.reset();
                }
                attn::fast::Matrix mask = xt::ones<float>({B, T});
                mask(1, 8) = mask(1, 6) = 0.0f;

                attn::EncoderLayerOptions lesson_options;
                lesson_options.heads = h;
                lesson_options.norm_first = norm_first;
                lesson_options.activation = activation;
                lesson_options.attention_mask = attn::Matrix(widen(mask));
                const auto expected = attn::transformer_encoder_layer(widen(x), lesson_weights(fast), lesson_options);

                attn::fast::EncoderLayerOptions options;
                options.heads = h;
                options.norm_first = norm_first;
                options.activation = activation;
                options.attention_mask = mask;
                CHECK_TENSOR_CLOSE(expected.output, attn::fast::transformer_encoder_layer(x, fast, options), 1e-5, 0.0);
                options.query_tile = 2;
                options.key_tile = 4;
                CHECK_TENSOR_CLOSE(expected.output, attn::fast::transformer_encoder_layer(x, fast, options), 1e-5, 0.0);
            }
        }
    }
}

TEST_CASE("the fast encoder layer and the lesson path name a NaN alike; the layer names its intermediates",
          "[fast_attention][errors][lesson06]") {
    std::mt19937 generator(31);
    const std::size_t D = 8, F = 12;
    auto p = random_fast_layer(generator, D, F);
    auto x = random_float<3>(generator, {2, 3, D});
    attn::fast::EncoderLayerOptions options;
    options.heads = 2;
    attn::EncoderLayerOptions lesson_options;
    lesson_options.heads = 2;

    x(1, 0, 3) = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, p, options),
                      Catch::StartsWith("fast::transformer_encoder_layer: q[1, 0, 0] is nan, not a finite number"));
    CHECK_THROWS_WITH(attn::transformer_encoder_layer(widen(x), lesson_weights(p), lesson_options),
                      Catch::StartsWith("multi_head_attention: q[1, 0, 0] is nan, not a finite number"));
    x(1, 0, 3) = 0.5f;

    // Pre-norm: out = hidden + ff(norm2(hidden)), and linear2's bias carries an ∞ into feature 1.
    options.norm_first = true;
    (*p.linear2_bias)(1) = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, p, options),
                      Catch::StartsWith("fast::transformer_encoder_layer: output[0, 0, 1] is inf, not a finite number"));
    // linear1's bias: the hidden activations, ffn_hidden in both paths.
    (*p.linear2_bias)(1) = 0.0f;
    (*p.linear1_bias)(5) = std::numeric_limits<float>::infinity();
    lesson_options.norm_first = true;
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, p, options),
                      Catch::StartsWith("fast::transformer_encoder_layer: ffn_hidden[0, 0, 5] is inf"));
    CHECK_THROWS_WITH(attn::transformer_encoder_layer(widen(x), lesson_weights(p), lesson_options),
                      Catch::StartsWith("transformer_encoder_layer: ffn_hidden[0, 0, 5] is inf"));
}

TEST_CASE("fast encoder layer names the parameter whose shape does not fit", "[fast_attention][errors]") {
    std::mt19937 generator(19);
    const std::size_t D = 8, F = 12;
    const auto p = random_fast_layer(generator, D, F);
    attn::fast::EncoderLayerOptions options;
    options.heads = 2;
    const auto x = random_float<3>(generator, {2, 3, D});
    CHECK_NOTHROW(attn::fast::transformer_encoder_layer(x, p, options));

    auto bad = p;
    bad.linear2_weight = random_float<2>(generator, {D, F + 1});
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, bad, options),
                      Catch::Contains("linear2_weight (8, 13) (D, F) has F = 13; linear2_weight must be (D, F) = (8, 12)"));
    bad = p;
    bad.norm2_bias = xt::zeros<float>({D + 1});
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, bad, options),
                      Catch::Contains("x (2, 3, 8) (B, T, D) has D = 8 but norm2_bias (9) (D) has D = 9"));
    bad = p;
    bad.attention.w_o.reset();
    bad.attention.b_o.reset();
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, bad, options),
                      Catch::Contains("w_o is absent; this layer needs its output projection"));
    options.attention_mask = attn::fast::Matrix(xt::ones<float>({2, 4}));
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, p, options),
                      Catch::Contains("attention_mask (2, 4) (B, T) has T = 4; attention_mask must be (B, T) = (2, 3)"));
    options.attention_mask = attn::fast::Matrix(xt::ones<float>({2, 3}) * 2.0f);
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, p, options), Catch::Contains("holds 2 at [0, 0]"));
    options.attention_mask.reset();
    options.eps = 0.0f;
    CHECK_THROWS_WITH(attn::fast::transformer_encoder_layer(x, p, options),
                      Catch::Contains("eps = 0.000000 must be a positive number"));
}
