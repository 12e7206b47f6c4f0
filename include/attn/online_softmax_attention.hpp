// attn/online_softmax_attention.hpp — lesson 7: softmax(Q Kᵀ / √d_k + mask) V without ever
// holding the (T, S) weights, one tile of keys at a time (the online softmax).
//
// Why: lesson 4's formula builds a (T, S) grid of scores and then of weights for every batch item
// and head. That grid grows with the square of the context: at T = S = 16 384 one float32 head
// is 1 GiB, twelve heads 12 GiB. The online softmax (Milakov & Gimelshein 2018; the core of
// FlashAttention, Dao et al. 2022) walks the keys in tiles and keeps, for each query, only a
// running maximum m, a running sum l of exponentials and a running weighted sum of values (the
// accumulator). When a tile raises m, the old l and accumulator are multiplied by e^(m_old − m_new)
// so that every term stays measured against the same maximum; at the end the accumulator is
// divided by l once. The result is lesson 4's output — the same real numbers, not an
// approximation — with memory proportional to T·d_v instead of T·S. With the causal mask, a tile
// whose first key is in the future of its last query holds nothing visible and is skipped whole.
//
// This is the readable double-precision version the lesson prints: plain loops, one pass per
// idea, and a trace of every tile. A fast kernel runs the same recurrence with a matrix product
// per tile; keep_trace = false keeps the memory at O(T·d_v) (plus one tile of scores).
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width
//         T_tile queries per query tile · S_tile keys per key tile (the last tile of each may be
//         smaller: T and S need not be multiples of them)
//   Q (B, T, d_k)   K (B, S, d_k)   V (B, S, d_v)   attention_mask (B, S), optional
//   output (B, T, d_v)
//   trace: one OnlineSoftmaxTile per (batch item, query tile, key tile), in that order
//
//   // One query, four keys, two tiles of two keys (lesson 7's worked example): scores 2, 1 | 3, 0.
//   attn::Tensor3 Q = {{{2, 0, 1, 1}}};
//   attn::Tensor3 K = {{{1, 1, 1, 1}, {0, 3, 1, 1}, {2, 1, 1, 1}, {1, 0, -1, -1}}};
//   attn::Tensor3 V = {{{1, 0}, {0, 1}, {1, 1}, {2, 0}}};
//   auto r = attn::online_softmax_attention(Q, K, V, attn::OnlineSoftmaxOptions{1, 2, false});
//   // r.trace[0].running_max = {2}, running_sum = {1 + e^−1},  accumulator = {{1, e^−1}}
//   // r.trace[1].rescale = {e^(2 − 3)}, running_max = {3}, running_sum = {e^−1 + e^−2 + 1 + e^−3}
//   // r.output equals attn::scaled_dot_product_attention(Q, K, V).output
//
// Policies, the same as attn::scaled_dot_product_attention's: the same argument checks and
// messages; a query whose keys are all hidden (padding, or the bottom-right causal alignment with
// T > S) gets an output of zeros; only a mask may hide a key: a score or an output that is NaN
// or ±∞ (an input holding one, or float64 arithmetic that overflowed) is an InputError naming the
// tensor and the index. (A score the causal mask hides is never computed here, so a non-finite
// value there goes unnoticed where lesson 4's function, which computes every score, refuses it.)
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attn/masks.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// How the queries and keys are cut into tiles, and which keys each query may see.
struct OnlineSoftmaxOptions {
    OnlineSoftmaxOptions() = default;
    /// `OnlineSoftmaxOptions{query_tile, key_tile, causal}`: the tiles, and whether to mask.
    OnlineSoftmaxOptions(std::size_t query_tile_size, std::size_t key_tile_size, bool causal_mask = false)
        : query_tile(query_tile_size), key_tile(key_tile_size), causal(causal_mask) {}

    /// T_tile: queries per tile (at least 1). Decides which tiles the causal mask can skip.
    std::size_t query_tile = 64;
    /// S_tile: keys per tile (at least 1): the keys whose scores exist at one time.
    std::size_t key_tile = 64;
    /// Hide keys in each query's future (attn/masks.hpp), and skip the tiles that hold only those.
    bool causal = false;
    /// With T ≠ S, where the causal grid sits (as AttentionOptions::causal_alignment).
    CausalAlignment causal_alignment = CausalAlignment::top_left;
    /// (B, S): 1 = attend to this key, 0 = padding (hidden from every query). Values must be 0 or 1.
    std::optional<Matrix> attention_mask;
    /// The factor applied to Q Kᵀ; absent: 1/√d_k with d_k the last dimension of Q.
    std::optional<double> scale;
    /// Keep an OnlineSoftmaxTile per tile in the result (the lesson prints them). Without it the
    /// memory used besides the output is one tile of scores and the per-query m, l, accumulator.
    bool keep_trace = true;
};

/// The state of one query tile after one key tile: what the lesson prints after each tile.
/// Rows are the tile's queries, first_query + 0 … first_query + query_count − 1.
struct OnlineSoftmaxTile {
    std::size_t batch = 0;        // b
    std::size_t first_query = 0;  // the tile's queries: [first_query, first_query + query_count)
    std::size_t query_count = 0;
    std::size_t first_key = 0;    // the tile's keys: [first_key, first_key + key_count)
    std::size_t key_count = 0;
    /// True when the causal mask hides every key of the tile from every query of it (its first key
    /// is in the future of its last query): nothing was computed, and the state below is the state
    /// before the tile, with rescale 1 and exponentials 0.
    bool skipped = false;
    Vector rescale;        // (query_count) e^(m_old − m_new): what l and the accumulator were
                           // multiplied by before this tile's keys were added (0 before any key)
    Matrix exponentials;   // (query_count, key_count) e^(score − m_new), 0 for a hidden key: the
                           // tile's weights before the division by l
    Vector running_max;    // (query_count) m: the largest visible score so far (−∞ before any)
    Vector running_sum;    // (query_count) l: Σ e^(score − m) over the visible keys so far
    Matrix accumulator;    // (query_count, d_v) Σ e^(score − m) v_s over the same keys
};

struct OnlineSoftmaxResult {
    Tensor3 output;                        // (B, T, d_v) accumulator / l, once, after the last tile
    std::vector<OnlineSoftmaxTile> trace;  // batch item, then query tile, then key tile; empty
                                           // unless options.keep_trace
    std::size_t tiles_computed = 0;        // (query tile, key tile) pairs computed, over the batch
    std::size_t tiles_skipped = 0;         // pairs skipped because the causal mask hides them whole
};

/// softmax(scale · Q Kᵀ + masks) V with the online softmax, one key tile at a time; equal to
/// scaled_dot_product_attention(Q, K, V, …).output up to rounding (about 1e-16 relative).
/// Throws ShapeError naming Q, K, V (and attention_mask) with their shapes when B, S or d_k
/// disagree or a size is zero; InputError when a tile size is 0, attention_mask holds a value
/// other than 0 or 1, the scale is not finite, or a score or output is not a finite number.
OnlineSoftmaxResult online_softmax_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                             const OnlineSoftmaxOptions& options = {});

}  // namespace attn
