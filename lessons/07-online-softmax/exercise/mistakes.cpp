#include "07-online-softmax/exercise/mistakes.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "attn/masks.hpp"

namespace attn::mistakes {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// Does tile `n` start its query tile's walk over the keys? Then nothing comes before it.
bool first_of_its_query_tile(const OnlineSoftmaxResult& result, std::size_t n) { return result.trace[n].first_key == 0; }

// Is tile `n` its query tile's last key tile? Then the output is taken after it.
bool last_of_its_query_tile(const OnlineSoftmaxResult& result, std::size_t n) {
    return n + 1 == result.trace.size() || result.trace[n + 1].first_key == 0;
}

// The tile's own terms, Σ_j e^(score_j − m) v_j: (query_count, d_v).
Matrix tile_terms(const OnlineSoftmaxTile& tile, const Tensor3& V) {
    const std::size_t d_v = V.shape(2);
    Matrix terms = xt::zeros<double>({tile.query_count, d_v});
    for (std::size_t i = 0; i < tile.query_count; ++i)
        for (std::size_t j = 0; j < tile.key_count; ++j)
            for (std::size_t x = 0; x < d_v; ++x) terms(i, x) += tile.exponentials(i, j) * V(tile.batch, tile.first_key + j, x);
    return terms;
}

// The output of each query from the last tile of its query tile: accumulator / l, or the
// accumulator itself when it already holds the division (`divided`).
void outputs_from_last_tiles(OnlineSoftmaxResult& result, bool divided) {
    for (std::size_t n = 0; n < result.trace.size(); ++n) {
        if (!last_of_its_query_tile(result, n)) continue;
        const OnlineSoftmaxTile& tile = result.trace[n];
        for (std::size_t i = 0; i < tile.query_count; ++i)
            for (std::size_t x = 0; x < tile.accumulator.shape(1); ++x)
                result.output(tile.batch, tile.first_query + i, x) =
                    divided ? tile.accumulator(i, x) : tile.accumulator(i, x) / tile.running_sum(i);
    }
}

// The accumulator of tile `n`'s queries before it (zeros before the first key tile).
Matrix accumulator_before(const OnlineSoftmaxResult& result, std::size_t n) {
    if (first_of_its_query_tile(result, n)) return xt::zeros<double>(result.trace[n].accumulator.shape());
    return result.trace[n - 1].accumulator;
}

// Every tile's accumulator recomputed as update(i, x, before, terms), in walk order, from the
// accumulator before the tile and the tile's own terms; a skipped tile passes `before` on. The two
// accumulator mistakes differ from the right recurrence only in `update`.
template <typename Update>
void recompute_accumulators(OnlineSoftmaxResult& result, const Tensor3& V, Update update) {
    for (std::size_t n = 0; n < result.trace.size(); ++n) {
        OnlineSoftmaxTile& tile = result.trace[n];
        const Matrix before = accumulator_before(result, n);
        if (tile.skipped) {
            tile.accumulator = before;
            continue;
        }
        const Matrix terms = tile_terms(tile, V);
        for (std::size_t i = 0; i < tile.query_count; ++i)
            for (std::size_t x = 0; x < terms.shape(1); ++x) tile.accumulator(i, x) = update(n, i, x, before, terms);
    }
}

// Which tiles a causal skip rule skips: (first query, last query, first key) → skip.
using SkipRule = bool (*)(std::size_t first_query, std::size_t last_query, std::size_t first_key);

// `right` with the tiles `skip` hides marked skipped, and the queries of their query tiles
// recomputed without those tiles' keys. Each such query is one query of the library's own online
// softmax, its hidden keys given by a padding mask: the keys in its future (s > t) and the keys of
// the wrongly skipped tiles. A tile all of whose keys are hidden leaves the state as a skipped one
// does; its rescale (1) and exponentials (0) are set as a skipped tile's.
OnlineSoftmaxResult with_skip_rule(const OnlineSoftmaxResult& right, const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                   const OnlineSoftmaxOptions& options, SkipRule skip) {
    OnlineSoftmaxResult wrong = right;
    if (!options.causal) return wrong;
    const std::size_t T = Q.shape(1), S = K.shape(1), d_k = Q.shape(2), d_v = V.shape(2);
    std::size_t start = 0;  // the query tile's first tile in the trace
    for (std::size_t n = 0; n < wrong.trace.size(); ++n) {
        if (first_of_its_query_tile(wrong, n)) start = n;
        if (!last_of_its_query_tile(wrong, n)) continue;
        // The query tile's key tiles are wrong.trace[start … n].
        std::vector<bool> newly_skipped;
        bool any = false;
        for (std::size_t k = start; k <= n; ++k) {
            const OnlineSoftmaxTile& tile = wrong.trace[k];
            const bool skipped = !tile.skipped && skip(tile.first_query, tile.first_query + tile.query_count - 1, tile.first_key);
            newly_skipped.push_back(skipped);
            any = any || skipped;
        }
        if (!any) continue;
        const std::size_t b = wrong.trace[n].batch;
        Tensor3 keys = Tensor3::from_shape({1, S, d_k}), values = Tensor3::from_shape({1, S, d_v});
        for (std::size_t s = 0; s < S; ++s) {
            for (std::size_t x = 0; x < d_k; ++x) keys(0, s, x) = K(b, s, x);
            for (std::size_t x = 0; x < d_v; ++x) values(0, s, x) = V(b, s, x);
        }
        for (std::size_t i = 0; i < wrong.trace[n].query_count; ++i) {
            const std::size_t t = wrong.trace[n].first_query + i;
            Tensor3 query = Tensor3::from_shape({1, 1, d_k});
            for (std::size_t x = 0; x < d_k; ++x) query(0, 0, x) = Q(b, t, x);
            Matrix visible = Matrix::from_shape({1, S});
            for (std::size_t s = 0; s < S; ++s) visible(0, s) = is_future_key(t, s, T, S, CausalAlignment::top_left) ? 0.0 : 1.0;
            for (std::size_t k = start; k <= n; ++k) {
                if (!newly_skipped[k - start]) continue;
                for (std::size_t j = 0; j < wrong.trace[k].key_count; ++j) visible(0, wrong.trace[k].first_key + j) = 0.0;
            }
            OnlineSoftmaxOptions one_query{1, options.key_tile, false};
            one_query.attention_mask = visible;
            const OnlineSoftmaxResult alone = online_softmax_attention(query, keys, values, one_query);
            for (std::size_t k = start; k <= n; ++k) {
                OnlineSoftmaxTile& tile = wrong.trace[k];
                const OnlineSoftmaxTile& mine = alone.trace[k - start];
                const bool hidden_whole = tile.skipped || newly_skipped[k - start];
                tile.rescale(i) = hidden_whole ? 1.0 : mine.rescale(0);
                for (std::size_t j = 0; j < tile.key_count; ++j) tile.exponentials(i, j) = hidden_whole ? 0.0 : mine.exponentials(0, j);
                tile.running_max(i) = mine.running_max(0);
                tile.running_sum(i) = mine.running_sum(0);
                for (std::size_t x = 0; x < d_v; ++x) tile.accumulator(i, x) = mine.accumulator(0, x);
            }
            for (std::size_t x = 0; x < d_v; ++x) wrong.output(b, t, x) = alone.output(0, 0, x);
        }
        for (std::size_t k = start; k <= n; ++k) {
            if (!newly_skipped[k - start]) continue;
            wrong.trace[k].skipped = true;
            --wrong.tiles_computed;
            ++wrong.tiles_skipped;
        }
    }
    return wrong;
}

}  // namespace

