// Lesson 7 — attention at scale: the online softmax (lessons/07-online-softmax/README.md).
//
// From each example's Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v) and tile sizes query_tile [T_tile],
// key_tile [S_tile] (example "causal" with the causal mask, top-left):
//   scores, masked_scores, weights, output (lesson 4)  attn::scaled_dot_product_attention
//   online_output (B, T, d_v)                           attn::online_softmax_attention
// and from the online softmax's trace:
//   example "main" (one query), for each key tile k:
//     exp_tile<k> (B, T, S_tile)   e^(score − m) of the tile's keys
//     rescale_tile<k>, m_tile<k>, l_tile<k> (B, T)   the factor e^(m_old − m_new); m and l after it
//     acc_tile<k> (B, T, d_v)      the accumulator after the tile
//     recomputed_weights (B, T, S) the second pass: e^(score − m) / l with the final m and l
//   example "causal" (many queries):
//     tile_computed (n_T, n_S)     1 where the tile was computed, 0 where the causal mask skipped it
//     tiles_skipped (B)            how many were skipped
//     rescale_at_tile, m_after_tile, l_after_tile (B, T, n_S)   per query, after each key tile
//     acc_after_tile (B, n_S, T, d_v)   the accumulator after each key tile, one (T, d_v) block per tile
#include <cmath>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/online_softmax_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

// A tile size from an input block such as `query_tile` [2]: one whole number from 1 to a million
// (a bound that keeps the conversion to std::size_t defined; a tile larger than T or S is one tile).
std::size_t read_tile_size(const LessonInputs& inputs, const std::string& name) {
    const DynamicTensor size = inputs.get(name, 1, "(1)");
    if (size.size() != 1 || !(size(0) >= 1 && size(0) <= 1e6) || size(0) != std::floor(size(0))) {
        throw InputError("input '" + name + "' must be one whole number from 1 to 1000000, such as [2]");
    }
    return std::size_t(size(0));
}

// `tensor` with a batch axis and a query axis of one in front: (B, T, ...) = (1, 1, ...).
DynamicTensor for_one_query(DynamicTensor tensor) {
    std::vector<std::size_t> shape = {1, 1};
    if (tensor.dimension() == 2) shape.push_back(tensor.shape(1));
    tensor.reshape(shape);
    return tensor;
}

// The trace of a single query (B = T = 1), tile by tile: what the worked example prints.
void add_one_query_trace(const OnlineSoftmaxResult& online, NamedTensors& out) {
    for (std::size_t k = 0; k < online.trace.size(); ++k) {
        const OnlineSoftmaxTile& tile = online.trace[k];
        const std::string suffix = "_tile" + std::to_string(k);
        out["exp" + suffix] = for_one_query(tile.exponentials);
        out["rescale" + suffix] = for_one_query(tile.rescale);
        out["m" + suffix] = for_one_query(tile.running_max);
        out["l" + suffix] = for_one_query(tile.running_sum);
        out["acc" + suffix] = for_one_query(tile.accumulator);
    }
}

// The weights the online pass never formed, recovered by a second pass over the scores with each
// query's final m and l: weight_s = e^(score_s − m) / l.
Tensor3 recompute_weights(const Tensor3& masked_scores, const OnlineSoftmaxResult& online) {
    const std::size_t S = masked_scores.shape(2);
    Tensor3 weights = Tensor3::from_shape(masked_scores.shape());
    for (const OnlineSoftmaxTile& last : online.trace) {
        if (last.first_key + last.key_count != S) continue;  // only the state after the last key tile
        for (std::size_t i = 0; i < last.query_count; ++i) {
            const std::size_t t = last.first_query + i;
            for (std::size_t s = 0; s < S; ++s) {
                const double score = masked_scores(last.batch, t, s);
                weights(last.batch, t, s) = std::isinf(score) ? 0.0 : std::exp(score - last.running_max(i)) / last.running_sum(i);
            }
        }
    }
    return weights;
}

// Many queries: the map of computed and skipped tiles; each query's rescale factor, m and l after
// each key tile, one column per key tile; and the accumulators after each key tile, one block each.
void add_tile_maps(const OnlineSoftmaxResult& online, std::size_t B, std::size_t T, std::size_t d_v, std::size_t query_tile,
                   std::size_t key_tile, std::size_t query_tiles, std::size_t key_tiles, NamedTensors& out) {
    Matrix computed = xt::zeros<double>({query_tiles, key_tiles});
    Vector skipped = xt::zeros<double>({B});
    Tensor3 rescale = xt::zeros<double>({B, T, key_tiles}), m = rescale, l = rescale;
    Tensor4 acc = xt::zeros<double>({B, key_tiles, T, d_v});
    for (const OnlineSoftmaxTile& tile : online.trace) {
        const std::size_t row = tile.first_query / query_tile, column = tile.first_key / key_tile;
        computed(row, column) = tile.skipped ? 0.0 : 1.0;
        if (tile.skipped) skipped(tile.batch) += 1.0;
        for (std::size_t i = 0; i < tile.query_count; ++i) {
            rescale(tile.batch, tile.first_query + i, column) = tile.rescale(i);
            m(tile.batch, tile.first_query + i, column) = tile.running_max(i);
            l(tile.batch, tile.first_query + i, column) = tile.running_sum(i);
            for (std::size_t v = 0; v < d_v; ++v) acc(tile.batch, column, tile.first_query + i, v) = tile.accumulator(i, v);
        }
    }
    out["tile_computed"] = computed;
    out["tiles_skipped"] = skipped;
    out["rescale_at_tile"] = rescale;
    out["m_after_tile"] = m;
    out["l_after_tile"] = l;
    out["acc_after_tile"] = acc;
}

NamedTensors compute(const std::string& example, const LessonInputs& inputs) {
    const Tensor3 Q = inputs.get("Q", 3, "(B, T, d_k)");
    const Tensor3 K = inputs.get("K", 3, "(B, S, d_k)");
    const Tensor3 V = inputs.get("V", 3, "(B, S, d_v)");
    const std::size_t query_tile = read_tile_size(inputs, "query_tile"), key_tile = read_tile_size(inputs, "key_tile");
    const bool causal = example == "causal";

    AttentionOptions standard_options;
    standard_options.causal = causal;
    const ScaledDotProductAttentionResult standard = scaled_dot_product_attention(Q, K, V, standard_options);
    const OnlineSoftmaxResult online = online_softmax_attention(Q, K, V, OnlineSoftmaxOptions{query_tile, key_tile, causal});

    NamedTensors out;
    out["scores"] = standard.scores;
    out["masked_scores"] = standard.masked_scores;
    out["weights"] = standard.weights;
    out["output"] = standard.output;
    out["online_output"] = online.output;
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1);
    const std::size_t query_tiles = (T + query_tile - 1) / query_tile, key_tiles = (S + key_tile - 1) / key_tile;
    if (B == 1 && T == 1) {
        add_one_query_trace(online, out);
        out["recomputed_weights"] = recompute_weights(standard.masked_scores, online);
    }
    add_tile_maps(online, B, T, V.shape(2), query_tile, key_tile, query_tiles, key_tiles, out);
    return out;
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
