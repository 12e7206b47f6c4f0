// Lesson 7's online softmax as a float32 kernel (attention_heads.hpp): no (T, S) buffer at all.
//
// For one (batch b, head j, query tile [q0, q0 + rows)), with m, l and the accumulator of each
// query in the worker's scratch:
//
//   m = −∞, l = 0, accumulator = 0
//   for each key tile [k0, k0 + columns) holding a key that some query of the tile may see:
//     1. scores (rows, columns) = Q_tile K_tileᵀ / √d_k                       one sgemm
//     2. per row: m_new = max(m, the tile's largest visible score)
//                 P = e^(score − m_new) for a visible key, 0 for a hidden one
//                 l = l · e^(m − m_new) + Σ P;  accumulator ·= e^(m − m_new);  m = m_new
//     3. accumulator (rows, d_k) += P V_tile                                   one sgemm
//   context rows = accumulator / l  (l = 0: no visible key at all → zeros, the library's policy)
//
// Why it is exact: every term ever added to l and to the accumulator is e^(score − m) for the
// current m, because each time m grows the sums are multiplied by e^(m_old − m_new); at the end
// both are measured against the row's true maximum, and their quotient is softmax · V.
// Causal (top-left: key s visible to query t when s ≤ t): the key tiles past the tile's last
// query are not computed at all — about half the work — and the last computed tile stops at that
// query's key.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "attention_heads.hpp"
#include "finite.hpp"  // attn::detail::first_non_finite
#include "kernels.hpp"

namespace attn::fast::detail {

namespace {

// One worker's buffers, carved out of the workspace's scratch vector.
struct TileState {
    float* scores;       // (rows, columns), row stride `columns`: the tile's scores, then P
    float* running_max;  // (rows) m
    float* running_sum;  // (rows) l
    float* tile_max;     // (rows) the largest visible score of the current tile
    float* accumulator;  // (rows, d_k)

    static std::size_t floats(std::size_t query_tile, std::size_t key_tile, std::size_t dk) {
        return round_up(query_tile * key_tile) + 3 * round_up(query_tile) + round_up(query_tile * dk);
    }
    static std::size_t round_up(std::size_t n) { return (n + 15) / 16 * 16; }  // 64-byte steps

