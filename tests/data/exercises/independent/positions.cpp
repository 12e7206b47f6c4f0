// Exercise 8, a second correct implementation written from lessons/08-positions/README.md alone:
// the table's frequencies as exp(−2i · ln 10000 / D), the Annotated Transformer's way, filled
// pair by pair; RoPE as Hugging Face writes it for halves (x · cos + rotate_half(x) · sin, with
// cos and sin repeated over both halves) and as Meta's LLaMA writes it for pairs (each adjacent
// pair a complex number, multiplied by e^(i·angle)).
#include <cmath>
#include <complex>
#include <vector>

#include "exercise.hpp"

namespace exercise {

attn::Matrix sinusoidal_positions(std::size_t T, std::size_t d_model) {
    attn::Matrix pe = attn::Matrix::from_shape({T, d_model});
    for (std::size_t even = 0; even < d_model; even += 2) {
#ifdef PLANTED_EXPONENT_WITHOUT_TWO
        const double frequency = std::exp(-double(even / 2) * std::log(10000.0) / double(d_model));  // i, not 2i
#else
        const double frequency = std::exp(-double(even) * std::log(10000.0) / double(d_model));
#endif
        for (std::size_t row = 0; row < T; ++row) {
#ifdef PLANTED_POSITIONS_FROM_ONE
            const double p = double(row + 1);
#else
            const double p = double(row);
#endif
#ifdef PLANTED_SIN_COS_SWAPPED
            pe(row, even) = std::cos(p * frequency);
            if (even + 1 < d_model) pe(row, even + 1) = std::sin(p * frequency);
#else
            pe(row, even) = std::sin(p * frequency);
            if (even + 1 < d_model) pe(row, even + 1) = std::cos(p * frequency);
#endif
        }
    }
    return pe;
}

namespace {

// One row of d_k features at one position, turned as Hugging Face's apply_rotary_pos_emb does.
std::vector<double> rotate_half_row(const std::vector<double>& row, const std::vector<double>& angle_of_pair) {
    const std::size_t half = row.size() / 2;
    std::vector<double> out(row.size());
    for (std::size_t f = 0; f < row.size(); ++f) {
        const double angle = angle_of_pair[f % half];                       // cat(freqs, freqs)
        const double rotated_half = f < half ? -row[f + half] : row[f - half];  // cat(−x2, x1)
        out[f] = row[f] * std::cos(angle) + rotated_half * std::sin(angle);
    }
    return out;
}

// The same row turned as Meta's LLaMA does it: (x_2i + i·x_2i+1) · e^(i·angle).
std::vector<double> complex_pairs_row(const std::vector<double>& row, const std::vector<double>& angle_of_pair) {
    std::vector<double> out(row.size());
    for (std::size_t i = 0; i < row.size() / 2; ++i) {
        const std::complex<double> turned = std::complex<double>(row[2 * i], row[2 * i + 1]) * std::polar(1.0, angle_of_pair[i]);
        out[2 * i] = turned.real();
        out[2 * i + 1] = turned.imag();
    }
    return out;
}

}  // namespace

attn::Matrix rotary_angles(const std::vector<std::int64_t>& positions, std::size_t d_k, double base) {
    attn::Matrix angles = attn::Matrix::from_shape({positions.size(), d_k / 2});
    for (std::size_t t = 0; t < positions.size(); ++t) {
        for (std::size_t i = 0; i < d_k / 2; ++i) {
#ifdef PLANTED_ROPE_EXPONENT_WITHOUT_TWO
            angles(t, i) = double(positions[t]) / std::pow(base, double(i) / double(d_k));
#else
            angles(t, i) = double(positions[t]) / std::pow(base, double(2 * i) / double(d_k));
#endif
        }
    }
    return angles;
}

attn::Tensor4 rotary_embedding(const attn::Tensor4& x, const std::vector<std::int64_t>& positions,
                               attn::RopeLayout layout, double base) {
    const std::size_t d_k = x.shape(3);
    const attn::Matrix table = rotary_angles(positions, d_k, base);
    attn::Tensor4 out = attn::Tensor4::from_shape(x.shape());
    std::vector<double> row(d_k), angles(d_k / 2);
    for (std::size_t b = 0; b < x.shape(0); ++b) {
        for (std::size_t head = 0; head < x.shape(1); ++head) {
            for (std::size_t t = 0; t < x.shape(2); ++t) {
                for (std::size_t i = 0; i < d_k / 2; ++i) {
#ifdef PLANTED_ANGLE_NEGATED
                    angles[i] = -table(t, i);  // the right angles, turned the wrong way
#else
                    angles[i] = table(t, i);
#endif
                }
                for (std::size_t f = 0; f < d_k; ++f) row[f] = x(b, head, t, f);
#if defined(PLANTED_ALWAYS_PAIRS)
                (void)layout;
                const std::vector<double> turned = complex_pairs_row(row, angles);
#elif defined(PLANTED_ALWAYS_HALVES)
                (void)layout;
                const std::vector<double> turned = rotate_half_row(row, angles);
#else
                const std::vector<double> turned =
                    layout == attn::RopeLayout::halves ? rotate_half_row(row, angles) : complex_pairs_row(row, angles);
#endif
                for (std::size_t f = 0; f < d_k; ++f) out(b, head, t, f) = turned[f];
            }
        }
    }
    return out;
}

}  // namespace exercise
