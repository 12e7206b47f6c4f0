// attn/softmax.hpp — softmax over the last axis, the one step every attention shares.
//
// Why its own function: the textbook one-liner `exp(x - amax(x, {1}, keep_dims))` computes wrong
// numbers with Debian's xtensor 0.24.3 (a lazy keep_dims reducer broadcast along the reduced axis
// reads out of bounds). This version works on each row in three passes over contiguous memory.
//
// Masked positions are −∞. A row whose every entry is −∞ (a query with nothing to attend to)
// becomes all zeros: the library's policy, chosen so that no NaN ever leaves it. A row holding
// NaN stays NaN; a +∞ entry gets all the weight.
//
//   attn::Matrix scores = {{50, 57}, {19, 19}};
//   attn::softmax_last_axis(scores);   // {{0.000911, 0.999089}, {0.5, 0.5}}
#pragma once

#include <cstddef>

#include "attn/tensor.hpp"

namespace attn {

/// Softmax in place over `rows` consecutive rows of `columns` values each (row-major memory).
void softmax_rows_in_place(double* data, std::size_t rows, std::size_t columns);

/// Softmax over the last axis; returns a new tensor of the same shape.
Vector softmax_last_axis(const Vector& scores);
Matrix softmax_last_axis(const Matrix& scores);
Tensor3 softmax_last_axis(const Tensor3& scores);
Tensor4 softmax_last_axis(const Tensor4& scores);

}  // namespace attn
