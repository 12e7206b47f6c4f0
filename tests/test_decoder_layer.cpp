// Tests for attn/decoder_layer.hpp: the three sub-layers by hand on a layer whose sub-layers are
// easy to predict, cross-attention with one query against lesson 1's dot-product attention, and
// torch.nn.TransformerDecoderLayer / nn.TransformerDecoder on recorded float64 cases
// (tests/data/decoder, made by tools/make_decoder_fixtures.py).
#include <catch2/catch.hpp>
#include <array>
#include <cmath>
#include <xtensor/xview.hpp>

#include "attn/decoder_layer.hpp"
#include "attn/dot_attention.hpp"
#include "attn/error.hpp"
#include "support/state_dict.hpp"
#include "support/tensor_match.hpp"

namespace {

using namespace attn;

MultiHeadAttentionWeights silent_attention(std::size_t D) {
    MultiHeadAttentionWeights w;
    w.w_q = w.w_k = w.w_v = xt::zeros<double>({D, D});
    w.b_q = w.b_k = w.b_v = xt::zeros<double>({D});
    w.w_o = Matrix(xt::zeros<double>({D, D}));
    w.b_o = Vector(xt::zeros<double>({D}));
    return w;
}

// A layer whose three sub-layers all output zero: only its residual connections and norms remain.
DecoderLayerWeights silent_layer(std::size_t D, std::size_t F) {
    DecoderLayerWeights w;
    w.self_attention = w.cross_attention = silent_attention(D);
    w.norm1_weight = w.norm2_weight = w.norm3_weight = xt::ones<double>({D});
    w.norm1_bias = w.norm2_bias = w.norm3_bias = xt::zeros<double>({D});
    w.linear1_weight = xt::zeros<double>({F, D});
    w.linear1_bias = xt::zeros<double>({F});
    w.linear2_weight = xt::zeros<double>({D, F});
    w.linear2_bias = xt::zeros<double>({D});
    return w;
}

}  // namespace

TEST_CASE("with silent sub-layers post-norm is three layer norms and pre-norm is the identity", "[decoder_layer][lesson09]") {
    const Tensor3 tgt = {{{1, 0, 0, 0}, {2, 4, 6, 8}}};
    const Tensor3 memory = {{{5, 1, 0, 0}, {0, 3, 3, 0}, {1, 1, 1, 9}}};
    DecoderLayerOptions options(2);
    const auto post = transformer_decoder_layer(tgt, memory, silent_layer(4, 3), options);
    // norm(norm(x)) = norm(x) up to eps: the first row is [1.732, −0.577, −0.577, −0.577].
    const Tensor3 once = layer_norm(tgt, xt::ones<double>({4}), xt::zeros<double>({4}));
    CHECK_TENSOR_CLOSE(once, post.after_self_attention, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(once, post.output, 1e-4, 1e-4);
    CHECK(post.output(0, 0, 0) == Approx(std::sqrt(3.0)).margin(1e-4));
    options.norm_first = true;
    const auto pre = transformer_decoder_layer(tgt, memory, silent_layer(4, 3), options);
    CHECK_TENSOR_CLOSE(tgt, pre.output, 0.0, 0.0);  // tgt + 0 + 0 + 0: the residual path carries tgt untouched
    CHECK_TENSOR_CLOSE(once, pre.self_attention_input, 0.0, 0.0);
    CHECK(pre.cross_attention.weights.shape() == std::array<std::size_t, 4>{1, 2, 2, 3});  // (B, h, T, S)
}

TEST_CASE("cross-attention with one query is lesson 1's decoder state attending over the encoder outputs",
          "[decoder_layer][lesson09]") {
    // One head, identity projections, no output projection: the cross-attention weights are
    // softmax(x · memoryᵀ / √4) for the query x it reads, which is lesson 1's dot attention of the
    // decoder state x / 2 over the encoder outputs; its context is cross_attention.output.
    DecoderLayerWeights w = silent_layer(4, 3);
    w.cross_attention.w_q = w.cross_attention.w_k = w.cross_attention.w_v = xt::eye<double>(4);
    w.cross_attention.w_o.reset();
    w.cross_attention.b_o.reset();
    w.cross_attention.no_output_projection = true;
    const Tensor3 tgt = {{{0.5, -1, 2, 0.25}}, {{1, 1, 0, -2}}};  // (B=2, T=1, D=4)
    const Tensor3 memory = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 1}}, {{2, 0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1, 1}}};
    DecoderLayerOptions options(1);
    options.causal = true;  // with T = 1 the single query sees itself: nothing is hidden
    const auto step = transformer_decoder_layer(tgt, memory, w, options);
    const Matrix decoder_state = xt::view(step.cross_attention_input, xt::all(), 0, xt::all()) / 2.0;
    const AttentionStep lesson1 = dot_attention(memory, decoder_state);
    CHECK_TENSOR_CLOSE(lesson1.weights, xt::view(step.cross_attention.weights, xt::all(), 0, 0, xt::all()), 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(lesson1.context, xt::view(step.cross_attention.output, xt::all(), 0, xt::all()), 1e-15, 1e-14);
    // Post-norm: the query is norm1(tgt), e.g. sequence 1's [1, 1, 0, −2] has mean 0 and
    // variance 1.5, so the state is [1, 1, 0, −2] / √1.5 / 2 = [0.408, 0.408, 0, −0.816].
    CHECK(decoder_state(1, 0) == Approx(1 / std::sqrt(1.5 + 1e-5) / 2).epsilon(1e-14));
}