    TileState(float* base, std::size_t query_tile, std::size_t key_tile) {
        scores = base;
        running_max = scores + round_up(query_tile * key_tile);
        running_sum = running_max + round_up(query_tile);
        tile_max = running_sum + round_up(query_tile);
        accumulator = tile_max + round_up(query_tile);
    }
};

// How many keys of a tile query r may see: all `columns` unless causal, else the keys up to its
// own position. `diagonal` = q0 − k0, so query r (at q0 + r) sees local keys c ≤ diagonal + r.
inline std::size_t visible_keys(bool causal, long diagonal, std::size_t r, std::size_t columns) {
    if (!causal) return columns;
    const long limit = diagonal + static_cast<long>(r) + 1;
    return limit <= 0 ? 0 : std::min(columns, static_cast<std::size_t>(limit));
}

// Step 2 of the file comment for one tile. Returns false, touching nothing, when a score of the
// tile (hidden or not: only a mask may hide a key) is not a finite number.
ATTN_VECTOR_CLONES
bool online_softmax_update(TileState& state, std::size_t rows, std::size_t columns, std::size_t dk, const float* keep,
                           bool causal, long diagonal) {
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    const float largest = std::numeric_limits<float>::max();
    // Pass 1, every row: the largest visible score, and the count of non-finite scores.
    int bad = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* row = state.scores + r * columns;
        const std::size_t limit = visible_keys(causal, diagonal, r, columns);
        float maximum = minus_infinity;
        if (keep != nullptr) {
#pragma omp simd reduction(max : maximum) reduction(+ : bad)
            for (std::size_t c = 0; c < columns; ++c) {
                bad += !(std::fabs(row[c]) <= largest);
                const float v = c < limit && keep[c] != 0.0f ? row[c] : minus_infinity;
                maximum = v > maximum ? v : maximum;
            }
        } else {
#pragma omp simd reduction(max : maximum) reduction(+ : bad)
            for (std::size_t c = 0; c < columns; ++c) {
                bad += !(std::fabs(row[c]) <= largest);
                const float v = c < limit ? row[c] : minus_infinity;
                maximum = v > maximum ? v : maximum;
            }
        }
        state.tile_max[r] = maximum;
    }
    if (bad != 0) return false;
    // Pass 2, row by row: P, l and the rescaled accumulator.
    for (std::size_t r = 0; r < rows; ++r) {
        float* row = state.scores + r * columns;
        const float m_old = state.running_max[r];
        const float m_new = std::max(m_old, state.tile_max[r]);
        if (m_new == minus_infinity) {
            // No visible key yet, in this tile or before: P is 0, l and the accumulator stay 0.
            std::memset(row, 0, columns * sizeof(float));
            continue;
        }
        const std::size_t limit = visible_keys(causal, diagonal, r, columns);
        float sum = 0.0f;
        if (keep != nullptr) {
#pragma omp simd reduction(+ : sum)
            for (std::size_t c = 0; c < columns; ++c) {
                // A hidden score may lie above m_new: exp_of_nonpositive then gives 1, times 0.
                const float e = c < limit ? exp_of_nonpositive(row[c] - m_new) * keep[c] : 0.0f;
                row[c] = e;
                sum += e;
            }
        } else {
#pragma omp simd reduction(+ : sum)
            for (std::size_t c = 0; c < columns; ++c) {
                const float e = c < limit ? exp_of_nonpositive(row[c] - m_new) : 0.0f;
                row[c] = e;
                sum += e;
            }
        }
        const float rescale = exp_of_nonpositive(m_old - m_new);  // m_old = −∞: 0 (l and the accumulator are 0)
        state.running_sum[r] = state.running_sum[r] * rescale + sum;
        state.running_max[r] = m_new;
        if (rescale != 1.0f) {
            float* accumulator = state.accumulator + r * dk;
#pragma omp simd
            for (std::size_t i = 0; i < dk; ++i) accumulator[i] *= rescale;
        }
    }
    return true;
}

// scores (rows, columns) = alpha · Q_tile K_tileᵀ, Q and K read in place with leading dimension D.
void tile_scores(const float* q, const float* k, std::size_t rows, std::size_t columns, std::size_t dk, std::size_t D,
                 float alpha, float* scores) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(columns),
                static_cast<int>(dk), alpha, q, static_cast<int>(D), k, static_cast<int>(D), 0.0f, scores,
                static_cast<int>(columns));
}

}  // namespace

