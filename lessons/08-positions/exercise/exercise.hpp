// Exercise 8 — the functions you write (in lessons/08-positions/exercise/exercise.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "attn/rotary.hpp"      // attn::RopeLayout
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// The sinusoidal table of "Attention Is All You Need", positions 0 … T − 1:
///   PE(p, 2i) = sin(p / 10000^(2i/D)),  PE(p, 2i+1) = cos(p / 10000^(2i/D))
///   T ≥ 1, d_model = D ≥ 1 (an odd D ends with the sine of its last pair) → (T, D)
attn::Matrix sinusoidal_positions(std::size_t T, std::size_t d_model);

/// RoPE's angles: angles(t, i) = positions[t] · θ_i, with θ_i = base^(−2i/d_k) the turn of pair i
/// per position.
///   positions (T); d_k even; base > 0 → (T, d_k/2)
attn::Matrix rotary_angles(const std::vector<std::int64_t>& positions, std::size_t d_k, double base);

/// RoPE: pair i of the features of x at position positions[t] turned by φ = rotary_angles(…)(t, i):
/// a' = a cos φ − b sin φ, b' = b cos φ + a sin φ.
/// The pairs are (i, i + d_k/2) with RopeLayout::halves (Hugging Face's rotate_half) and
/// (2i, 2i + 1) with RopeLayout::pairs (RoFormer, GPT-J, Meta's LLaMA).
///   x (B, h, T, d_k), d_k even; positions (T), each ≥ 0; base > 0 → (B, h, T, d_k)
attn::Tensor4 rotary_embedding(const attn::Tensor4& x, const std::vector<std::int64_t>& positions,
                               attn::RopeLayout layout, double base);

}  // namespace exercise
