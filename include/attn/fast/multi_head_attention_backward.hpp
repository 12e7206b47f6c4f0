// attn/fast/multi_head_attention_backward.hpp — the float32 backward of the fast path's multi-head
// attention (attn/fast/multi_head_attention.hpp), in FlashAttention-2's tiled form: what training
// at real sizes needs, once lesson 10 has derived the gradients in double.
//
// Why a forward of its own: the backward needs P, and P is what the tiled forward never stores (a
// (T, S) block per head). multi_head_attention_for_training runs the tiled forward and keeps what
// lets the backward recompute P tile by tile instead: the projections q, k, v, the heads' context
// before w_o, and per (batch, head, query) the log-sum-exp L = m + log l of its scores, so that
// P = e^(score − L) needs no running maximum and no second pass. Memory is O(T·D), never O(T·S).
//
// The backward, in reverse order of the forward (lesson 10's chain, FlashAttention-2's loops):
//   output = context W_oᵀ + b_o   dW_o = doutputᵀ context, db_o = Σ doutput, dcontext = doutput W_o
//   per (batch, head), D_t = rowsum(dO ∘ O) over the head's columns, then per key tile and query tile:
//       S = scale · Q Kᵀ (+ masks)    P = e^(S − L)             (0 for a hidden key)
//       dV += Pᵀ dO      dP = dO Vᵀ      dS = P ∘ (dP − D)
//       dQ += scale · dS K               dK += scale · dSᵀ Q
//   q = query W_qᵀ + b_q …         dW_q = dqᵀ query, db_q = Σ dq, dquery = dq W_q, and so for k, v
// Per worker only a (query tile, key tile) block of scores and one of dP exist. A key tile
// entirely in the future of a query tile (causal) is skipped; a key hidden by attention_mask gets
// no gradient; a query with no visible key (L = +∞) gets zeros, never NaN — the lesson path's
// policies (attn/multi_head_attention_backward.hpp), against which the tests compare.
//
// Threads: one task per (batch, head) for the attention (each owns its columns of dq, dk, dv, so
// no two tasks write the same float), the projections' products split by rows over the workers
// (attn/fast/threads.hpp). The numbers do not depend on the thread count beyond float rounding.
//
// Shapes: B batch · T queries · S keys · D model width · h heads · d_k = D / h
//   query (B, T, D) · key, value (B, S, D) · parameters and options as the forward's
//   forward: output (B, T, D) · q (B, T, D) · k, v (B, S, D) · context (B, T, D) · log_sum_exp (B, h, T)
//   grad_output (B, T, D) → gradients.query (B, T, D), .key, .value (B, S, D), .parameters: w_q …
//   (D, D), b_q … (D), w_o and b_o exactly when the forward had them
//
//   attn::fast::AttentionOptions options(8);
//   auto forward = attn::fast::multi_head_attention_for_training(x, x, x, p, options);
//   auto grad = attn::fast::multi_head_attention_backward(x, x, x, p, options, forward, dy);
//   attn::fast::Tensor3 dx = grad.query + grad.key + grad.value;   // self-attention
//
// Not supported: options.rope (an InputError naming it). options.need_weights is not read: the
// training forward is always the tiled one.
#pragma once

#include <vector>

#include "attn/fast/multi_head_attention.hpp"

namespace attn::fast {

/// What multi_head_attention_for_training returns: the output and what the backward reads.
struct AttentionTrainingResult {
    Tensor3 output;       // (B, T, D), as multi_head_attention's
    Tensor3 q, k, v;      // (B, T, D), (B, S, D), (B, S, D): the projections x Wᵀ + b
    Tensor3 context;      // (B, T, D): the heads side by side, before w_o (the output when there is no w_o)
    Tensor3 log_sum_exp;  // (B, h, T): L = m + log l of each query's scaled, masked scores; +∞ when it sees no key
    AttentionWork work;
};

/// The gradient with respect to each input of multi_head_attention, named like it.
struct AttentionGradients {
    Tensor3 query;                   // (B, T, D)
    Tensor3 key;                     // (B, S, D)
    Tensor3 value;                   // (B, S, D)
    AttentionParameters parameters;  // w_q … (D, D), biases exactly when present, w_o and b_o when the forward had them
    AttentionWork work;              // FLOPs and times of the backward's parts (attention: recomputed scores included)
};

/// multi_head_attention with need_weights = false (the tiled online softmax), keeping q, k, v,
/// the context and L for multi_head_attention_backward. The same argument checks and errors as
/// multi_head_attention; InputError when options.rope is set.
AttentionTrainingResult multi_head_attention_for_training(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                          const AttentionParameters& parameters,
                                                          const AttentionOptions& options);

/// The backward of multi_head_attention_for_training(query, key, value, parameters, options),
/// which returned `forward`; grad_output is ∂loss/∂forward.output. Throws what the forward throws
/// for its arguments, ShapeError naming grad_output or the forward's tensor whose shape does not
/// fit, and InputError when grad_output holds NaN or ±∞ (named with its index).
AttentionGradients multi_head_attention_backward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                 const AttentionParameters& parameters, const AttentionOptions& options,
                                                 const AttentionTrainingResult& forward, const Tensor3& grad_output);

/// The buffers a training loop keeps from step to step so that neither pass allocates: the
/// forward's projections and tiles, the backward's dcontext, dq, dk, dv and tiles. (At the
/// Annotated Transformer's size that is about 160 MB a step not allocated and freed again; glibc
/// already reused most of those blocks, so the page faults of a run barely changed: 254 k before
/// and after, docs/performance.md.)
struct AttentionTrainingWorkspace {
    AttentionWorkspace forward;
    std::vector<float> d_context, keep, dq, dk, dv, scratch;
};

/// The same two passes into `result` and `gradients`, whose tensors are reused when their shapes
/// already fit: after a training loop's first step, they allocate nothing.
///
/// weights_dropout: training's dropout of the attention weights (nn.MultiheadAttention's
/// dropout), (B, h, T, S) row-major, each weight's factor: 0 when dropped, 1/(1 − p) when kept;
/// null: none. The forward computes (P ∘ M) V with the softmax's sums undropped, the backward
/// takes the same factors (give both passes the same ones). ShapeError when it does not hold
/// B·h·T·S values. Memory: one float per weight, B·h·T·S, the one (T, S)-sized buffer of training.
void multi_head_attention_for_training(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                       const AttentionParameters& parameters, const AttentionOptions& options,
                                       AttentionTrainingResult& result, AttentionTrainingWorkspace& workspace,
                                       const std::vector<float>* weights_dropout = nullptr);
void multi_head_attention_backward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                   const AttentionParameters& parameters, const AttentionOptions& options,
                                   const AttentionTrainingResult& forward, const Tensor3& grad_output,
                                   AttentionGradients& gradients, AttentionTrainingWorkspace& workspace,
                                   const std::vector<float>* weights_dropout = nullptr);

}  // namespace attn::fast
