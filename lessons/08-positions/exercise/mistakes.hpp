// lessons/08-positions/exercise/mistakes.hpp — lesson 8's classic mistakes (the sinusoidal table
// and RoPE), made on purpose.
//
//   table: T positions, D = d_model → (T, D), as attn::sinusoidal_positions
//   RoPE: x (B, h, T, d_k), positions (T), layout, base → angles (T, d_k/2) and the turned x
//   (B, h, T, d_k), as attn::rotary_angles and attn::rotary_embedding
//
// Each computes the whole result the way its mistake does; nothing else changes. The lesson shows
// some of them as traps (the layouts swapped), the exercise's diagnosis names them all.
//
//   attn::mistakes::positions_sin_cos_swapped(3, 4);   // row 0 = {1, 0, 1, 0}: cos in the even columns
#pragma once

#include <cstdint>
#include <vector>

#include "attn/rotary.hpp"

namespace attn::mistakes {

/// Sine and cosine swapped: PE(p, 2i) = cos(…), PE(p, 2i+1) = sin(…). Row 0 shows it at once,
/// {1, 0, 1, 0, …} instead of {0, 1, 0, 1, …}.
Matrix positions_sin_cos_swapped(std::size_t T, std::size_t d_model);

/// The exponent i/D instead of 2i/D (i the pair's number, not the column's): pair i's wavelength
/// is 10000^(i/D), so every pair after the first turns too fast. Pair 0 is unchanged.
Matrix positions_exponent_without_two(std::size_t T, std::size_t d_model);

/// Positions counted from 1: row t holds PE(t + 1), so the first row is not {0, 1, 0, 1, …}.
Matrix positions_counted_from_one(std::size_t T, std::size_t d_model);

/// RoPE with the other layout's pairs: (2i, 2i+1) where (i, i + d_k/2) was asked, and the
/// reverse. The same when d_k = 2 (one pair, the same in both layouts).
Tensor4 rope_other_layout(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout, double base);

/// RoPE turned the other way: by −φ instead of φ = position · θ_i, with the angles themselves
/// right: a' = a cos φ + b sin φ, b' = b cos φ − a sin φ, what a sin with the wrong sign or
/// rotate_half's halves in the wrong order give. Scores then depend on n − m instead of m − n.
Tensor4 rope_angle_negated(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout, double base);

/// RoPE's angles with the exponent −i/d_k instead of −2i/d_k: positions[t] · base^(−i/d_k), (T, d_k/2).
/// The same when d_k = 2 (θ_0 = 1 either way).
Matrix rope_angles_exponent_without_two(const std::vector<std::int64_t>& positions, std::size_t d_k, double base);

/// RoPE turned by those angles.
Tensor4 rope_exponent_without_two(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout,
                                  double base);

}  // namespace attn::mistakes
