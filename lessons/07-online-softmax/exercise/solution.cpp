// Exercise 7, solved: the online softmax, written out as lessons/07-online-softmax/README.md
// computes it — the keys one tile at a time, a running maximum m, a running sum l and an
// accumulator per query, rescaled by e^(m_old − m_new) when m grows, divided once at the end;
// with the causal mask, the tiles above the diagonal skipped. A reference, not a shortcut: it uses
// no library function, and `attn exercise 7 --file lessons/07-online-softmax/exercise/solution.cpp`
// passes every case.
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width · query_tile,
// key_tile the tile sizes (the last tile along each axis may be smaller).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "exercise.hpp"

namespace exercise {

attn::OnlineSoftmaxResult online_softmax_attention(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V,
                                                   std::size_t query_tile, std::size_t key_tile, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), d_k = Q.shape(2), d_v = V.shape(2);
    const double minus_infinity = -std::numeric_limits<double>::infinity();
    const double scale = 1.0 / std::sqrt(double(d_k));
    attn::OnlineSoftmaxResult result;
    result.output = attn::Tensor3::from_shape({B, T, d_v});

    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t first_query = 0; first_query < T; first_query += query_tile) {
            const std::size_t queries = std::min(query_tile, T - first_query);
            const std::size_t last_query = first_query + queries - 1;
            // The running state of this tile's queries, before any key: m = −∞ (nothing seen),
            // l = 0 and an accumulator of zeros.
            attn::Vector m = attn::Vector::from_shape({queries});
            attn::Vector l = attn::Vector::from_shape({queries});
            attn::Matrix accumulator = attn::Matrix::from_shape({queries, d_v});
            m.fill(minus_infinity);
            l.fill(0.0);
            accumulator.fill(0.0);

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
                tile.rescale.fill(1.0);
                tile.exponentials.fill(0.0);
                // The causal mask hides key s from query t when s > t. The smallest key of the tile
                // against the largest query: if even that pair is hidden, every pair is.
                tile.skipped = causal && first_key > last_query;

                if (!tile.skipped) {
                    for (std::size_t i = 0; i < queries; ++i) {
                        const std::size_t t = first_query + i;
                        // The tile's scores, q_t · k_s / √d_k, with −∞ for a key in t's future.
                        std::vector<double> scores(keys);
                        for (std::size_t j = 0; j < keys; ++j) {
                            const std::size_t s = first_key + j;
                            double dot = 0.0;
                            for (std::size_t x = 0; x < d_k; ++x) dot += Q(b, t, x) * K(b, s, x);
                            scores[j] = causal && s > t ? minus_infinity : dot * scale;
                        }
                        // The new maximum, and the factor that moves the old terms onto it:
                        // e^(score − m_old) · e^(m_old − m_new) = e^(score − m_new). Before the first
                        // key m_old = −∞ and the factor is e^(−∞) = 0: there is nothing to move.
                        double new_max = m(i);
                        for (double score : scores) new_max = std::max(new_max, score);
                        const double rescale = std::exp(m(i) - new_max);
                        tile.rescale(i) = rescale;
                        m(i) = new_max;
                        // Both l and the accumulator, by the same factor; then the tile's own terms.
                        l(i) *= rescale;
                        for (std::size_t x = 0; x < d_v; ++x) accumulator(i, x) *= rescale;
                        for (std::size_t j = 0; j < keys; ++j) {
                            const double p = std::exp(scores[j] - new_max);  // e^(−∞) = 0 for a hidden key
                            tile.exponentials(i, j) = p;
                            l(i) += p;
                            for (std::size_t x = 0; x < d_v; ++x) accumulator(i, x) += p * V(b, first_key + j, x);
                        }
                    }
                    ++result.tiles_computed;
                } else {
                    ++result.tiles_skipped;  // nothing computed: the state stays as it was
                }
                // The state after this tile, for the trace.
                tile.running_max = m;
                tile.running_sum = l;
                tile.accumulator = accumulator;
                result.trace.push_back(tile);
            }

            // After the last key tile, one division per query. Not per tile: a mean cannot take
            // the next tile's terms the way a sum can.
            for (std::size_t i = 0; i < queries; ++i)
                for (std::size_t x = 0; x < d_v; ++x) result.output(b, first_query + i, x) = accumulator(i, x) / l(i);
        }
    }
    return result;
}

}  // namespace exercise