TEST_CASE("the decoder layer matches torch.nn.TransformerDecoderLayer on every recorded case",
          "[decoder_layer][pytorch][lesson09]") {
    const auto cases = testing::decoder_cases("layer-");
    REQUIRE(cases.size() >= 7);
    for (const auto& name : cases) {
        DYNAMIC_SECTION(name) {
            const auto tensors = testing::read_state_dict(name);
            const auto step = transformer_decoder_layer(Tensor3(tensors.at("tgt")), Tensor3(tensors.at("memory")),
                                                        testing::decoder_layer_weights_at(tensors, ""),
                                                        testing::decoder_options_of(name, tensors));
            CHECK_TENSOR_CLOSE(tensors.at("expected_output"), step.output, 1e-12, 1e-10);
        }
    }
}

TEST_CASE("the decoder stack matches torch.nn.TransformerDecoder with a final norm of its own eps",
          "[decoder_layer][pytorch][lesson09]") {
    const auto cases = testing::decoder_cases("decoder-");
    REQUIRE(cases.size() == 2);
    for (const auto& name : cases) {
        DYNAMIC_SECTION(name) {
            const auto tensors = testing::read_state_dict(name);
            const std::vector<DecoderLayerWeights> layers = {testing::decoder_layer_weights_at(tensors, "layers.0."),
                                                             testing::decoder_layer_weights_at(tensors, "layers.1.")};
            const auto options = testing::decoder_options_of(name, tensors);
            const Tensor3 tgt(tensors.at("tgt")), memory(tensors.at("memory"));
            const double final_eps = std::stod(testing::read_case_settings(name).at("final_norm_eps"));
            const auto norm = testing::layer_norm_at(tensors, "norm.");
            CHECK_TENSOR_CLOSE(tensors.at("expected_output"), transformer_decoder(tgt, memory, layers, options, norm, final_eps),
                               1e-12, 1e-10);
            // The layers' eps (1e-5) for the final norm instead of its 1e-3 is visibly off.
            const auto wrong = transformer_decoder(tgt, memory, layers, options, norm);
            CHECK_FALSE(testing::match_tensors(tensors.at("expected_output"), wrong, 1e-6, 1e-6).passed);
        }
    }
}

TEST_CASE("a decoder stack of zero layers with a final norm is that norm", "[decoder_layer][lesson09]") {
    const Tensor3 tgt = {{{3, 1, 4, 1}}}, memory = {{{1, 1, 1, 1}}};
    const Vector weight = {1, 2, 3, 4}, bias = {0, 0, 1, 1};
    const DecoderLayerOptions options(2);
    CHECK_TENSOR_CLOSE(layer_norm(tgt, weight, bias), transformer_decoder(tgt, memory, {}, options, std::make_pair(weight, bias)),
                       0.0, 0.0);
    // [3, 1, 4, 1]: mean 2.25, biased variance 1.6875; eps 0.3125 makes it 2, so entry 0 is 0.75 / √2.
    const Tensor3 wide_eps = transformer_decoder(tgt, memory, {}, options, std::make_pair(weight, bias), 0.3125);
    CHECK(wide_eps(0, 0, 0) == Approx(0.75 / std::sqrt(2.0)).epsilon(1e-14));
    CHECK_THROWS_WITH(transformer_decoder(tgt, memory, {}, options, std::make_pair(weight, bias), 0.0),
                      Catch::Contains("transformer_decoder: final_norm_eps must be a positive number"));
}

