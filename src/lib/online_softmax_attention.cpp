#include "attn/online_softmax_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_arguments.hpp"
#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

const double minus_infinity = -std::numeric_limits<double>::infinity();

// e^(x − m) for a score x no larger than the maximum m, with the two infinite cases where the
// formula alone would give NaN: x = −∞ (a hidden key, or "no key seen yet" when x is an old
// maximum) gives 0 even when m is −∞ too, and x = m = +∞ gives 1 (an infinite score is its own
// maximum, and the +∞ scores share the weight, as in softmax_last_axis). NaN stays NaN.
double exp_below_maximum(double x, double m) {
    if (x == minus_infinity) return 0.0;
    if (x == m) return 1.0;
    return std::exp(x - m);
}

// The running state of the queries of one query tile: m, l and the accumulator of each.
struct RunningState {
    Vector running_max;   // (queries) m
    Vector running_sum;   // (queries) l
    Matrix accumulator;   // (queries, d_v)
};

// Which key tiles to walk and which keys to hide, for one batch item.
struct TileGeometry {
    std::size_t T = 0, S = 0;
    bool causal = false;
    CausalAlignment alignment = CausalAlignment::top_left;
    const double* keep_key = nullptr;  // S values of this batch item's attention_mask, or null

    bool hidden(std::size_t t, std::size_t s) const {
        return (causal && is_future_key(t, s, T, S, alignment)) || (keep_key != nullptr && keep_key[s] == 0.0);
    }
    // Every key of the tile is in the future of every query of it. The future grows with s and
    // shrinks with t, so it is enough that the tile's first key is in the future of its last query.
    bool whole_tile_in_future(std::size_t last_query, std::size_t first_key) const {
        return causal && is_future_key(last_query, first_key, T, S, alignment);
    }
};

// Where a query tile's keys and its output live, for the steps below.
struct QueryTile {
    std::size_t batch, first_query, queries;
};

// Step 1, the tile's scores: scale · q_t · k_s for each (query, key) of the tile, and −∞ for a
// hidden key (the additive mask of lesson 4, one tile of it). Only a mask may put −∞ into the
// scores (lesson 4's policy): a score that overflowed, or NaN from the inputs, is refused by name.
// scores (queries, keys)
Matrix tile_scores(const Tensor3& Q, const Tensor3& K, const QueryTile& tile, std::size_t first_key,
                   std::size_t keys, double scale, const TileGeometry& geometry) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), dk = Q.shape(2), b = tile.batch;
    Matrix scores = Matrix::from_shape({tile.queries, keys});
    for (std::size_t i = 0; i < tile.queries; ++i) {
        for (std::size_t j = 0; j < keys; ++j) {
            const std::size_t t = tile.first_query + i, s = first_key + j;
            double dot = 0.0;
            for (std::size_t x = 0; x < dk; ++x) dot += Q(b, t, x) * K(b, s, x);
            if (geometry.hidden(t, s)) {
                scores(i, j) = minus_infinity;
                continue;
            }
            scores(i, j) = scale * dot;
            if (!std::isfinite(scores(i, j))) {
                detail::throw_non_finite("online_softmax_attention", "scores", {B, T, S}, (b * T + t) * S + s,
                                         scores(i, j),
                                         "scale · Q[" + std::to_string(b) + ", " + std::to_string(t) + "] · K[" +
                                             std::to_string(b) + ", " + std::to_string(s) + "]; " +
                                             detail::overflow_advice);
            }
        }
    }
    return scores;
}

// Steps 2 and 3 for query row i: the new maximum m_new = max(m_old, this tile's scores), and the
// factor e^(m_old − m_new) that moves the old terms onto it, applied to what is already summed:
// l and the accumulator. Returns the factor.
double rescale_to_new_maximum(RunningState& state, std::size_t i, const Matrix& scores) {
    const double old_max = state.running_max(i);
    double new_max = old_max;
    for (std::size_t j = 0; j < scores.shape(1); ++j) new_max = std::max(new_max, scores(i, j));
    const double rescale = exp_below_maximum(old_max, new_max);
    state.running_max(i) = new_max;
    state.running_sum(i) *= rescale;
    for (std::size_t x = 0; x < state.accumulator.shape(1); ++x) state.accumulator(i, x) *= rescale;
    return rescale;
}

// Step 4 for query row i: add this tile's terms, e^(score − m_new) to l and e^(score − m_new) v_s
// to the accumulator; the exponentials are kept for the trace. exponentials (queries, keys)
void add_tile_terms(RunningState& state, std::size_t i, const Matrix& scores, const Tensor3& V, std::size_t b,
                    std::size_t first_key, Matrix& exponentials) {
    const double new_max = state.running_max(i);
    for (std::size_t j = 0; j < scores.shape(1); ++j) {
        const double p = exp_below_maximum(scores(i, j), new_max);
        exponentials(i, j) = p;
        state.running_sum(i) += p;
        for (std::size_t x = 0; x < V.shape(2); ++x) state.accumulator(i, x) += p * V(b, first_key + j, x);
    }
}

