// Exercise 8 — a solution (CI checks that it passes: -DATTN_EXERCISE_SOLUTIONS=ON).
//
// The functions loop over what the formulas index: the table column by column (each column's
// wavelength computed once), the angles pair by pair, and RoPE turns each pair by its angle.
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

attn::Matrix rotary_angles(const std::vector<std::int64_t>& positions, std::size_t d_k, double base) {
    attn::Matrix angles = attn::Matrix::from_shape({positions.size(), d_k / 2});  // (T, d_k/2)
    for (std::size_t i = 0; i < d_k / 2; ++i) {
        const double theta = std::pow(base, -double(2 * i) / double(d_k));
        for (std::size_t t = 0; t < positions.size(); ++t) angles(t, i) = double(positions[t]) * theta;
    }
    return angles;
}

attn::Tensor4 rotary_embedding(const attn::Tensor4& x, const std::vector<std::int64_t>& positions,
                               attn::RopeLayout layout, double base) {
    const std::size_t B = x.shape(0), h = x.shape(1), T = x.shape(2), d_k = x.shape(3), half = d_k / 2;
    const attn::Matrix angles = rotary_angles(positions, d_k, base);  // (T, d_k/2)
    attn::Tensor4 out = attn::Tensor4::from_shape({B, h, T, d_k});
    for (std::size_t batch = 0; batch < B; ++batch) {
        for (std::size_t head = 0; head < h; ++head) {
            for (std::size_t t = 0; t < T; ++t) {
                for (std::size_t i = 0; i < half; ++i) {
                    const double angle = angles(t, i);
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
