// lessons/07-online-softmax/exercise/trace_steps.hpp — an online softmax's trace laid out as the
// tables lesson 7 prints, one column per key tile: what exercise 7 compares step by step.
//
// Why one header for both sides: the student's program (serve.cpp) lays out the student's trace,
// and the checker (cases.cpp) lays out the library's and each mistake's, with the same code. The
// student's trace is untrusted: a tile out of place or of the wrong size is said in one sentence
// (a std::length_error), never read past.
//
// Shapes: B batch · T queries · S keys · d_v value width · n_T = ⌈T / query_tile⌉ query tiles ·
//         n_S = ⌈S / key_tile⌉ key tiles
//   tile_computed (B, n_T, n_S)  1 for a computed tile, 0 for one the causal mask skipped
//   tile_counts   (2)            [tiles_computed, tiles_skipped]
//   running_max, rescale, running_sum (B, T, n_S)   each query's m, e^(m_old − m_new), l after each key tile
//   exponentials  (B, T, S)      each tile's e^(score − m) in its keys' columns (0 where skipped)
//   accumulator   (B, T, n_S, d_v)
//   output        (B, T, d_v)
//
//   const attn::OnlineSoftmaxResult r = attn::online_softmax_attention(Q, K, V, {2, 3, true});
//   const auto steps = attn::exercises::trace_steps(r, {B, T, S, d_v, 2, 3});
//   steps.running_max(b, t, k);   // m of query t after key tile k
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/online_softmax_attention.hpp"

namespace attn::exercises {

struct TraceGeometry {
    std::size_t B = 0, T = 0, S = 0, d_v = 0, query_tile = 1, key_tile = 1;

    std::size_t query_tiles() const { return (T + query_tile - 1) / query_tile; }
    std::size_t key_tiles() const { return (S + key_tile - 1) / key_tile; }
};

struct TraceSteps {
    Tensor3 tile_computed;
    Vector tile_counts;
    Tensor3 running_max;
    Tensor3 rescale;
    Tensor3 exponentials;
    Tensor3 running_sum;
    Tensor4 accumulator;
    Tensor3 output;
};

/// The steps' names, in the order the exercise compares them (the order of the computation).
inline const std::vector<std::string>& trace_step_names() {
    static const std::vector<std::string> names = {"tile_computed", "tile_counts", "running_max", "rescale",
                                                   "exponentials",  "running_sum", "accumulator", "output"};
    return names;
}

namespace detail {

inline std::string range_text(std::size_t first, std::size_t count) {
    return count == 1 ? std::to_string(first) : std::to_string(first) + "–" + std::to_string(first + count - 1);
}

template <class Tensor>
void require_shape(const Tensor& tensor, const std::vector<std::size_t>& shape, const std::string& where, const char* field) {
    if (std::vector<std::size_t>(tensor.shape().begin(), tensor.shape().end()) == shape) return;
    std::string wanted, got;
    for (std::size_t d = 0; d < shape.size(); ++d) wanted += (d ? ", " : "") + std::to_string(shape[d]);
    for (std::size_t d = 0; d < tensor.dimension(); ++d) got += (d ? ", " : "") + std::to_string(tensor.shape()[d]);
    throw std::length_error(where + " has " + field + " of shape (" + got + "); it must be (" + wanted + ")");
}

}  // namespace detail

/// The trace of `result` as the tables above. std::length_error when the trace does not hold one
/// tile per (batch item, query tile, key tile) in that order, with its place and sizes.
inline TraceSteps trace_steps(const OnlineSoftmaxResult& result, const TraceGeometry& g) {
    const std::size_t n_T = g.query_tiles(), n_S = g.key_tiles();
    if (result.trace.size() != g.B * n_T * n_S) {
        throw std::length_error("your trace has " + std::to_string(result.trace.size()) +
                                " tiles; it needs one per batch item, query tile and key tile: B · ⌈T / query_tile⌉ · "
                                "⌈S / key_tile⌉ = " + std::to_string(g.B) + " · " + std::to_string(n_T) + " · " +
                                std::to_string(n_S) + " = " + std::to_string(g.B * n_T * n_S));
    }
    TraceSteps steps;
    steps.tile_computed = Tensor3::from_shape({g.B, n_T, n_S});
    steps.tile_counts = {double(result.tiles_computed), double(result.tiles_skipped)};
    steps.running_max = Tensor3::from_shape({g.B, g.T, n_S});
    steps.rescale = Tensor3::from_shape({g.B, g.T, n_S});
    steps.running_sum = Tensor3::from_shape({g.B, g.T, n_S});
    steps.exponentials = Tensor3::from_shape({g.B, g.T, g.S});
    steps.accumulator = Tensor4::from_shape({g.B, g.T, n_S, g.d_v});
    steps.output = result.output;
    std::size_t index = 0;
    for (std::size_t b = 0; b < g.B; ++b) {
        for (std::size_t qi = 0; qi < n_T; ++qi) {
            for (std::size_t ki = 0; ki < n_S; ++ki, ++index) {
                const OnlineSoftmaxTile& tile = result.trace[index];
                const std::size_t first_query = qi * g.query_tile, first_key = ki * g.key_tile;
                const std::size_t queries = std::min(g.query_tile, g.T - first_query), keys = std::min(g.key_tile, g.S - first_key);
                const std::string place = "batch " + std::to_string(b) + ", queries " + detail::range_text(first_query, queries) +
                                          ", keys " + detail::range_text(first_key, keys);
                const std::string where = "your trace's tile " + std::to_string(index) + " (" + place + ")";
                if (tile.batch != b || tile.first_query != first_query || tile.query_count != queries ||
                    tile.first_key != first_key || tile.key_count != keys) {
                    throw std::length_error(where + " says batch " + std::to_string(tile.batch) + ", queries from " +
                                            std::to_string(tile.first_query) + " (" + std::to_string(tile.query_count) +
                                            "), keys from " + std::to_string(tile.first_key) + " (" +
                                            std::to_string(tile.key_count) +
                                            "): the tiles go batch item, then query tile, then key tile, each with its place");
                }
                detail::require_shape(tile.rescale, {queries}, where, "rescale");
                detail::require_shape(tile.running_max, {queries}, where, "running_max");
                detail::require_shape(tile.running_sum, {queries}, where, "running_sum");
                detail::require_shape(tile.exponentials, {queries, keys}, where, "exponentials");
                detail::require_shape(tile.accumulator, {queries, g.d_v}, where, "accumulator");
                steps.tile_computed(b, qi, ki) = tile.skipped ? 0.0 : 1.0;
                for (std::size_t i = 0; i < queries; ++i) {
                    const std::size_t t = first_query + i;
                    steps.running_max(b, t, ki) = tile.running_max(i);
                    steps.rescale(b, t, ki) = tile.rescale(i);
                    steps.running_sum(b, t, ki) = tile.running_sum(i);
                    for (std::size_t j = 0; j < keys; ++j) steps.exponentials(b, t, first_key + j) = tile.exponentials(i, j);
                    for (std::size_t x = 0; x < g.d_v; ++x) steps.accumulator(b, t, ki, x) = tile.accumulator(i, x);
                }
            }
        }
    }
    return steps;
}

/// The steps in trace_step_names()'s order.
inline std::vector<DynamicTensor> step_values(const TraceSteps& s) {
    return {s.tile_computed, s.tile_counts, s.running_max, s.rescale, s.exponentials, s.running_sum, s.accumulator, s.output};
}

}  // namespace attn::exercises
