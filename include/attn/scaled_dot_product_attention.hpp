// attn/scaled_dot_product_attention.hpp — lessons/04-causal-self-attention: softmax(Q Kᵀ / √d_k +
// mask) V.
//
// Why: this is the attention of the Transformer. Every query row of Q is compared with every key
// row of K by a dot product; dividing by √d_k keeps the spread of those products near 1 whatever
// the width d_k (without it, a wide model's softmax saturates into a one-hot choice); a mask hides
// keys a query must not see (the future, padding); the softmax turns each row into weights, and
// the output is the weighted mean of the value rows. Self-attention is the case Q, K, V all come
// from one sequence (T = S); with T ≠ S it is cross-attention.
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width
//   Q (B, T, d_k)   K (B, S, d_k)   V (B, S, d_v)   attention_mask (B, S), optional
//   scores, masked_scores, weights (B, T, S)   output (B, T, d_v)
//
//   attn::Tensor3 Q = {{{1, 0}, {0, 1}}}, K = Q, V = {{{10, 0}, {0, 10}}};
//   attn::AttentionOptions options;
//   options.causal = true;
//   auto r = attn::scaled_dot_product_attention(Q, K, V, options);
//   // r.scores        = {{{0.7071, 0}, {0, 0.7071}}}         (1/√2 on the diagonal)
//   // r.masked_scores = {{{0.7071, -inf}, {0, 0.7071}}}
//   // r.weights       = {{{1, 0}, {0.3302, 0.6698}}}
//   // r.output        = {{{10, 0}, {3.302, 6.698}}}
#pragma once

#include <optional>

#include "attn/masks.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// Which keys each query may see, and the scale of the scores.
struct AttentionOptions {
    /// Hide keys s > t (attn/masks.hpp).
    bool causal = false;
    /// With T ≠ S, where the causal grid sits (used only when `causal`): top_left, PyTorch's
    /// torch.triu(ones(T, S), 1), query t sees keys 0 … t; bottom_right, torch.triu(ones(T, S),
    /// S − T + 1), query t sees keys 0 … t + S − T — KV-cache decoding, where the last query is
    /// the newest token and every cached key is its past.
    CausalAlignment causal_alignment = CausalAlignment::top_left;
    /// (B, S): 1 = attend to this key, 0 = padding (hidden from every query). Values must be 0 or 1.
    std::optional<Matrix> attention_mask;
    /// (M, T, S), added to the scores: PyTorch's float attn_mask (0 keeps a key, −∞ hides it, any
    /// other finite value is added as it is). M is 1 (the same (T, S) mask for every sequence and
    /// head) or, in multi-head attention, B·h (row b·h + j for sequence b, head j — PyTorch's 3-D
    /// attn_mask), in scaled_dot_product_attention B. NaN and +∞ are refused. It combines with the
    /// causal and padding masks by addition, as PyTorch merges them.
    std::optional<Tensor3> additive_mask;
    /// The factor applied to Q Kᵀ; absent: 1/√d_k with d_k the last dimension of Q.
    std::optional<double> scale;
};

/// Every intermediate of one scaled dot-product attention.
struct ScaledDotProductAttentionResult {
    Tensor3 scores;         // (B, T, S) scale · Q Kᵀ, before any mask
    Tensor3 masked_scores;  // (B, T, S) the scores with −∞ where a key is hidden: what the softmax sees
    Tensor3 weights;        // (B, T, S) softmax over S; a row whose keys are all hidden is all zeros
    Tensor3 output;         // (B, T, d_v) weights · V
};

/// softmax(scale · Q Kᵀ + masks) V, one (T × S) block per batch item.
/// Throws ShapeError naming Q, K, V (and attention_mask) with their shapes when B, S or d_k
/// disagree or a size is zero, and InputError when attention_mask holds a value other than 0 or 1,
/// or when a raw score or an output value is NaN or ±∞ (the message names the tensor and the
/// index): −∞ may enter the scores only through a mask; one from overflowing arithmetic is refused
/// rather than treated as a masked key.
ScaledDotProductAttentionResult scaled_dot_product_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                                             const AttentionOptions& options = {});

}  // namespace attn
