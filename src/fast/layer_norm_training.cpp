// nn.LayerNorm's forward and backward on float32 rows (layer_norm_training.hpp).
#include "layer_norm_training.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn::fast::detail {

namespace {

// Splits [0, n) into about one block per worker and runs block(begin, end) on each.
template <class Block>
void for_blocks(std::size_t n, WorkerPool& pool, const Block& block) {
    const std::size_t parts = std::max<std::size_t>(1, std::min(pool.size(), n / 16));
    pool.run(parts, [&](std::size_t part, std::size_t) {
        const std::size_t begin = n * part / parts, end = n * (part + 1) / parts;
        if (end > begin) block(begin, end);
    });
}

}  // namespace

void layer_norm_forward(const float* x, std::size_t rows, std::size_t D, const float* gamma, const float* beta,
                        float eps, float* y, float* mean, float* inverse_std, WorkerPool& pool) {
    for_blocks(rows, pool, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
            const float* row = x + r * D;
            double sum = 0;
            for (std::size_t d = 0; d < D; ++d) sum += row[d];
            const double mu = sum / double(D);
            double squares = 0;
            for (std::size_t d = 0; d < D; ++d) squares += (row[d] - mu) * (row[d] - mu);
            const float m = static_cast<float>(mu);
            const float s = static_cast<float>(1.0 / std::sqrt(squares / double(D) + double(eps)));
            mean[r] = m;
            inverse_std[r] = s;
            float* out = y + r * D;
            for (std::size_t d = 0; d < D; ++d) out[d] = (row[d] - m) * s * gamma[d] + beta[d];
        }
    });
}

void layer_norm_backward(const float* x, const float* mean, const float* inverse_std, const float* gamma,
                         const float* dy, std::size_t rows, std::size_t D, float* dx, float* d_gamma, float* d_beta,
                         WorkerPool& pool) {
    for_blocks(rows, pool, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
            const float* row = x + r * D;
            const float* g_row = dy + r * D;
            const float m = mean[r], s = inverse_std[r];
            double g_sum = 0, gx_sum = 0;
            for (std::size_t d = 0; d < D; ++d) {
                const float g = g_row[d] * gamma[d];
                g_sum += g;
                gx_sum += double(g) * double((row[d] - m) * s);
            }
            const float g_mean = static_cast<float>(g_sum / double(D));
            const float gx_mean = static_cast<float>(gx_sum / double(D));
            float* out = dx + r * D;
            for (std::size_t d = 0; d < D; ++d) {
                const float normed = (row[d] - m) * s;
                out[d] += s * (g_row[d] * gamma[d] - g_mean - normed * gx_mean);
            }
        }
    });
    for_blocks(D, pool, [&](std::size_t begin, std::size_t end) {
        std::vector<double> gamma_sums(end - begin, 0.0), beta_sums(end - begin, 0.0);
        for (std::size_t r = 0; r < rows; ++r) {
            const float* row = x + r * D;
            const float* g_row = dy + r * D;
            for (std::size_t d = begin; d < end; ++d) {
                gamma_sums[d - begin] += double(g_row[d]) * double((row[d] - mean[r]) * inverse_std[r]);
                beta_sums[d - begin] += g_row[d];
            }
        }
        for (std::size_t d = begin; d < end; ++d) {
            d_gamma[d] = static_cast<float>(gamma_sums[d - begin]);
            d_beta[d] = static_cast<float>(beta_sums[d - begin]);
        }
    });
}

}  // namespace attn::fast::detail
