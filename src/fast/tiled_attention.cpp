// Lesson 7's online softmax as a float32 kernel (attention_heads.hpp): no (T, S) buffer at all.
//
// For one (batch b, head j, query tile [q0, q0 + rows)), with m, l and the accumulator of each
// query in the worker's scratch:
//
//   0. (once per head and worker) K_j packed by panels (tile_products.hpp), V_j made contiguous
//   m = −∞, l = 0, accumulator = 0
//   for each key tile [k0, k0 + columns) holding a key that some query of the tile may see:
//     for each block of 6 rows of the query tile (its K and V stay in cache meanwhile):
//       1. scores (6, columns) = Q_block K_tileᵀ / √d_k                  kernels.scores
//       2. per row: m_new = max(m, the tile's largest visible score)
//                   P = e^(score − m_new) for a visible key, 0 for a hidden one
//                   l = l · e^(m − m_new) + Σ P;  accumulator ·= e^(m − m_new);  m = m_new
//                                                                   online_softmax_update
//       3. accumulator (6, d_k) += P V_tile                               kernels.weighted_values
//   context rows = accumulator / l  (l = 0: no visible key at all → zeros, the library's policy)
//
// Why it is exact: every term ever added to l and to the accumulator is e^(score − m) for the
// current m, because each time m grows the sums are multiplied by e^(m_old − m_new); at the end
// both are measured against the row's true maximum, and their quotient is softmax · V.
// Causal (top-left: key s visible to query t when s ≤ t): the key tiles past the tile's last
// query are not computed at all — about half the work — and in the last computed tile each block
// of rows stops at its own last query's key. The FLOPs counted are those of the columns computed.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_heads.hpp"
#include "finite_values.hpp"  // attn::detail::first_non_finite
#include "online_softmax_update.hpp"
#include "tile_products.hpp"

namespace attn::fast::detail {

namespace {

// One worker's buffers, carved out of the scratch vector.
struct TileState {
    float* q;            // (rows, d_k): the query tile's rows times 1/√d_k
    float* scores;       // (block_rows, stride): one row block's scores, then its P
    float* running_max;  // (rows) m
    float* running_sum;  // (rows) l
    float* accumulator;  // (rows, d_k)
    float* keys;         // the worker's current head: its keys by panels, key tile by key tile
    float* values;       // and its values by slabs of 16 columns, key tile by key tile

    static std::size_t floats(std::size_t query_tile, std::size_t stride, std::size_t dk, std::size_t packed_keys,
                              std::size_t S) {
        return 2 * round_up(query_tile * dk) + round_up(block_rows * stride) + 2 * round_up(query_tile) +
               round_up(packed_keys) + round_up(value_slab_floats(S, dk));
    }
    static std::size_t round_up(std::size_t n) { return (n + 15) / 16 * 16; }  // 64-byte steps