TEST_CASE("decoder layer errors name the tensor and its shape", "[decoder_layer][errors][lesson09]") {
    const Tensor3 tgt = xt::zeros<double>({2, 3, 4}), memory = xt::zeros<double>({2, 5, 4});
    const DecoderLayerWeights w = silent_layer(4, 3);
    DecoderLayerOptions options(2);
    const auto refused = [&](const Tensor3& t, const Tensor3& m, const DecoderLayerOptions& o) {
        return transformer_decoder_layer(t, m, w, o);
    };
    CHECK_THROWS_WITH(refused(tgt, xt::zeros<double>({2, 5, 6}), options),
                      Catch::Contains("tgt (2, 3, 4) (B, T, D) has D = 4 but memory (2, 5, 6) (B, S, D) has D = 6"));
    CHECK_THROWS_WITH(refused(tgt, xt::zeros<double>({1, 5, 4}), options), Catch::Contains("memory (1, 5, 4) (B, S, D) has B = 1"));
    CHECK_THROWS_WITH(refused(xt::zeros<double>({2, 0, 4}), memory, options), Catch::Contains("tgt has shape (2, 0, 4): dimension T is 0"));
    CHECK_THROWS_WITH(refused(tgt, xt::zeros<double>({2, 0, 4}), options), Catch::Contains("memory has shape (2, 0, 4): dimension S is 0"));
    CHECK_THROWS_WITH(transformer_decoder_layer(tgt, memory, silent_layer(6, 3), options),
                      Catch::Contains("tgt (2, 3, 4) (B, T, D) has D = 4 but norm1_weight (6) (D) has D = 6"));

    DecoderLayerOptions masked = options;
    masked.tgt_attention_mask = Matrix(xt::ones<double>({2, 5}));  // (B, S) given where (B, T) belongs
    CHECK_THROWS_WITH(refused(tgt, memory, masked), Catch::Contains("tgt_attention_mask (2, 5) (B, T) has T = 5"));
    masked = options;
    masked.memory_attention_mask = Matrix(xt::ones<double>({2, 3}));
    CHECK_THROWS_WITH(refused(tgt, memory, masked), Catch::Contains("memory_attention_mask (2, 3) (B, S) has S = 3"));
    masked = options;
    masked.memory_mask = Tensor3(xt::zeros<double>({1, 3, 3}));  // (T, T): the self-attention's shape
    CHECK_THROWS_WITH(refused(tgt, memory, masked),
                      Catch::Contains("transformer_decoder_layer: memory_mask: the additive mask is (1, 3, 3); it must be (1, 3, 5) or "
                                      "(B·h, T, S) = (4, 3, 5)"));
    masked = options;
    masked.tgt_mask = Tensor3(xt::zeros<double>({2, 3, 3}));  // B rows where B·h = 4 belong
    CHECK_THROWS_WITH(refused(tgt, memory, masked), Catch::Contains("tgt_mask: the additive mask is (2, 3, 3)"));
    masked = options;
    masked.memory_attention_mask = Matrix(xt::ones<double>({2, 5}) * 0.5);
    CHECK_THROWS_AS(refused(tgt, memory, masked), InputError);

    DecoderLayerOptions forgotten;
    CHECK_THROWS_WITH(refused(tgt, memory, forgotten), Catch::Contains("transformer_decoder_layer: the number of heads is not set"));
    options.eps = 0.0;
    CHECK_THROWS_WITH(refused(tgt, memory, options), Catch::Contains("eps must be a positive number"));
}

TEST_CASE("a decoder layer whose cross-attention scores overflow is an error naming them", "[decoder_layer][errors][lesson09]") {
    DecoderLayerWeights w = silent_layer(4, 3);
    w.cross_attention.w_q = w.cross_attention.w_k = xt::eye<double>(4) * 1e160;
    const Tensor3 tgt = {{{1, 0, 0, 0}}}, memory = {{{1, 0, 0, 0}}};
    CHECK_THROWS_WITH(transformer_decoder_layer(tgt, memory, w, DecoderLayerOptions(2)),
                      Catch::StartsWith("multi_head_attention: scores[0, 0, 0, 0] is inf, not a finite number"));
}
