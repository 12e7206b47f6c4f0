// src/fast/attention_backward.hpp — private to the fast path: FlashAttention-2's backward of every
// (batch, head) block, once the output projection's backward has given the heads' dcontext
// (multi_head_attention_backward.cpp; the formulas are in attn/fast/multi_head_attention_backward.hpp).
//
// One task per (batch, head): D_t = rowsum(dO ∘ O) of its queries, then per key tile and, inside,
// per query tile, P recomputed from the saved L, and the five products as single-threaded sgemm
// calls on the head's columns read in place (leading dimension D). The task owns the head's
// columns of dq, dk and dv, so it accumulates into them with no lock, in the same order whatever
// the thread count. Memory per worker: D_t (T floats) and two (query tile, key tile) blocks.
//
// Shapes: q, context, d_context, dq (B·T, D) · k, v, dk, dv (B·S, D) · log_sum_exp (B, h, T) ·
//         keep (B, S) 1/0 or null; head j in columns j·d_k … (j+1)·d_k − 1
#pragma once

#include <cstddef>
#include <vector>

#include "attention_heads.hpp"  // HeadsShape

namespace attn::fast::detail {

struct BackwardInputs {
    const float* q;            // the forward's projections
    const float* k;
    const float* v;
    const float* context;      // O: the heads' context before w_o
    const float* d_context;    // dO: ∂loss/∂context
    const float* log_sum_exp;  // L per (batch, head, query); +∞: the query sees no key
    const float* keep;         // (B, S): 1 = attend, 0 = padding; null: every key
    bool causal;               // key s hidden from query t when s > t (top-left)
    // The forward's dropout of the weights, (B, h, T, S) factors 0 or 1/(1 − p); null: none. With
    // it, O = (P ∘ M) V: dV += (P ∘ M)ᵀ dO, dP = M ∘ (dO Vᵀ), and dS = P ∘ (dP − D) as before, D
    // being rowsum(dO ∘ O) of the dropped O (FlashAttention's dropout backward).
    const float* weights_dropout = nullptr;
};

struct BackwardOutputs {
    float* dq;  // (B·T, D), overwritten
    float* dk;  // (B·S, D), overwritten
    float* dv;  // (B·S, D), overwritten
};

/// Fills dq, dk and dv; `scratch` is resized to one worker's buffers per worker; `work` gets the
/// FLOPs of the products computed and the tiles computed and skipped.
void tiled_attention_backward(const HeadsShape& shape, const BackwardInputs& in, const BackwardOutputs& out,
                              std::size_t query_tile, std::size_t key_tile, std::vector<float>& scratch,
                              WorkerPool& pool, AttentionWork& work);

}  // namespace attn::fast::detail