    TileState(float* base, std::size_t query_tile, std::size_t stride, std::size_t dk, std::size_t packed_keys) {
        q = base;
        scores = q + round_up(query_tile * dk);
        running_max = scores + round_up(block_rows * stride);
        running_sum = running_max + round_up(query_tile);
        accumulator = running_sum + round_up(query_tile);
        keys = accumulator + round_up(query_tile * dk);
        values = keys + round_up(packed_keys);
    }
};

// At most block_rows queries of a query tile against the columns of a key tile they may see.
struct RowBlock {
    std::size_t first;    // the block's first row within the query tile
    std::size_t rows;     // ≤ block_rows
    std::size_t columns;  // keys of the tile some row of the block may see (causal: up to its last query)
    long diagonal;        // (q0 + first) − k0: row r sees local keys c ≤ diagonal + r when causal
};

// How many of the key tile's columns the rows [first, first + rows) of a query tile may see: all
// `columns` unless causal, else those up to the block's last query (0: the block sees none).
inline RowBlock row_block(std::size_t q0, std::size_t first, std::size_t rows, std::size_t k0, std::size_t columns,
                          bool causal) {
    const long diagonal = static_cast<long>(q0 + first) - static_cast<long>(k0);
    std::size_t visible = columns;
    if (causal) {
        const long limit = diagonal + static_cast<long>(rows);
        visible = limit <= 0 ? 0 : std::min(columns, static_cast<std::size_t>(limit));
    }
    return {first, rows, visible, diagonal};
}

// How many keys of the tile row r of the block may see: all the block's columns unless causal,
// else the keys up to its own position.
inline std::size_t visible_keys(bool causal, const RowBlock& block, std::size_t r) {
    if (!causal) return block.columns;
    const long limit = block.diagonal + static_cast<long>(r) + 1;
    return limit <= 0 ? 0 : std::min(block.columns, static_cast<std::size_t>(limit));
}

// Step 2's view of one row block, whose scores are in state.scores (online_softmax_update.hpp).
ScoreBlock score_block(const TileState& state, const RowBlock& block, std::size_t stride, const float* keep,
                       bool causal) {
    ScoreBlock scores{state.scores, stride, block.rows, block.columns, {}, keep};
    for (std::size_t r = 0; r < block.rows; ++r) scores.visible[r] = visible_keys(causal, block, r);
    return scores;
}

// The first score of a query tile that is not a finite number, in (query, key) order over the
// scores the tile computes: its blocks of rows in order, each over every key tile it sees (an
// earlier query may hold one further right than the block that failed). Scores are computed again
// by the same kernel from the same scaled queries, so the value named is the one the update refused.
NonFiniteValue first_non_finite_score(const TileKernels& kernels, const HeadsShape& shape,
                                      const ProjectedInputs& in, std::size_t b, std::size_t head, std::size_t q0,
                                      std::size_t rows, std::size_t tk, const float* scaled_q, const float* keys_packed,
                                      std::size_t packed_tile, float* scores, std::size_t stride) {
    const std::size_t S = shape.S, dk = shape.head_width();
    const std::size_t keys = in.causal ? std::min(S, q0 + rows) : S;
    for (std::size_t first = 0; first < rows; first += block_rows) {
        std::size_t first_t = rows, first_s = 0;
        float value = 0.0f;
        for (std::size_t k0 = 0; k0 < keys; k0 += tk) {
            const RowBlock block =
                row_block(q0, first, std::min(block_rows, rows - first), k0, std::min(tk, keys - k0), in.causal);
            if (block.columns == 0) continue;
            kernels.scores(scaled_q + first * dk, dk, block.rows, keys_packed + k0 / tk * packed_tile,
                           key_panels(block.columns), dk, 1.0f, scores, stride);
            for (std::size_t r = 0; r < block.rows; ++r) {
                const std::size_t at = attn::detail::first_non_finite(scores + r * stride, block.columns);
                const std::size_t t = first + r, s = k0 + at;
                if (at < block.columns && (t < first_t || (t == first_t && s < first_s))) {
                    first_t = t;
                    first_s = s;
                    value = scores[r * stride + at];
                }
            }
        }
        if (first_t < rows) return non_finite_score(shape, b, head, q0 + first_t, first_s, value);
    }
    return non_finite_score(shape, b, head, q0, 0, 0.0f);  // not reached: the update saw one
}

// What every task of one tiled_attention call shares: the inputs, the tiles, the kernels.
struct TiledCall {
    const HeadsShape& shape;
    const ProjectedInputs& in;
    std::size_t tq, tk;         // query and key tile sizes, at most T and S
    std::size_t stride;         // a row of scores: whole panels of keys
    std::size_t packed_tile;    // floats of one key tile's packed keys
    float alpha;                // 1/√d_k
    TileKernels kernels;        // of the active instruction set (simd.hpp)
    SoftmaxUpdate update;       // likewise
};

// Step 0, once per head and worker: the head's keys by panels and its values by slabs
// (tile_products.hpp), key tile by key tile, so that both kernels read them contiguously.
void pack_head(const TiledCall& call, std::size_t b, std::size_t head, TileState& state) {
    const std::size_t S = call.shape.S, D = call.shape.D, dk = call.shape.head_width();
    for (std::size_t k0 = 0; k0 < S; k0 += call.tk) {
        const std::size_t columns = std::min(call.tk, S - k0), first = (b * S + k0) * D + head * dk;
        pack_key_panels(call.in.k + first, columns, dk, D, state.keys + k0 / call.tk * call.packed_tile);
        pack_value_slabs(call.in.v + first, columns, dk, D, state.values + value_slab_floats(k0, dk));
    }
}

// What one query tile computed: for the FLOP count and the tiles computed.
struct QueryTileWork {
    double flops = 0;
    std::size_t tiles = 0;
    bool finite = true;  // false: a score was not a finite number (offered to `bad`), nothing written
};

// Steps 1 to 3 of the file comment for the query tile [q0, q0 + rows) of (b, head): m, l and the
// accumulator in state, over every key tile some query of it may see.
QueryTileWork walk_key_tiles(const TiledCall& call, std::size_t b, std::size_t head, std::size_t q0, std::size_t rows,
                             TileState& state, FirstNonFinite& bad) {
    const std::size_t S = call.shape.S, D = call.shape.D, dk = call.shape.head_width();
    // The tile's queries once scaled by 1/√d_k, as PyTorch scales q before its product, and
    // contiguous: the scores kernel then needs no pass of its own for alpha (AVX2's ran 5–7 %
    // faster so, bench/tile_kernels.cpp).
    const float* q = call.in.q + (b * call.shape.T + q0) * D + head * dk;  // (rows, d_k), leading dimension D
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t i = 0; i < dk; ++i) state.q[r * dk + i] = call.alpha * q[r * D + i];
    const float* keep = call.in.keep != nullptr ? call.in.keep + b * S : nullptr;
    std::fill(state.running_max, state.running_max + rows, -std::numeric_limits<float>::infinity());
    std::fill(state.running_sum, state.running_sum + rows, 0.0f);
    std::fill(state.accumulator, state.accumulator + rows * dk, 0.0f);
    // The keys some query of the tile may see: all, or with the causal mask keys 0 … q0 + rows − 1.
    const std::size_t keys = call.in.causal ? std::min(S, q0 + rows) : S;
    QueryTileWork work;
    for (std::size_t k0 = 0; k0 < keys; k0 += call.tk) {
        const std::size_t columns = std::min(call.tk, keys - k0);
        const float* panels = state.keys + k0 / call.tk * call.packed_tile;
        const float* keep_tile = keep != nullptr ? keep + k0 : nullptr;
        // The tile's K and V stay in cache while every block of rows passes over them.
        for (std::size_t first = 0; first < rows; first += block_rows) {
            const RowBlock block = row_block(q0, first, std::min(block_rows, rows - first), k0, columns, call.in.causal);
            if (block.columns == 0) continue;  // causal: the whole tile is in these rows' future
            // 1. scores = Q_block K_tileᵀ / √d_k
            call.kernels.scores(state.q + first * dk, dk, block.rows, panels, key_panels(block.columns), dk, 1.0f,
                                state.scores, call.stride);
            // 2. m, l, P and the rescaled accumulator
            const RunningRows running{state.running_max + first, state.running_sum + first,
                                      state.accumulator + first * dk, dk};
            if (!call.update(score_block(state, block, call.stride, keep_tile, call.in.causal), running)) {
                bad.offer(first_non_finite_score(call.kernels, call.shape, call.in, b, head, q0, rows, call.tk,
                                                 state.q, state.keys, call.packed_tile, state.scores, call.stride));
                work.finite = false;
                return work;
            }
            // Training's dropout of the weights: P's kept values times 1/(1 − p), the others 0,
            // after l has summed them undropped (dropout follows the softmax).
            if (call.in.weights_dropout != nullptr) {
                const std::size_t T = call.shape.T, h = call.shape.heads;
                for (std::size_t r = 0; r < block.rows; ++r) {
                    const float* factor =
                        call.in.weights_dropout + ((b * h + head) * T + q0 + first + r) * S + k0;
                    float* p = state.scores + r * call.stride;
                    for (std::size_t c = 0; c < block.columns; ++c) p[c] *= factor[c];
                }
            }
            // 3. accumulator += P V_tile
            call.kernels.weighted_values(state.scores, call.stride, block.rows, block.columns,
                                         state.values + value_slab_floats(k0, dk), slab_width * std::min(call.tk, S - k0), dk,
                                         state.accumulator + first * dk);
            work.flops += 4.0 * double(block.rows) * double(block.columns) * double(dk);
        }
        ++work.tiles;
    }
    return work;
}

// The context rows = accumulator / l, once; written over Q's rows when context is q (see the
// header). l = 0: no visible key at all, zeros (the library's policy). With log_sum_exp, also
// L = m + log l of each row (+∞ for a row with no visible key: e^(score − L) is then 0).
void write_context_rows(const TiledCall& call, std::size_t b, std::size_t head, std::size_t q0, std::size_t rows,
                        const TileState& state, float* context, float* log_sum_exp) {
    const std::size_t D = call.shape.D, dk = call.shape.head_width();
    float* out = context + (b * call.shape.T + q0) * D + head * dk;
    for (std::size_t r = 0; r < rows; ++r) {
        const float l = state.running_sum[r];
        const float inverse = l > 0.0f ? 1.0f / l : 0.0f;
        const float* accumulator = state.accumulator + r * dk;
        for (std::size_t i = 0; i < dk; ++i) out[r * D + i] = accumulator[i] * inverse;
    }
    if (log_sum_exp == nullptr) return;
    float* L = log_sum_exp + (b * call.shape.heads + head) * call.shape.T + q0;
    for (std::size_t r = 0; r < rows; ++r) {
        const float l = state.running_sum[r];
        L[r] = l > 0.0f ? state.running_max[r] + std::log(l) : std::numeric_limits<float>::infinity();
    }
}

}  // namespace