void tiled_attention(const HeadsShape& shape, const ProjectedInputs& in, std::size_t query_tile, std::size_t key_tile,
                     float* context, std::vector<float>& scratch, WorkerPool& pool, FirstNonFinite& bad,
                     AttentionWork& work) {
    const std::size_t B = shape.B, T = shape.T, S = shape.S, D = shape.D, h = shape.heads, dk = shape.head_width();
    const std::size_t tq = std::min(query_tile, T), tk = std::min(key_tile, S);
    const std::size_t query_tiles = (T + tq - 1) / tq, key_tiles = (S + tk - 1) / tk;
    const std::size_t per_worker = TileState::floats(tq, tk, dk);
    scratch.resize(pool.size() * per_worker);
    const float alpha = 1.0f / std::sqrt(static_cast<float>(dk));

    // Per task: FLOPs and tiles computed, summed after the run (no shared counters in the loop).
    std::vector<double> task_flops(B * h * query_tiles, 0.0);
    std::vector<std::size_t> task_tiles(B * h * query_tiles, 0);

    // One task per (batch, head, query tile); with the causal mask the last query tiles cost the
    // most, so they are handed out first and the cheap ones fill the gaps at the end.
    pool.run(B * h * query_tiles, [&](std::size_t task, std::size_t worker) {
        const std::size_t query_tile_index = query_tiles - 1 - task / (B * h);
        const std::size_t b = (task % (B * h)) / h, head = task % h;
        const std::size_t q0 = query_tile_index * tq, rows = std::min(tq, T - q0);
        const float* q = in.q + (b * T + q0) * D + head * dk;  // (rows, d_k), leading dimension D
        const float* k = in.k + b * S * D + head * dk;         // (S, d_k)
        const float* v = in.v + b * S * D + head * dk;         // (S, d_k)
        const float* keep = in.keep != nullptr ? in.keep + b * S : nullptr;
        TileState state(scratch.data() + worker * per_worker, tq, tk);
        std::fill(state.running_max, state.running_max + rows, -std::numeric_limits<float>::infinity());
        std::fill(state.running_sum, state.running_sum + rows, 0.0f);
        std::fill(state.accumulator, state.accumulator + rows * dk, 0.0f);

        // The keys some query of the tile may see: all, or with the causal mask keys 0 … q0 + rows − 1.
        const std::size_t keys = in.causal ? std::min(S, q0 + rows) : S;
        double flops = 0;
        std::size_t tiles = 0;
        for (std::size_t k0 = 0; k0 < keys; k0 += tk) {
            const std::size_t columns = std::min(tk, keys - k0);
            tile_scores(q, k + k0 * D, rows, columns, dk, D, alpha, state.scores);
            const float* keep_tile = keep != nullptr ? keep + k0 : nullptr;
            if (!online_softmax_update(state, rows, columns, dk, keep_tile, in.causal,
                                       static_cast<long>(q0) - static_cast<long>(k0))) {
                // A score is not finite: find the first in (query, key) order over this tile and the
                // later ones (an earlier query may hold one further right), and stop the task.
                std::size_t first_t = rows, first_s = 0;
                float value = 0.0f;
                for (std::size_t k1 = k0; k1 < keys; k1 += tk) {
                    const std::size_t n = std::min(tk, keys - k1);
                    if (k1 != k0) tile_scores(q, k + k1 * D, rows, n, dk, D, alpha, state.scores);
                    const std::size_t at = attn::detail::first_non_finite(state.scores, rows * n);
                    if (at == rows * n) continue;
                    if (at / n < first_t || (at / n == first_t && k1 + at % n < first_s)) {
                        first_t = at / n;
                        first_s = k1 + at % n;
                        value = state.scores[at];
                    }
                }
                bad.offer(non_finite_score(shape, b, head, q0 + first_t, first_s, value));
                return;
            }
            // accumulator (rows, d_k) += P (rows, columns) · V_tile (columns, d_k)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows), static_cast<int>(dk),
                        static_cast<int>(columns), 1.0f, state.scores, static_cast<int>(columns), v + k0 * D,
                        static_cast<int>(D), 1.0f, state.accumulator, static_cast<int>(dk));
            flops += 4.0 * double(rows) * double(columns) * double(dk);
            ++tiles;
        }
        task_flops[task] = flops;
        task_tiles[task] = tiles;

        // context rows = accumulator / l, once; written over Q's rows when context is q (see the header).
        float* out = context + (b * T + q0) * D + head * dk;
        for (std::size_t r = 0; r < rows; ++r) {
            const float l = state.running_sum[r];
            const float inverse = l > 0.0f ? 1.0f / l : 0.0f;
            const float* accumulator = state.accumulator + r * dk;
            for (std::size_t i = 0; i < dk; ++i) out[r * D + i] = accumulator[i] * inverse;
        }
        check_context_rows(shape, context, b, head, q0, rows, bad);
    });
    std::size_t computed = 0;
    for (std::size_t task = 0; task < task_flops.size(); ++task) {
        work.attention_flops += task_flops[task];
        computed += task_tiles[task];
    }
    work.tiles_computed += computed;
    work.tiles_skipped += B * h * query_tiles * key_tiles - computed;
}

}  // namespace attn::fast::detail
