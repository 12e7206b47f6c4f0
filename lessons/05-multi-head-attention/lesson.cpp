// Lesson 5 — multi-head attention (lessons/05-multi-head-attention/README.md).
//
// From the document's x (B, T, D), heads [h] and weights w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o:
//   q, k, v, q_heads, k_heads, v_heads, scores, weights, context_heads, context, output
//                                       attn::multi_head_attention (vectorised form)
//   output_per_head, weights_per_head   attn::multi_head_attention_per_head (seed 004's loop)
//   weights_unscaled, output_unscaled   seed 004's vectorised code, which forgot the 1/√d_k
// From batch (B, T, D) with attention_mask (B, S):
//   batch_weights, batch_output         padding keys hidden in every head
//   seed000_batch_weights               seed 000's mask.unsqueeze(1), broadcast against (B, h, T, S):
//                                       head j gets sentence j's mask (computed when B == h)
// From batch_left with attention_mask_left, causal:
//   left_weights, left_output           a query whose keys are all hidden: weights 0, output b_o
#include <cstddef>

#include "05-multi-head-attention/exercise/mistakes.hpp"
#include "attn/error.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

MultiHeadAttentionWeights read_weights(const LessonInputs& inputs) {
    MultiHeadAttentionWeights w;
    w.w_q = inputs.get("w_q", 2, "(D, D)");
    w.w_k = inputs.get("w_k", 2, "(D, D)");
    w.w_v = inputs.get("w_v", 2, "(D, D)");
    w.b_q = inputs.get("b_q", 1, "(D)");
    w.b_k = inputs.get("b_k", 1, "(D)");
    w.b_v = inputs.get("b_v", 1, "(D)");
    w.no_output_projection = !inputs.has("w_o");  // seed 000's examples have none
    if (inputs.has("w_o")) w.w_o = Matrix(inputs.get("w_o", 2, "(D, D)"));
    if (inputs.has("b_o")) w.b_o = Vector(inputs.get("b_o", 1, "(D)"));
    return w;
}

std::size_t read_heads(const LessonInputs& inputs) {
    const DynamicTensor heads = inputs.get_counts("heads", 1, "(1)", 1, 4096);
    if (heads.size() != 1 || heads(0) < 1 || heads(0) != double(std::size_t(heads(0)))) {
        throw InputError("input 'heads' must be one whole number of heads, such as [2]");
    }
    return std::size_t(heads(0));
}

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    const MultiHeadAttentionWeights w = read_weights(inputs);
    const std::size_t heads = read_heads(inputs);
    NamedTensors out;

    if (inputs.has("x")) {
        // Self-attention: query, key and value are all x, as in seed 000's att(query=x, key=x, value=x).
        const Tensor3 x = inputs.get("x", 3, "(B, T, D)");
        const MultiHeadAttentionResult r = multi_head_attention(x, x, x, w, heads);
        out["q"] = r.q;
        out["k"] = r.k;
        out["v"] = r.v;
        out["q_heads"] = r.q_heads;
        out["k_heads"] = r.k_heads;
        out["v_heads"] = r.v_heads;
        out["scores"] = r.scores;
        out["weights"] = r.weights;
        out["context_heads"] = r.context_heads;
        out["context"] = r.context;
        out["output"] = r.output;

        const MultiHeadAttentionResult loop = multi_head_attention_per_head(x, x, x, w, heads);
        out["weights_per_head"] = loop.weights;
        out["output_per_head"] = loop.output;

        const MultiHeadAttentionResult forgot = mistakes::heads_scaled_by(r, w, std::nullopt, 1.0);  // no 1/√d_k
        out["weights_unscaled"] = forgot.weights;
        out["output_unscaled"] = forgot.output;
    }

    if (inputs.has("batch")) {
        const Tensor3 batch = inputs.get("batch", 3, "(B, T, D)");
        AttentionOptions options;
        options.attention_mask = Matrix(inputs.get("attention_mask", 2, "(B, S)"));
        const MultiHeadAttentionResult r = multi_head_attention(batch, batch, batch, w, heads, options);
        out["batch_weights"] = r.weights;
        out["batch_output"] = r.output;
        // Seed 000 unsqueezes its (B, S) mask to (B, 1, S) and lets masked_fill broadcast it against the
        // (B, h, T, S) scores: the mask's first axis lines up with the heads, so head j of *every*
        // sentence gets sentence j's mask.
        if (batch.shape(0) == heads) out["seed000_batch_weights"] = mistakes::mask_on_heads_axis(r, w, *options.attention_mask).weights;
    }

    if (inputs.has("batch_left")) {
        const Tensor3 batch = inputs.get("batch_left", 3, "(B, T, D)");
        AttentionOptions options;
        options.attention_mask = Matrix(inputs.get("attention_mask_left", 2, "(B, S)"));
        options.causal = true;
        const MultiHeadAttentionResult r = multi_head_attention(batch, batch, batch, w, heads, options);
        out["left_weights"] = r.weights;
        out["left_output"] = r.output;
    }
    return out;
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
