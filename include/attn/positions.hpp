// attn/positions.hpp — the sinusoidal positional encoding of "Attention Is All You Need" (lesson 8).
//
// Why: attention alone cannot tell the order of its tokens (shuffle them and the outputs come back
// shuffled the same way). The Transformer adds to each token's embedding a vector that depends only
// on its position: pair i of features (columns 2i and 2i+1) is a sine and a cosine of the position
// at the frequency 1 / 10000^(2i/D), from one turn per 2π positions (i = 0) down to one turn per
// about 2π · 10000 positions. Because each pair is a point on a circle, moving k positions turns
// every pair by a fixed angle, and PE(p) · PE(q) depends only on |p − q|.
//
// Shapes: T positions · D model width (d_model)
//   → (T, D);  PE(p, 2i) = sin(p / 10000^(2i/D)),  PE(p, 2i+1) = cos(p / 10000^(2i/D))
//
// An odd D: the formula is applied as written, so the last column, D − 1 = 2i, is the sine of its
// pair and has no cosine partner (its exponent is (D − 1)/D). The Annotated Transformer's code
// (seed 003) cannot build this table — its `pe[:, 1::2] = torch.cos(position * div_term)` fails
// on a shape mismatch — so the lesson uses even widths; `attn view --sentence --d-model 5` uses
// this rule.
//
//   attn::sinusoidal_positions(3, 4);
//   // {{0,        1,        0,    1},
//   //  {sin 1,    cos 1,    sin 0.01, cos 0.01},      10000^(2/4) = 100
//   //  {sin 2,    cos 2,    sin 0.02, cos 0.02}}
#pragma once

#include <cstddef>

#include "attn/tensor.hpp"

namespace attn {

/// The base of the wavelengths, 10000 in the paper.
constexpr double sinusoid_base = 10000.0;

/// (T, D): the table above, positions 0 … T − 1. Throws InputError when T or D is 0, or when
/// T · D is more than max_tensor_values (attn/shape.hpp), before allocating.
Matrix sinusoidal_positions(std::size_t T, std::size_t d_model);

}  // namespace attn
