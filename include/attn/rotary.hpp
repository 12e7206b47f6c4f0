// attn/rotary.hpp — rotary position embeddings, RoPE (Su et al. 2021, RoFormer), in the two
// feature layouts models use (lesson 8).
//
// Why: instead of adding a position vector to the input, RoPE turns each pair of features of a
// query or a key, after the projections and per head, by the angle position · θ_i, with
// θ_i = base^(−2i/d_k). A rotation keeps lengths and the dot product of two vectors turned by
// angles a and b depends only on a − b, so q_m · k_n depends only on m − n: attention sees
// relative positions. Values (v) are never turned.
//
// The two layouts — the same idea, different numbers. Which features form pair i:
//   RopeLayout::halves  (i, i + d_k/2): Hugging Face's `rotate_half` (LLaMA, Mistral, Qwen in
//                       transformers; GPT-NeoX)
//   RopeLayout::pairs   (2i, 2i + 1): the RoFormer paper, GPT-J's `rotate_every_two`, Meta's
//                       original LLaMA code (complex numbers of adjacent features)
// With (a, b) the two features of pair i and φ = position · θ_i, both layouts compute
//   a' = a cos φ − b sin φ,   b' = b cos φ + a sin φ.
// Weights trained in one layout give wrong scores in the other (the features are paired
// differently); converting checkpoints between them permutes the rows of W_q and W_k.
//
// Shapes: B batch · h heads · T positions · d_k per-head width (even) · d_k/2 pairs
//   x (B, h, T, d_k) · positions (T) → (B, h, T, d_k);  angles (T, d_k/2)
//
//   attn::rotary_frequencies(4);                   // {1, 0.01}: θ_0 = 10000^0, θ_1 = 10000^(−2/4)
//   attn::rotary_angles({0, 1, 2}, 4);              // {{0, 0}, {1, 0.01}, {2, 0.02}}
//   attn::Tensor4 q = {{{{1, 0, 0, 0}}}};          // (1, 1, 1, 4)
//   attn::rotary_embedding(q, {1}, attn::RopeLayout::halves);   // {{{{cos 1, 0, sin 1, 0}}}}
//   attn::rotary_embedding(q, {1}, attn::RopeLayout::pairs);    // {{{{cos 1, sin 1, 0, 0}}}}
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

/// Which features are rotated together (see above).
enum class RopeLayout { halves, pairs };

/// "halves" / "pairs".
const char* rope_layout_name(RopeLayout layout);

/// The base of RoPE's frequencies in RoFormer and LLaMA 1–2 (LLaMA 3 uses 500000).
constexpr double default_rope_base = 10000.0;

/// (d_k/2): θ_i = base^(−2i/d_k), the angle pair i turns by per position. InputError when d_k is
/// 0 or odd, or base is not a finite number above 0.
Vector rotary_frequencies(std::size_t d_k, double base = default_rope_base);

/// (T, d_k/2): positions[t] · θ_i, the angle each pair of position t is turned by. InputError as
/// rotary_frequencies, and when a position is negative or T is 0.
Matrix rotary_angles(const std::vector<std::int64_t>& positions, std::size_t d_k, double base = default_rope_base);

/// (B, h, T, d_k): pair i of x at position t turned by angles(t, i), the pairs chosen by `layout`
/// — the rotation alone, for angles of your own (rotary_embedding below gives it RoPE's). Throws
/// ShapeError when angles is not (T, d_k/2), InputError when d_k is odd or x or angles hold NaN or ±∞.
Tensor4 rotate_feature_pairs(const Tensor4& x, const Matrix& angles, RopeLayout layout);

/// (B, h, T, d_k): RoPE, rotate_feature_pairs(x, rotary_angles(positions, d_k, base), layout).
/// Throws ShapeError when positions does not have T values or x has a size 0, InputError as
/// rotary_angles and rotate_feature_pairs.
Tensor4 rotary_embedding(const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout,
                         double base = default_rope_base);

}  // namespace attn
