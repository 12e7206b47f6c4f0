// Lesson 9 — the Transformer decoder (lessons/09-decoder/README.md).
//
// Example "lesson1" (encoder_outputs (B, S, H), decoder_state (B, 1, H)): lesson 1's dot-product
// attention written as a cross-attention of one query, with no projection and no scale:
// one_query_scores, one_query_weights (B, 1, S), one_query_context (B, 1, H).
// Example "main" (tgt (B, T, D), memory (B, S, D), the layer's weights, memory_attention_mask
// (B, S)): attn::transformer_decoder_layer post-norm with a causal self-attention, step by step
// (self_attention_*, cross_attention_*, after_*, ffn_output, output); padded_* with the memory's
// padding mask; prenorm_output (norm_first); decoder_output, attn::transformer_decoder with two
// copies of the layer and a final layer norm (weight 1, bias 0), as nn.Transformer builds it.
// Example "full_size" (sizes [B, T, S, D, h, F] and a seed): a layer at the paper's size drawn
// from std::mt19937(seed) (tutor/lesson/seeded_uniform.hpp, the document's recipe): head 0's
// cross-attention weights, the first six output features, the length of each output row.
#include <algorithm>
#include <cmath>
#include <random>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attn/decoder_layer.hpp"
#include "attn/error.hpp"
#include "tutor/compute/named_weights.hpp"
#include "tutor/lesson/lesson_registration.hpp"
#include "tutor/lesson/seeded_uniform.hpp"

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

MultiHeadAttentionWeights read_attention(const LessonInputs& inputs, const std::string& prefix) {
    NamedTensors weights;
    for (const char* name : {"w_q", "w_k", "w_v", "w_o"}) weights[name] = inputs.get(prefix + name, 2, "(D, D)");
    for (const char* name : {"b_q", "b_k", "b_v", "b_o"}) weights[name] = inputs.get(prefix + name, 1, "(D)");
    return attention_weights_from(weights);
}

// Every weight of the layer, each checked for its rank (a document error names the block).
DecoderLayerWeights read_layer(const LessonInputs& inputs) {
    DecoderLayerWeights w;
    w.self_attention = read_attention(inputs, "");
    w.cross_attention = read_attention(inputs, "cross_");
    const std::string norms[] = {"norm1", "norm2", "norm3"};
    Vector* weights[] = {&w.norm1_weight, &w.norm2_weight, &w.norm3_weight};
    Vector* biases[] = {&w.norm1_bias, &w.norm2_bias, &w.norm3_bias};
    for (std::size_t i = 0; i < 3; ++i) {
        *weights[i] = inputs.get(norms[i] + "_weight", 1, "(D)");
        *biases[i] = inputs.get(norms[i] + "_bias", 1, "(D)");
    }
    w.linear1_weight = inputs.get("linear1_weight", 2, "(F, D)");
    w.linear1_bias = inputs.get("linear1_bias", 1, "(F)");
    w.linear2_weight = inputs.get("linear2_weight", 2, "(D, F)");
    w.linear2_bias = inputs.get("linear2_bias", 1, "(D)");
    return w;
}

NamedTensors worked_layer(const LessonInputs& inputs) {
    const Tensor3 tgt = inputs.get("tgt", 3, "(B, T, D)");
    const Tensor3 memory = inputs.get("memory", 3, "(B, S, D)");
    const DecoderLayerWeights w = read_layer(inputs);
    DecoderLayerOptions options(worked_heads);
    options.causal = true;  // tgt_mask = generate_square_subsequent_mask(T)
    const DecoderLayerStep post_norm = transformer_decoder_layer(tgt, memory, w, options);
    NamedTensors out{{"self_attention_weights", post_norm.self_attention.weights},
                     {"self_attention_output", post_norm.self_attention.output},
                     {"after_self_attention", post_norm.after_self_attention},
                     {"cross_attention_weights", post_norm.cross_attention.weights},
                     {"cross_attention_output", post_norm.cross_attention.output},
                     {"after_cross_attention", post_norm.after_cross_attention},
                     {"ffn_output", post_norm.ffn_output},
                     {"output", post_norm.output}};

    DecoderLayerOptions padded = options;
    padded.memory_attention_mask = Matrix(inputs.get("memory_attention_mask", 2, "(B, S)"));
    const DecoderLayerStep padded_step = transformer_decoder_layer(tgt, memory, w, padded);
    out["padded_cross_attention_weights"] = padded_step.cross_attention.weights;
    out["padded_output"] = padded_step.output;

    DecoderLayerOptions pre_norm = options;
    pre_norm.norm_first = true;
    out["prenorm_output"] = transformer_decoder_layer(tgt, memory, w, pre_norm).output;

    // nn.Transformer's decoder: the layers, then decoder.norm (a fresh nn.LayerNorm(D)).
    const std::size_t D = tgt.shape(2);
    out["decoder_output"] = transformer_decoder(tgt, memory, {w, w}, options,
                                                std::make_pair(Vector(xt::ones<double>({D})), Vector(xt::zeros<double>({D}))));
    return out;
}

