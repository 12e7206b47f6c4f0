#include "08-positions/exercise/mistakes.hpp"

#include <cmath>

#include "attn/positions.hpp"

namespace attn::mistakes {

namespace {

// The sinusoidal table with one of the three slips: row t is position t + first_position; pair
// i's wavelength is 10000^(exponent_numerator(i) / D); `swapped` puts the cosine first.
struct TableSlip {
    std::size_t first_position = 0;
    bool exponent_without_two = false;
    bool swapped = false;
};

Matrix slipped_table(std::size_t T, std::size_t D, const TableSlip& slip) {
    Matrix table = Matrix::from_shape({T, D});
    for (std::size_t column = 0; column < D; ++column) {
        const std::size_t pair = column / 2;
        const double numerator = static_cast<double>(slip.exponent_without_two ? pair : 2 * pair);
        const double wavelength = std::pow(sinusoid_base, numerator / static_cast<double>(D));
        const bool sine = (column % 2 == 0) != slip.swapped;
        for (std::size_t t = 0; t < T; ++t) {
            const double angle = static_cast<double>(t + slip.first_position) / wavelength;
            table(t, column) = sine ? std::sin(angle) : std::cos(angle);
        }
    }
    return table;
}

}  // namespace

Matrix positions_sin_cos_swapped(std::size_t T, std::size_t d_model) {
    return slipped_table(T, d_model, {0, false, true});
}

Matrix positions_exponent_without_two(std::size_t T, std::size_t d_model) {
    return slipped_table(T, d_model, {0, true, false});
}

Matrix positions_counted_from_one(std::size_t T, std::size_t d_model) {
    return slipped_table(T, d_model, {1, false, false});
}

Tensor4 rope_other_layout(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout, double base) {
    const RopeLayout other = layout == RopeLayout::halves ? RopeLayout::pairs : RopeLayout::halves;
    return rotary_embedding(x, positions, other, base);
}

Tensor4 rope_angle_negated(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout, double base) {
    const Matrix negated = -rotary_angles(positions, x.shape(3), base);
    return rotate_feature_pairs(x, negated, layout);
}

Matrix rope_angles_exponent_without_two(const std::vector<std::int64_t>& positions, std::size_t d_k, double base) {
    // base^(−i/d_k) is base^(−2i/(2 d_k)): the right frequencies of a width twice d_k, first half.
    const Vector wide = rotary_frequencies(2 * d_k, base);
    Matrix angles = Matrix::from_shape({positions.size(), d_k / 2});
    for (std::size_t t = 0; t < positions.size(); ++t) {
        for (std::size_t i = 0; i < d_k / 2; ++i) angles(t, i) = static_cast<double>(positions[t]) * wide(i);
    }
    return angles;
}

Tensor4 rope_exponent_without_two(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout,
                                  double base) {
    return rotate_feature_pairs(x, rope_angles_exponent_without_two(positions, x.shape(3), base), layout);
}

}  // namespace attn::mistakes
