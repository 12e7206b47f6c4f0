// src/fast/online_softmax_update.hpp — private to the fast path: step 2 of the tiled attention of
// lessons/07-online-softmax (tiled_attention.cpp), the online softmax's update for one block of
// query rows.
//
// For each row r of the block, whose scores (already scaled by 1/√d_k) the scores kernel left in
// scores[r]:
//   m_new = max(m, the largest visible score of the row)
//   P     = e^(score − m_new) for a visible key, 0 for a hidden one        (written over the scores)
//   l     = l · e^(m − m_new) + Σ P;   accumulator ·= e^(m − m_new);   m = m_new
//
// Why a kernel of its own, written with vectors: this is the one part of the tiled path that is
// not a matrix product, and it touches every score. Vectorised by GCC from scalar code it took 19 %
// of the attention part's time with the AVX2 kernels at T = 4096 (0.58 ns per score; the clamps
// of the exponential became compares and blends, constants spilled); written with GCC's vector
// extension it takes 0.40 ns (docs/performance.md, bench/tile_kernels.cpp). FlashAttention-2's
// lesson: keep this work per score small, since the matrix products do far more per instruction.
//
// Policy, as in the scalar code it replaced: every score the block computed, hidden or not, must be
// finite (only a mask may hide a key); otherwise the update returns false and touches nothing.
//
//   ScoreBlock block{scores, stride, rows, columns, {64, 64, …}, nullptr};
//   RunningRows running{m, l, accumulator, dk};
//   if (!online_softmax_update()(block, running)) … a score was NaN or ±∞ …
#pragma once

#include <cstddef>

#include "simd.hpp"
#include "tile_products.hpp"  // block_rows

namespace attn::fast::detail {

/// One block of at most block_rows queries against the keys of one key tile.
struct ScoreBlock {
    float* scores;                     // (rows, stride): the block's scores on entry, its P on return
    std::size_t stride;                // ≥ columns rounded up to 16 (the kernels read and write whole vectors)
    std::size_t rows;                  // ≤ block_rows
    std::size_t columns;               // keys whose scores were computed, all checked to be finite
    std::size_t visible[block_rows];   // per row: keys [0, visible[r]) visible, ≤ columns (the causal limit)
    const float* keep;                 // (columns): 1 kept, 0 padding; nullptr: every key kept
};

/// The running state of the block's rows.
struct RunningRows {
    float* maximum;      // (rows) m
    float* sum;          // (rows) l
    float* accumulator;  // (rows, dk)
    std::size_t dk;
};

/// Returns false, touching nothing, when a score of the block is not a finite number.
using SoftmaxUpdate = bool (*)(const ScoreBlock& block, const RunningRows& running);

/// The update compiled for `simd` (the baseline's where the build has no such variant).
SoftmaxUpdate online_softmax_update(Simd simd = active_simd());

}  // namespace attn::fast::detail