OnlineSoftmaxResult online_sum_not_rescaled(const OnlineSoftmaxResult& right) {
    OnlineSoftmaxResult wrong = right;
    for (std::size_t n = 0; n < wrong.trace.size(); ++n) {
        OnlineSoftmaxTile& tile = wrong.trace[n];
        for (std::size_t i = 0; i < tile.query_count; ++i) {
            double sum = first_of_its_query_tile(wrong, n) ? 0.0 : wrong.trace[n - 1].running_sum(i);  // the mistake: no · rescale
            for (std::size_t j = 0; j < tile.key_count; ++j) sum += tile.exponentials(i, j);
            tile.running_sum(i) = sum;
        }
    }
    outputs_from_last_tiles(wrong, false);
    return wrong;
}

OnlineSoftmaxResult online_accumulator_wrong_factor(const OnlineSoftmaxResult& right, const Tensor3& V) {
    OnlineSoftmaxResult wrong = right;
    recompute_accumulators(wrong, V, [&](std::size_t n, std::size_t i, std::size_t x, const Matrix& before, const Matrix& terms) {
        const OnlineSoftmaxTile& tile = wrong.trace[n];
        const double old_max = first_of_its_query_tile(wrong, n) ? minus_infinity : right.trace[n - 1].running_max(i);
        return before(i, x) * std::exp(tile.running_max(i) - old_max) + terms(i, x);  // the mistake: e^(m_new − m_old)
    });
    outputs_from_last_tiles(wrong, false);
    return wrong;
}

OnlineSoftmaxResult online_divided_per_tile(const OnlineSoftmaxResult& right, const Tensor3& V) {
    OnlineSoftmaxResult wrong = right;
    recompute_accumulators(wrong, V, [&](std::size_t n, std::size_t i, std::size_t x, const Matrix& before, const Matrix& terms) {
        const OnlineSoftmaxTile& tile = wrong.trace[n];
        return (before(i, x) * tile.rescale(i) + terms(i, x)) / tile.running_sum(i);  // the mistake: / l here
    });
    outputs_from_last_tiles(wrong, true);
    return wrong;
}

OnlineSoftmaxResult online_tile_skip_off_by_one(const OnlineSoftmaxResult& right, const Tensor3& Q, const Tensor3& K,
                                                const Tensor3& V, const OnlineSoftmaxOptions& options) {
    return with_skip_rule(right, Q, K, V, options,
                          [](std::size_t, std::size_t last_query, std::size_t first_key) { return first_key >= last_query; });
}

OnlineSoftmaxResult online_tile_skip_first_query(const OnlineSoftmaxResult& right, const Tensor3& Q, const Tensor3& K,
                                                 const Tensor3& V, const OnlineSoftmaxOptions& options) {
    return with_skip_rule(right, Q, K, V, options,
                          [](std::size_t first_query, std::size_t, std::size_t first_key) { return first_key > first_query; });
}

}  // namespace attn::mistakes
