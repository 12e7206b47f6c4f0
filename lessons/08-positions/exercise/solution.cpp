// Exercise 8 — a solution (CI checks that it passes: -DATTN_EXERCISE_SOLUTIONS=ON).
//
// Both functions loop over what the formulas index: the table column by column (each column's
// wavelength computed once), RoPE pair by pair.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::Matrix sinusoidal_positions(std::size_t T, std::size_t d_model) {
    attn::Matrix pe = attn::Matrix::from_shape({T, d_model});  // (T, D)
    for (std::size_t column = 0; column < d_model; ++column) {
        const std::size_t i = column / 2;  // columns 2i and 2i+1 belong to pair i
        const double wavelength = std::pow(10000.0, double(2 * i) / double(d_model));
        for (std::size_t p = 0; p < T; ++p) {
            const double angle = double(p) / wavelength;
            pe(p, column) = column % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    }
    return pe;
}

attn::Tensor4 rotary_embedding(const attn::Tensor4& x, const std::vector<std::int64_t>& positions,
                               attn::RopeLayout layout, double base) {
    const std::size_t B = x.shape(0), h = x.shape(1), T = x.shape(2), d_k = x.shape(3), half = d_k / 2;
    attn::Tensor4 out = attn::Tensor4::from_shape({B, h, T, d_k});
    for (std::size_t batch = 0; batch < B; ++batch) {
        for (std::size_t head = 0; head < h; ++head) {
            for (std::size_t t = 0; t < T; ++t) {
                for (std::size_t i = 0; i < half; ++i) {
                    const double theta = std::pow(base, -double(2 * i) / double(d_k));
                    const double angle = double(positions[t]) * theta;
                    // The two features (a, b) of pair i.
                    const std::size_t first = layout == attn::RopeLayout::halves ? i : 2 * i;
                    const std::size_t second = layout == attn::RopeLayout::halves ? i + half : 2 * i + 1;
                    const double a = x(batch, head, t, first), b = x(batch, head, t, second);
                    out(batch, head, t, first) = a * std::cos(angle) - b * std::sin(angle);
                    out(batch, head, t, second) = b * std::cos(angle) + a * std::sin(angle);
                }
            }
        }
    }
    return out;
}

}  // namespace exercise