// The document's largest sizes are 512 and 2048; this bound keeps `attn check` quick and every
// conversion to a size defined (get_counts refuses anything else).
constexpr std::size_t largest_size = 4096;

MultiHeadAttentionWeights seeded_attention(std::mt19937& generator, std::size_t D) {
    const double bound = 1.0 / std::sqrt(double(D));
    MultiHeadAttentionWeights a;
    a.w_q = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.w_k = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.w_v = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.w_o = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.b_q = seeded_uniform<Vector>(generator, {D}, bound);
    a.b_k = seeded_uniform<Vector>(generator, {D}, bound);
    a.b_v = seeded_uniform<Vector>(generator, {D}, bound);
    a.b_o = seeded_uniform<Vector>(generator, {D}, bound);
    return a;
}

// A layer at the paper's size, drawn in the document's order (step 9's table).
NamedTensors full_size_layer(const LessonInputs& inputs) {
    const DynamicTensor sizes = inputs.get_counts("sizes", 1, "(6): B, T, S, D, h, F", 1, largest_size);
    const DynamicTensor seed = inputs.get_counts("seed", 1, "(1)", 0, 4294967295u);
    if (sizes.size() != 6 || seed.size() != 1) throw InputError("sizes must hold B, T, S, D, h, F and seed one number");
    const auto B = std::size_t(sizes(0)), T = std::size_t(sizes(1)), S = std::size_t(sizes(2)),
               D = std::size_t(sizes(3)), heads = std::size_t(sizes(4)), F = std::size_t(sizes(5));
    std::mt19937 generator(static_cast<std::mt19937::result_type>(seed(0)));
    const Tensor3 tgt = seeded_uniform<Tensor3>(generator, {B, T, D}, 1.0);
    const Tensor3 memory = seeded_uniform<Tensor3>(generator, {B, S, D}, 1.0);
    DecoderLayerWeights w;
    w.self_attention = seeded_attention(generator, D);
    w.cross_attention = seeded_attention(generator, D);
    for (const auto& [weight, bias] : {std::pair{&w.norm1_weight, &w.norm1_bias}, std::pair{&w.norm2_weight, &w.norm2_bias},
                                       std::pair{&w.norm3_weight, &w.norm3_bias}}) {
        *weight = seeded_uniform<Vector>(generator, {D}, 0.2, 1.0);
        *bias = seeded_uniform<Vector>(generator, {D}, 0.2);
    }
    const double linear_d = 1.0 / std::sqrt(double(D)), linear_f = 1.0 / std::sqrt(double(F));
    w.linear1_weight = seeded_uniform<Matrix>(generator, {F, D}, linear_d);
    w.linear1_bias = seeded_uniform<Vector>(generator, {F}, linear_d);
    w.linear2_weight = seeded_uniform<Matrix>(generator, {D, F}, linear_f);
    w.linear2_bias = seeded_uniform<Vector>(generator, {D}, linear_f);
    DecoderLayerOptions options(heads);
    options.causal = true;
    const DecoderLayerStep step = transformer_decoder_layer(tgt, memory, w, options);

    const std::size_t shown = std::min<std::size_t>(6, D);
    Tensor3 head0 = xt::view(step.cross_attention.weights, xt::all(), 0);
    Tensor3 first = xt::view(step.output, xt::all(), xt::all(), xt::range(0, shown));
    Matrix lengths = xt::sqrt(xt::sum(step.output * step.output, {2}));
    return {{"full_cross_head0_weights", head0}, {"full_output_head", first}, {"full_output_norm", lengths}};
}

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    if (inputs.has("decoder_state")) return one_query(inputs);
    if (inputs.has("sizes")) return full_size_layer(inputs);
    return worked_layer(inputs);
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