// Step 5, once per query after its last key tile: output = accumulator / l. l = 0 means every key
// was hidden: the library's policy is an output of zeros, not 0/0 = NaN.
void divide_once(const RunningState& state, const QueryTile& tile, Tensor3& output) {
    const std::size_t B = output.shape(0), T = output.shape(1), dv = output.shape(2);
    for (std::size_t i = 0; i < tile.queries; ++i) {
        const double l = state.running_sum(i);
        for (std::size_t x = 0; x < dv; ++x) {
            const double value = l == 0.0 ? 0.0 : state.accumulator(i, x) / l;
            if (!std::isfinite(value)) {
                detail::throw_non_finite("online_softmax_attention", "output", {B, T, dv},
                                         (tile.batch * T + tile.first_query + i) * dv + x, value,
                                         std::string("the weighted sum of the rows of V; ") + detail::overflow_advice);
            }
            output(tile.batch, tile.first_query + i, x) = value;
        }
    }
}

// One query tile against every key tile, in order: steps 1 to 4 per key tile that is not hidden
// whole, then step 5. Appends a trace entry per key tile when asked.
void attend_query_tile(const Tensor3& Q, const Tensor3& K, const Tensor3& V, const QueryTile& query_tile,
                       const OnlineSoftmaxOptions& options, double scale, const TileGeometry& geometry,
                       OnlineSoftmaxResult& result) {
    const std::size_t S = K.shape(1), dv = V.shape(2), queries = query_tile.queries;
    // Before any key: m = −∞ (no score seen), l = 0, accumulator = 0.
    RunningState state{xt::zeros<double>({queries}), xt::zeros<double>({queries}), xt::zeros<double>({queries, dv})};
    state.running_max.fill(minus_infinity);
    for (std::size_t first_key = 0; first_key < S; first_key += options.key_tile) {
        const std::size_t keys = std::min(options.key_tile, S - first_key);
        OnlineSoftmaxTile tile;
        tile.batch = query_tile.batch;
        tile.first_query = query_tile.first_query;
        tile.query_count = queries;
        tile.first_key = first_key;
        tile.key_count = keys;
        tile.rescale = xt::ones<double>({queries});
        tile.exponentials = xt::zeros<double>({queries, keys});
        tile.skipped = geometry.whole_tile_in_future(query_tile.first_query + queries - 1, first_key);
        if (!tile.skipped) {
            const Matrix scores = tile_scores(Q, K, query_tile, first_key, keys, scale, geometry);
            for (std::size_t i = 0; i < queries; ++i) {
                tile.rescale(i) = rescale_to_new_maximum(state, i, scores);
                add_tile_terms(state, i, scores, V, query_tile.batch, first_key, tile.exponentials);
            }
        }
        ++(tile.skipped ? result.tiles_skipped : result.tiles_computed);
        if (options.keep_trace) {
            tile.running_max = state.running_max;
            tile.running_sum = state.running_sum;
            tile.accumulator = state.accumulator;
            result.trace.push_back(std::move(tile));
        }
    }
    divide_once(state, query_tile, result.output);
}

}  // namespace

// Q (B, T, d_k) · K (B, S, d_k) · V (B, S, d_v) → output (B, T, d_v): each query tile of each batch
// item walks the key tiles (attend_query_tile), then divides once.
OnlineSoftmaxResult online_softmax_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                             const OnlineSoftmaxOptions& options) {
    const std::string f = "online_softmax_attention";
    check_shapes(f, {{"Q", Q, "B,T,d_k"}, {"K", K, "B,S,d_k"}, {"V", V, "B,S,d_v"},
                     {"attention_mask", options.attention_mask, "B,S"}});
    detail::check_mask_and_scale(f, options.attention_mask, options.scale);
    if (options.query_tile == 0 || options.key_tile == 0) {
        throw InputError("online_softmax_attention: query_tile is " + std::to_string(options.query_tile) +
                         " and key_tile is " + std::to_string(options.key_tile) +
                         "; a tile holds at least 1 query and 1 key");
    }
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), dk = Q.shape(2), dv = V.shape(2);
    const double scale = options.scale ? *options.scale : 1.0 / std::sqrt(double(dk));
    OnlineSoftmaxResult result;
    result.output = Tensor3::from_shape({B, T, dv});
    TileGeometry geometry;
    geometry.T = T;
    geometry.S = S;
    geometry.causal = options.causal;
    geometry.alignment = options.causal_alignment;
    for (std::size_t b = 0; b < B; ++b) {
        geometry.keep_key = options.attention_mask ? options.attention_mask->data() + b * S : nullptr;
        for (std::size_t first_query = 0; first_query < T; first_query += options.query_tile) {
            const QueryTile tile{b, first_query, std::min(options.query_tile, T - first_query)};
            attend_query_tile(Q, K, V, tile, options, scale, geometry, result);
        }
    }
    return result;
}

}  // namespace attn
