// Lesson 9 — the Transformer decoder (lessons/09-decoder/README.md).
//
// Example "lesson1" (encoder_outputs (B, S, H), decoder_state (B, 1, H)): lesson 1's dot-product
// attention written as a cross-attention of one query, with no projection and no scale:
// one_query_scores, one_query_weights (B, 1, S), one_query_context (B, 1, H).
// Example "main" (tgt (B, T, D), memory (B, S, D), the layer's weights, memory_attention_mask
// (B, S)): the decoder layer post-norm with a causal self-attention, step by step
// (self_attention_*, cross_attention_*, after_*, ffn_output, output); padded_* with the memory's
// padding mask; prenorm_output (norm_first); decoder_output, two copies of the layer and a final
// layer norm (weight 1, bias 0), as nn.Transformer builds its decoder.
#include <xtensor/xview.hpp>

#include "attn/feed_forward.hpp"
#include "attn/layer_norm.hpp"
#include "attn/multi_head_attention.hpp"
#include "tutor/compute/named_weights.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

constexpr std::size_t worked_heads = 2;  // the document's example: D = 4 in two heads of d_k = 2

NamedTensors one_query(const LessonInputs& inputs) {
    const Tensor3 memory = inputs.get("encoder_outputs", 3, "(B, S, H)");
    const Tensor3 state = inputs.get("decoder_state", 3, "(B, 1, H)");
    const std::size_t H = memory.shape(2);
    // Lesson 1 has no projections and no scale: identity weights, one head, scale 1.
    MultiHeadAttentionWeights identity;
    identity.w_q = identity.w_k = identity.w_v = xt::eye<double>(H);
    identity.b_q = identity.b_k = identity.b_v = xt::zeros<double>({H});
    identity.no_output_projection = true;
    AttentionOptions unscaled;
    unscaled.scale = 1.0;
    const MultiHeadAttentionResult r = multi_head_attention(state, memory, memory, identity, 1, unscaled);
    return {{"one_query_scores", Tensor3(xt::view(r.scores, xt::all(), 0))},
            {"one_query_weights", Tensor3(xt::view(r.weights, xt::all(), 0))},
            {"one_query_context", r.output}};
}

// Every weight of the layer, each checked for its rank (a document error names the block).
struct WorkedLayer {
    MultiHeadAttentionWeights self_attention, cross_attention;
    Vector norm_weight[3], norm_bias[3];
    Matrix linear1_weight, linear2_weight;
    Vector linear1_bias, linear2_bias;
};

MultiHeadAttentionWeights read_attention(const LessonInputs& inputs, const std::string& prefix) {
    NamedTensors weights;
    for (const char* name : {"w_q", "w_k", "w_v", "w_o"}) weights[name] = inputs.get(prefix + name, 2, "(D, D)");
    for (const char* name : {"b_q", "b_k", "b_v", "b_o"}) weights[name] = inputs.get(prefix + name, 1, "(D)");
    return attention_weights_from(weights);
}

WorkedLayer read_layer(const LessonInputs& inputs) {
    WorkedLayer w;
    w.self_attention = read_attention(inputs, "");
    w.cross_attention = read_attention(inputs, "cross_");
    for (int i = 0; i < 3; ++i) {
        const std::string norm = "norm" + std::to_string(i + 1);
        w.norm_weight[i] = inputs.get(norm + "_weight", 1, "(D)");
        w.norm_bias[i] = inputs.get(norm + "_bias", 1, "(D)");
    }
    w.linear1_weight = inputs.get("linear1_weight", 2, "(F, D)");
    w.linear1_bias = inputs.get("linear1_bias", 1, "(F)");
    w.linear2_weight = inputs.get("linear2_weight", 2, "(D, F)");
    w.linear2_bias = inputs.get("linear2_bias", 1, "(D)");
    return w;
}

struct DecoderSteps {
    MultiHeadAttentionResult self_attention, cross_attention;
    Tensor3 after_self_attention, after_cross_attention, ffn_output, output;
};