void tiled_attention(const HeadsShape& shape, const ProjectedInputs& in, std::size_t query_tile, std::size_t key_tile,
                     float* context, float* log_sum_exp, std::vector<float>& scratch, WorkerPool& pool,
                     FirstNonFinite& bad, AttentionWork& work) {
    const std::size_t B = shape.B, T = shape.T, S = shape.S, h = shape.heads, dk = shape.head_width();
    const std::size_t tq = std::min(query_tile, T), tk = std::min(key_tile, S);
    const std::size_t query_tiles = (T + tq - 1) / tq, key_tiles = (S + tk - 1) / tk;
    const std::size_t stride = key_panels(tk) * panel_width;
    const std::size_t packed_tile = key_panels(tk) * dk * panel_width;
    // The kernels of the active instruction set (simd.hpp), for this whole call.
    const Simd simd = active_simd();
    const TiledCall call{shape, in, tq, tk, stride, packed_tile, 1.0f / std::sqrt(static_cast<float>(dk)),
                         tile_kernels(simd), online_softmax_update(simd)};
    const std::size_t per_worker = TileState::floats(tq, stride, dk, key_tiles * packed_tile, S);
    scratch.resize(pool.size() * per_worker);
    // The (batch, head) whose keys and values each worker holds packed, B·h for none yet.
    std::vector<std::size_t> packed_head(pool.size(), B * h);
    // Per task: what it computed, summed after the run (no shared counters in the loop).
    std::vector<QueryTileWork> task_work(B * h * query_tiles);

    // One task per (batch, head, query tile), head by head, so that a worker packs a head's keys
    // and values once for all its query tiles. Within a head, with the causal mask the last query
    // tiles cost the most, so they are handed out first and the cheap ones fill the gaps.
    pool.run(B * h * query_tiles, [&](std::size_t task, std::size_t worker) {
        const std::size_t pair = task / query_tiles, b = pair / h, head = pair % h;
        const std::size_t q0 = (query_tiles - 1 - task % query_tiles) * tq, rows = std::min(tq, T - q0);
        TileState state(scratch.data() + worker * per_worker, tq, stride, dk, key_tiles * packed_tile);
        if (packed_head[worker] != pair) {
            pack_head(call, b, head, state);
            packed_head[worker] = pair;
        }
        task_work[task] = walk_key_tiles(call, b, head, q0, rows, state, bad);
        if (!task_work[task].finite) return;
        write_context_rows(call, b, head, q0, rows, state, context, log_sum_exp);
        check_context_rows(shape, context, b, head, q0, rows, bad);
    });
    std::size_t computed = 0;
    for (const QueryTileWork& done : task_work) {
        work.attention_flops += done.flops;
        computed += done.tiles;
    }
    work.tiles_computed += computed;
    work.tiles_skipped += B * h * query_tiles * key_tiles - computed;
}

}  // namespace attn::fast::detail
