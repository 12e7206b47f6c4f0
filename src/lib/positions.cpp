#include "attn/positions.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

Matrix sinusoidal_positions(std::size_t T, std::size_t d_model) {
    if (T == 0 || d_model == 0) {
        throw InputError("sinusoidal_positions: T = " + std::to_string(T) + " and d_model = " + std::to_string(d_model) +
                         "; both must be at least 1");
    }
    checked_value_count({T, d_model}, "sinusoidal_positions: the (T, d_model) table");
    const std::size_t D = d_model;
    Matrix encoding = Matrix::from_shape({T, D});  // (T, D)
    for (std::size_t column = 0; column < D; ++column) {
        // Columns 2i and 2i+1 share the wavelength of pair i: 10000^(2i/D) (divided by 2π).
        const double two_i = static_cast<double>(column - column % 2);
        const double wavelength = std::pow(sinusoid_base, two_i / static_cast<double>(D));
        for (std::size_t p = 0; p < T; ++p) {
            const double angle = static_cast<double>(p) / wavelength;
            encoding(p, column) = column % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    }
    return encoding;
}

}  // namespace attn
