// lessons/07-online-softmax/exercise/mistakes.hpp — lesson 7's classic mistakes (the online
// softmax), made on purpose.
//
//   Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v); tiles of options.query_tile queries and
//   options.key_tile keys; options.causal (top-left) — the only options these read
//   → an OnlineSoftmaxResult: the output and the trace of every tile (m, l, the accumulator, the
//     rescale factors and the exponentials after it)
//
// Each takes the right result (attn::online_softmax_attention with the same tiles, keep_trace on)
// and recomputes, tile by tile, only what its mistake changes; the running state carries a change
// into every later tile of the same query tile. The output divides by l without a guard for l = 0,
// as a hand-written loop does (the exercise's cases give every query a visible key).
//
//   const auto right = attn::online_softmax_attention(Q, K, V, {2, 3, true});
//   attn::mistakes::online_sum_not_rescaled(right).trace[1].running_sum;   // l_old + Σ e^(s − m_new)
#pragma once

#include "attn/online_softmax_attention.hpp"

namespace attn::mistakes {

/// l not rescaled when m grows: l = l_old + Σ e^(score − m_new) instead of l_old · e^(m_old − m_new)
/// + …, while the accumulator is rescaled. The old terms stay measured against the old maximum, so
/// l is too large once a later tile raises m, and the output too small. Changes running_sum and output.
OnlineSoftmaxResult online_sum_not_rescaled(const OnlineSoftmaxResult& right);

/// The accumulator rescaled by e^(m_new − m_old), the inverse of the rescale factor, while l gets
/// the right one. Before the first key m_old = −∞: e^(m_new − (−∞)) = ∞, and ∞ · 0 is NaN, so every
/// accumulator and output is NaN from the first tile on. Changes accumulator and output.
OnlineSoftmaxResult online_accumulator_wrong_factor(const OnlineSoftmaxResult& right, const Tensor3& V);

/// The accumulator divided by l after every tile (a running output) instead of once after the last
/// one, and not again at the end: from the second tile on, the tile's terms are added to a mean,
/// not to a sum (lesson 7, step 6). Changes accumulator and output (the output only when a query
/// tile has two computed key tiles or more).
OnlineSoftmaxResult online_divided_per_tile(const OnlineSoftmaxResult& right, const Tensor3& V);

/// The causal tile skip off by one: a tile skipped when its first key is ≥ its last query (`>=`
/// for `>`), so the tile that begins with the last query's own key is skipped and that query loses
/// its own key (the tile's earlier queries see none of its keys anyway). Changes every step from
/// that tile on, for its query tile.
OnlineSoftmaxResult online_tile_skip_off_by_one(const OnlineSoftmaxResult& right, const Tensor3& Q, const Tensor3& K,
                                                const Tensor3& V, const OnlineSoftmaxOptions& options);

/// The causal tile skip tested against the tile's first query instead of its last (lesson 7,
/// step 8): a tile whose first key is after its first query is skipped although its later queries
/// may see some of its keys. Invisible with square, aligned tiles (query_tile = key_tile).
OnlineSoftmaxResult online_tile_skip_first_query(const OnlineSoftmaxResult& right, const Tensor3& Q, const Tensor3& K,
                                                 const Tensor3& V, const OnlineSoftmaxOptions& options);

}  // namespace attn::mistakes
