// src/fast/cached_attention.hpp — private to the fast path: one query per (batch, head) attending
// over rows of keys and values already in memory, the attention of incremental decoding
// (attn/fast/decoder.hpp): over the self-attention's K/V cache, and over the memory's projected
// keys and values in cross-attention.
//
// Why its own loop and not sgemm: with one query a head's scores are t dot products of d_k
// values, and the weights · values sum is t scaled additions; BLAS's per-call cost is larger
// than that work, and a (1, t) sgemm runs at gemv speed anyway. The loop reads each key and value
// row once, in order. It is compiled for the baseline, AVX2 + FMA and AVX-512 (simd.hpp).
//
// Where the rows are: key row i of batch b and K/V head j starts at
//   keys + b·batch_stride + j·head_stride + i·row_stride   (values alike).
// The self-attention cache (B, g, N, d_k) has strides (g·N·d_k, N·d_k, d_k); the memory's
// projections (B, g, S, d_k), (g·S·d_k, S·d_k, d_k). Rows of another layout (B, S, g·d_k), as
// nn.Linear leaves them: (S·g·d_k, d_k, g·d_k) — correct, but each head then reads d_k floats of
// every g·d_k, which wastes memory bandwidth.
//
// Shapes: q (B, h·d_k) · keys, values as above, rows 0 … length − 1 · context (B, h·d_k);
//         query head j·(h/g) + r uses K/V head j (repeat_interleave).
//
//   attend_rows({q, keys, values, {B, h, g, d_k, length}, strides, strides, context}, scratch, pool);
#pragma once

#include <cstddef>
#include <vector>

#include "thread_pool.hpp"

namespace attn::fast::detail {

struct RowStrides {
    std::size_t batch, head, row;
};

struct CachedAttention {
    const float* q;       // (B, h·d_k)
    const float* keys;    // rows of d_k, placed by key_strides
    const float* values;  // rows of d_k, placed by value_strides
    std::size_t B, heads, kv_heads, d_k, length;
    RowStrides key_strides, value_strides;
    float* context;       // (B, h·d_k)
};

/// context = softmax(q_h · K_jᵀ / √d_k) V_j for every (batch, query head h); no mask (every row
/// 0 … length − 1 is seen). `scratch` is resized to one row of `length` scores per worker.
void attend_rows(const CachedAttention& a, std::vector<float>& scratch, WorkerPool& pool);

}  // namespace attn::fast::detail