Tensor3 norm(const WorkedLayer& w, int i, const Tensor3& x) {
    return layer_norm(x, w.norm_weight[i], w.norm_bias[i]);
}

// norm1(x + self_attention(x, causal)), norm2(x + cross_attention(x, memory)), norm3(x + ffn(x)),
// or with each norm moved onto the sub-layer's input (norm_first).
DecoderSteps decoder_layer(const Tensor3& tgt, const Tensor3& memory, const WorkedLayer& w, bool norm_first,
                           const std::optional<Matrix>& memory_attention_mask = std::nullopt) {
    const std::size_t B = tgt.shape(0), T = tgt.shape(1), D = tgt.shape(2);
    DecoderSteps s;
    AttentionOptions causal;
    causal.causal = true;
    const Tensor3 sa_input = norm_first ? norm(w, 0, tgt) : tgt;
    s.self_attention = multi_head_attention(sa_input, sa_input, sa_input, w.self_attention, worked_heads, causal);
    const Tensor3 sa_residual = tgt + s.self_attention.output;
    s.after_self_attention = norm_first ? sa_residual : norm(w, 0, sa_residual);

    AttentionOptions padding;
    padding.attention_mask = memory_attention_mask;
    const Tensor3 ca_input = norm_first ? norm(w, 1, s.after_self_attention) : s.after_self_attention;
    s.cross_attention = multi_head_attention(ca_input, memory, memory, w.cross_attention, worked_heads, padding);
    const Tensor3 ca_residual = s.after_self_attention + s.cross_attention.output;
    s.after_cross_attention = norm_first ? ca_residual : norm(w, 1, ca_residual);

    const Tensor3 ffn_input = norm_first ? norm(w, 2, s.after_cross_attention) : s.after_cross_attention;
    const Matrix rows = xt::reshape_view(ffn_input, {B * T, D});
    const FeedForwardStep ffn = feed_forward(rows, w.linear1_weight, w.linear1_bias, w.linear2_weight,
                                             w.linear2_bias, Activation::relu);
    s.ffn_output = xt::reshape_view(ffn.output, {B, T, D});
    const Tensor3 ffn_residual = s.after_cross_attention + s.ffn_output;
    s.output = norm_first ? ffn_residual : norm(w, 2, ffn_residual);
    return s;
}

NamedTensors worked_example(const LessonInputs& inputs) {
    const Tensor3 tgt = inputs.get("tgt", 3, "(B, T, D)");
    const Tensor3 memory = inputs.get("memory", 3, "(B, S, D)");
    const Matrix memory_attention_mask = inputs.get("memory_attention_mask", 2, "(B, S)");
    const WorkedLayer w = read_layer(inputs);
    const DecoderSteps post_norm = decoder_layer(tgt, memory, w, false);
    NamedTensors out{{"self_attention_weights", post_norm.self_attention.weights},
                     {"self_attention_output", post_norm.self_attention.output},
                     {"after_self_attention", post_norm.after_self_attention},
                     {"cross_attention_weights", post_norm.cross_attention.weights},
                     {"cross_attention_output", post_norm.cross_attention.output},
                     {"after_cross_attention", post_norm.after_cross_attention},
                     {"ffn_output", post_norm.ffn_output},
                     {"output", post_norm.output}};
    const DecoderSteps padded = decoder_layer(tgt, memory, w, false, memory_attention_mask);
    out["padded_cross_attention_weights"] = padded.cross_attention.weights;
    out["padded_output"] = padded.output;
    out["prenorm_output"] = decoder_layer(tgt, memory, w, true).output;
    // nn.Transformer's decoder: the layers, then decoder.norm (a fresh nn.LayerNorm(D)).
    const std::size_t D = tgt.shape(2);
    const Tensor3 twice = decoder_layer(decoder_layer(tgt, memory, w, false).output, memory, w, false).output;
    out["decoder_output"] = layer_norm(twice, xt::ones<double>({D}), xt::zeros<double>({D}));
    return out;
}

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    return inputs.has("decoder_state") ? one_query(inputs) : worked_example(inputs);
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
