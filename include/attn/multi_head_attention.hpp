// attn/multi_head_attention.hpp — lessons/05-multi-head-attention: h scaled dot-product attentions
// side by side.
//
// Why: one attention computes one set of weights per query, so it can follow one kind of relation
// at a time. Multi-head attention projects the inputs (W_q, W_k, W_v, nn.Linear with bias), cuts
// the model width D into h heads of d_k = D / h features, runs scaled dot-product attention in each
// head independently (each head gets its own weights), puts the heads' outputs back side by side,
// and, optionally, mixes them with an output projection W_o:
//
//   q = query W_qᵀ + b_q     k = key W_kᵀ + b_k     v = value W_vᵀ + b_v          (B, ·, D)
//   q_heads = split_heads(q)  …                                                   (B, h, ·, d_k)
//   head j: weights_j = softmax(q_j k_jᵀ / √d_k + masks),  context_j = weights_j v_j
//   context = merge_heads(context_heads)                                          (B, T, D)
//   output  = context W_oᵀ + b_o,  or output = context when there is no W_o
//
// Seed 000 (BERT's self-attention block) has no W_o; seed 003 (the Annotated Transformer) and
// torch.nn.MultiheadAttention have one. Both are here, and the choice is explicit: w_o given, or
// no_output_projection set. A w_o simply left out is an error, not a silently skipped projection.
//
// Two forms compute the same numbers: multi_head_attention splits the heads into a (B, h, T, d_k)
// tensor and attends every (batch, head) block in one loop (the "vectorised" form of seed 004);
// multi_head_attention_per_head loops over heads, slicing d_k columns and calling
// scaled_dot_product_attention for each (seed 004's per-head loop).
//
// Grouped-query attention (Ainslie et al. 2023; multi-query attention, Shazeer 2019, is g = 1):
// options.kv_heads = g < h projects keys and values into only g heads, and each K/V head serves
// h / g consecutive query heads — query heads j·(h/g) … (j+1)·(h/g) − 1 share K/V head j, as
// Hugging Face's repeat_kv (repeat_interleave on the head axis) pairs them. A KV cache then holds
// g heads instead of h. w_k and w_v shrink to (g·d_k, D), b_k and b_v to (g·d_k); g = h (the
// default) is ordinary multi-head attention.
//
// Shapes: B batch · T queries · S keys · D model width · h heads · d_k = D / h · g K/V heads
//   query (B, T, D)   key, value (B, S, D)   w_q, w_o (D, D)   w_k, w_v (g·d_k, D)
//   b_q, b_o (D)   b_k, b_v (g·d_k)   attention_mask (B, S), optional: 1 = attend, 0 = padding
//   q (B, T, D)   k, v (B, S, g·d_k)   q_heads (B, h, T, d_k)   k_heads, v_heads (B, g, S, d_k)
//   scores, weights (B, h, T, S)   context_heads (B, h, T, d_k)   context, output (B, T, D)
//
//   attn::MultiHeadAttentionWeights w;
//   w.w_q = w.w_k = w.w_v = xt::eye<double>(4);  w.b_q = w.b_k = w.b_v = xt::zeros<double>({4});
//   w.no_output_projection = true;                                 // seed 000: no W_o
//   attn::Tensor3 x = {{{1, 0, 0, 1}, {0, 1, 1, 0}}};              // (B=1, T=2, D=4)
//   auto r = attn::multi_head_attention(x, x, x, w, 2);           // 2 heads of d_k = 2
//   // r.weights (1, 2, 2, 2): head 0 = {{0.6698, 0.3302}, {0.3302, 0.6698}}, head 1 the same
//   // r.output == r.context (no W_o): {{{0.6698, 0.3302, 0.3302, 0.6698}, {0.3302, ...}}}
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "attn/dropout.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The learned parameters, in nn.Linear's layout: weights (out, in) = (D, D), applied as x Wᵀ + b.
/// From a torch.nn.MultiheadAttention, in_proj_weight (3D, D) splits row-wise into w_q, w_k, w_v,
/// in_proj_bias into b_q, b_k, b_v (split_in_proj does both), and out_proj.weight /
/// out_proj.bias are w_o / b_o. nn.MultiheadAttention(bias=False) has no biases: zero b_q, b_k,
/// b_v compute the same numbers exactly, and b_o is left absent.
struct MultiHeadAttentionWeights {
    Matrix w_q, w_k, w_v;        // (D, D); w_k and w_v (g·d_k, D) with g = kv_heads < h
    Vector b_q, b_k, b_v;        // (D); b_k and b_v (g·d_k) with g = kv_heads < h
    std::optional<Matrix> w_o;   // (D, D): the output projection; required unless no_output_projection
    std::optional<Vector> b_o;   // (D): its bias; needs w_o; absent → no bias
    /// true: there is no output projection, output = context (seed 000, BERT's self-attention
    /// block); w_o and b_o must then be absent. false (the default): w_o is required, so that a
    /// forgotten out_proj.weight is an InputError rather than a silently different output.
    bool no_output_projection = false;
};

/// InputError "function: w_o is missing; …" unless the output projection is chosen explicitly:
/// w_o given (has_w_o), or no_output_projection set with neither w_o nor b_o. The one rule of
/// both paths (attn::fast::AttentionParameters has the same fields).
void require_output_projection_choice(const std::string& function, bool no_output_projection, bool has_w_o,
                                      bool has_b_o);

