// Exercise 7, a second correct implementation written from lessons/07-online-softmax/README.md
// alone: the trace laid out first, one slot per (batch item, query tile, key tile); then each
// query on its own walks the key tiles with its m, l and accumulator, writing its row of every
// slot. A tile is skipped when no pair (query, key) of it is visible, tested pair by pair.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "exercise.hpp"

namespace exercise {

attn::OnlineSoftmaxResult online_softmax_attention(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V,
                                                   std::size_t query_tile, std::size_t key_tile, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), width = Q.shape(2), d_v = V.shape(2);
    const std::size_t query_tiles = (T + query_tile - 1) / query_tile, key_tiles = (S + key_tile - 1) / key_tile;
    const double root = std::sqrt(static_cast<double>(width));
    const auto visible = [&](std::size_t t, std::size_t s) { return !causal || s <= t; };
    attn::OnlineSoftmaxResult out;
    out.output = attn::Tensor3::from_shape({B, T, d_v});
    out.trace.resize(B * query_tiles * key_tiles);

    // The slots, and which tiles hold no visible pair at all.
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t qi = 0; qi < query_tiles; ++qi) {
            for (std::size_t ki = 0; ki < key_tiles; ++ki) {
                attn::OnlineSoftmaxTile& slot = out.trace[(b * query_tiles + qi) * key_tiles + ki];
                slot.batch = b;
                slot.first_query = qi * query_tile;
                slot.query_count = std::min(query_tile, T - slot.first_query);
                slot.first_key = ki * key_tile;
                slot.key_count = std::min(key_tile, S - slot.first_key);
                bool any = false;
#ifdef PLANTED_TILE_SKIP_FIRST_QUERY
                for (std::size_t t = slot.first_query; t < slot.first_query + 1; ++t)  // the tile's first query only
#else
                for (std::size_t t = slot.first_query; t < slot.first_query + slot.query_count; ++t)
#endif
                    for (std::size_t s = slot.first_key; s < slot.first_key + slot.key_count; ++s) any = any || visible(t, s);
                slot.skipped = !any;
                (slot.skipped ? out.tiles_skipped : out.tiles_computed) += 1;
                slot.rescale = xt::ones<double>({slot.query_count});
                slot.exponentials = xt::zeros<double>({slot.query_count, slot.key_count});
                slot.running_max = attn::Vector::from_shape({slot.query_count});
                slot.running_sum = attn::Vector::from_shape({slot.query_count});
                slot.accumulator = attn::Matrix::from_shape({slot.query_count, d_v});
            }
        }
    }

    // Each query alone: its state after every key tile is its row in that tile's slot.
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            const std::size_t qi = t / query_tile, row = t % query_tile;
            double top = -std::numeric_limits<double>::infinity(), total = 0.0;
            std::vector<double> sum(d_v, 0.0);
            bool started = false;
            for (std::size_t ki = 0; ki < key_tiles; ++ki) {
                attn::OnlineSoftmaxTile& slot = out.trace[(b * query_tiles + qi) * key_tiles + ki];
                if (!slot.skipped) {
                    std::vector<double> score(slot.key_count);
                    double tile_top = -std::numeric_limits<double>::infinity();
                    for (std::size_t j = 0; j < slot.key_count; ++j) {
                        const std::size_t s = slot.first_key + j;
                        if (!visible(t, s)) {
                            score[j] = -std::numeric_limits<double>::infinity();
                            continue;
                        }
                        double dot = 0.0;
                        for (std::size_t x = width; x-- > 0;) dot += K(b, s, x) * Q(b, t, x);
                        score[j] = dot / root;
                        tile_top = std::max(tile_top, score[j]);
                    }
                    const double next_top = std::max(top, tile_top);
                    const double factor = started ? std::exp(top - next_top) : 0.0;  // nothing to move before the first key
                    slot.rescale(row) = factor;
                    total *= factor;
                    for (double& v : sum) v *= factor;
                    for (std::size_t j = 0; j < slot.key_count; ++j) {
                        if (!visible(t, slot.first_key + j)) continue;
                        const double w = std::exp(score[j] - next_top);
                        slot.exponentials(row, j) = w;
                        total += w;
                        for (std::size_t x = 0; x < d_v; ++x) sum[x] += w * V(b, slot.first_key + j, x);
                    }
                    top = next_top;
                    started = true;
                }
                slot.running_max(row) = top;
                slot.running_sum(row) = total;
                for (std::size_t x = 0; x < d_v; ++x) slot.accumulator(row, x) = sum[x];
            }
            for (std::size_t x = 0; x < d_v; ++x) out.output(b, t, x) = sum[x] / total;
        }
    }
    return out;
}

}  // namespace exercise
