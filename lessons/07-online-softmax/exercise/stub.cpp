// Exercise 7 — attention at scale: the online softmax.
//
// Implement exercise::online_softmax_attention below: lesson 4's softmax(Q Kᵀ / √d_k) V computed
// the way lessons/07-online-softmax/README.md does it, the keys one tile at a time, keeping for
// each query a running maximum m, a running sum l and an accumulator, and recording the state
// after every tile in the trace. Then run
//
//     ./tutor exercise 7
//
// to check it against the lesson's two worked examples and against the library's trace on random
// inputs, tile by tile. Stuck? A run whose numbers changed and still fail shows the next hint;
// `./tutor exercise 7 --hint` shows one at once, and `./tutor exercise 7 --reset` gives you a
// fresh copy of this file (yours is kept as a backup).
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width. T and S may differ,
// and need not be multiples of the tiles: the last tile along each axis may be smaller.
// The loops over the tiles and each tile's place in the trace are written for you below.
// Useful: attn::Vector::from_shape({n}) and attn::Matrix::from_shape({n, d}) make uninitialised
// tensors, .fill(value) sets every element; x(b, t, i) reads an element; std::exp, std::sqrt in
// <cmath>, std::numeric_limits<double>::infinity() in <limits>. From the library, use only its
// types: a call to attn::online_softmax_attention, or to any other of its functions, is refused
// before your code runs.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exercise.hpp"

namespace exercise {

attn::OnlineSoftmaxResult online_softmax_attention(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V,
                                                   std::size_t query_tile, std::size_t key_tile, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), d_v = V.shape(2);
    attn::OnlineSoftmaxResult result;
    result.output = attn::Tensor3::from_shape({B, T, d_v});  // TODO: accumulator / l, once, after the last key tile
    throw attn::exercises::NotImplementedYet("lesson 7: exercise::online_softmax_attention is not implemented yet — "
                                             "edit lessons/07-online-softmax/exercise/exercise.cpp");

    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t first_query = 0; first_query < T; first_query += query_tile) {
            const std::size_t queries = std::min(query_tile, T - first_query);
            // TODO: the running state of these queries before any key: m = −∞, l = 0, accumulator
            // (queries, d_v) = 0.

            for (std::size_t first_key = 0; first_key < S; first_key += key_tile) {
                const std::size_t keys = std::min(key_tile, S - first_key);
                attn::OnlineSoftmaxTile tile;
                tile.batch = b;
                tile.first_query = first_query;
                tile.query_count = queries;
                tile.first_key = first_key;
                tile.key_count = keys;
                tile.rescale = attn::Vector::from_shape({queries});
                tile.exponentials = attn::Matrix::from_shape({queries, keys});
                tile.rescale.fill(1.0);        // what a skipped tile keeps
                tile.exponentials.fill(0.0);
                tile.skipped = false;  // TODO: with `causal`, skip the tile when every key of it is in
                                       // the future of every query of it
                (void)causal;
                if (!tile.skipped) {
                    // TODO, for each query i of the tile (query t = first_query + i):
                    //   the tile's scores q_t · k_s / √d_k, −∞ where causal and s > t
                    //   m_new = max(m_old, the tile's scores); tile.rescale(i) = e^(m_old − m_new)
                    //   l and the accumulator multiplied by it, then e^(score − m_new) added to l and
                    //   e^(score − m_new) · v_s to the accumulator; tile.exponentials(i, j) = e^(score − m_new)
                }
                // TODO: count the tile in result.tiles_computed or result.tiles_skipped, and record
                // the state after it: tile.running_max, tile.running_sum, tile.accumulator.
                result.trace.push_back(tile);
            }
            // TODO: the output of these queries.
        }
    }
    return result;
}

}  // namespace exercise