/// PyTorch's packed projections split row-wise, as nn.MultiheadAttention stores them: rows
/// [0, D) of in_proj_weight (3D, D) are w_q, [D, 2D) w_k, [2D, 3D) w_v, and in_proj_bias (3D)
/// likewise b_q, b_k, b_v. Without in_proj_bias (bias=False) the biases are zeros. w_o and b_o
/// are left for the caller (out_proj.weight, out_proj.bias). ShapeError naming in_proj_weight or
/// in_proj_bias when they are not (3D, D) and (3D).
///   auto w = attn::split_in_proj(in_proj_weight, in_proj_bias);  w.w_o = out_proj_weight;  w.b_o = out_proj_bias;
MultiHeadAttentionWeights split_in_proj(const Matrix& in_proj_weight, const std::optional<Vector>& in_proj_bias);

/// The attention options plus the number of K/V heads. Built implicitly from AttentionOptions, so
/// every call that passes AttentionOptions keeps its meaning (kv_heads = h). kv_heads lives here
/// and not in AttentionOptions because scaled_dot_product_attention has one head and no use for it.
struct MultiHeadAttentionOptions : AttentionOptions {
    MultiHeadAttentionOptions() = default;
    MultiHeadAttentionOptions(const AttentionOptions& options) : AttentionOptions(options) {}  // NOLINT: implicit on purpose

    /// g, the number of key/value heads (Hugging Face's num_key_value_heads): 0 = h, ordinary
    /// multi-head attention; 1 = multi-query attention. Must divide h.
    std::size_t kv_heads = 0;
    /// Training's dropout on the attention weights, after the softmax and before they weigh the
    /// values, as nn.MultiheadAttention(dropout=p) in training mode. Off by default (evaluation).
    /// multi_head_attention only; the per-head form refuses it.
    Dropout weights_dropout;
};

/// Every intermediate of one multi-head attention. With grouped-query attention (g < h), k, v,
/// k_heads and v_heads hold the g K/V heads, before repeat_kv shares them among the query heads.
struct MultiHeadAttentionResult {
    Tensor3 q, k, v;                    // projections: (B, T, D), (B, S, g·d_k), (B, S, g·d_k)
    Tensor4 q_heads, k_heads, v_heads;  // split into heads: (B, h, T, d_k), (B, g, S, d_k), (B, g, S, d_k)
    Tensor4 scores;                     // (B, h, T, S) q_j k_jᵀ · scale per head, before any mask
    Tensor4 weights;                    // (B, h, T, S) per head; a query whose keys are all hidden has all zeros
    DropoutMask<Tensor4> weights_dropout;  // (B, h, T, S) training's mask on weights; identity when off
    Tensor4 context_heads;              // (B, h, T, d_k) dropout(weights) · v_j per head
    Tensor3 context;                    // (B, T, D) the heads side by side (merge_heads)
    Tensor3 output;                     // (B, T, D) context W_oᵀ + b_o, or context when there is no W_o
};

/// (B, T, D) → (B, h, T, d_k): head j holds features j·d_k … (j+1)·d_k − 1 of every position.
/// PyTorch: x.view(B, T, h, d_k).transpose(1, 2). ShapeError when h does not divide D.
Tensor4 split_heads(const Tensor3& x, std::size_t heads);

/// (B, h, T, d_k) → (B, T, h·d_k): the inverse of split_heads, the heads concatenated feature-wise.
/// PyTorch: x.transpose(1, 2).contiguous().view(B, T, h * d_k).
Tensor3 merge_heads(const Tensor4& x);

/// (B, g, S, d_k) → (B, g·n_rep, S, d_k): every K/V head repeated n_rep times in place, so that
/// head j of the result is head j / n_rep of x — query heads j·n_rep … (j+1)·n_rep − 1 share K/V
/// head j. Hugging Face's repeat_kv, torch.repeat_interleave(x, n_rep, dim=1); not x.repeat(1,
/// n_rep, 1, 1), which tiles the heads and pairs query head 1 with K/V head 1 instead of 0.
/// InputError when n_rep is 0.
///   x heads [k0, k1], n_rep 2 → [k0, k0, k1, k1]
Tensor4 repeat_kv(const Tensor4& x, std::size_t n_rep);

/// context (B, T, D) → context W_oᵀ + b_o, or context itself when no_output_projection (seed 000).
Tensor3 output_projection(const Tensor3& context, const MultiHeadAttentionWeights& weights);

/// Multi-head attention, vectorised form: every (batch, head) block attended in one loop.
/// options.scale defaults to 1/√d_k; options.causal (with options.causal_alignment) and
/// options.attention_mask apply to every head; options.kv_heads = g shares each K/V head among
/// h / g query heads (grouped-query attention).
/// Throws ShapeError naming the tensors and shapes when they disagree (query/key/value widths,
/// w_q, w_o not (D, D), w_k, w_v not (g·d_k, D), biases not (D) or (g·d_k), attention_mask not
/// (B, S)) or when `heads` does not divide D; InputError when kv_heads does not divide heads, when attention_mask holds a value other than 0 or 1, when w_o is missing without
/// no_output_projection (or given with it), when b_o comes without w_o, and
/// when q, k, v, a raw score, a head's context or the output is NaN or ±∞ (named with its index:
/// only a mask may put −∞ in the scores, an overflow must not pass for one).
MultiHeadAttentionResult multi_head_attention(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                              const MultiHeadAttentionWeights& weights, std::size_t heads,
                                              const MultiHeadAttentionOptions& options = {});

/// The same numbers, computed head by head: scaled_dot_product_attention on d_k columns at a time
/// (query head j with K/V head j / (h/g)).
MultiHeadAttentionResult multi_head_attention_per_head(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                       const MultiHeadAttentionWeights& weights, std::size_t heads,
                                                       const MultiHeadAttentionOptions& options = {});

}  // namespace attn
