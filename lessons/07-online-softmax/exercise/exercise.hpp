// Exercise 7 — the function you write (in lessons/07-online-softmax/exercise/exercise.cpp).
#pragma once

#include "attn/online_softmax_attention.hpp"
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// Lesson 4's softmax(Q Kᵀ / √d_k) V with the online softmax of lesson 7: the keys one tile at a
/// time, each query keeping m, l and an accumulator, rescaled by e^(m_old − m_new) when m grows,
/// divided once after the last tile. With `causal`, query t sees keys 0 … t, and a tile whose
/// first key is in the future of its last query is skipped whole.
///   Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v); query_tile, key_tile ≥ 1 (the last tile of each
///   may be smaller)
///   → output (B, T, d_v), and trace: one attn::OnlineSoftmaxTile per (batch item, query tile, key
///     tile), in that order, with its place, skipped, rescale, exponentials, and running_max,
///     running_sum, accumulator after the tile (include/attn/online_softmax_attention.hpp says
///     what each holds); tiles_computed and tiles_skipped count them.
attn::OnlineSoftmaxResult online_softmax_attention(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V,
                                                   std::size_t query_tile, std::size_t key_tile, bool causal);

}  // namespace exercise
