// attn/tensor.hpp — the tensor types every lesson uses.
//
// Why: one place fixes the element type and the containers. The readable lesson path computes in
// double so that the numbers printed to 4 decimals are right to the last digit; inputs in float32
// are widened on the way in. Shapes use the letters of docs/notation.md:
//
//   B batch · S source positions (keys) · T target positions (queries) · H hidden size
//   D model width · h heads · d_k = D / h per-head width · F feed-forward width
//
//   attn::Tensor3 encoder_outputs = {{{1, 2, 3}, {2, 2, 3}}};   // (B=1, S=2, H=3)
//   encoder_outputs.shape(2);                                    // 3
#pragma once

#include <algorithm>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

namespace attn {

using Vector = xt::xtensor<double, 1>;
using Matrix = xt::xtensor<double, 2>;
using Tensor3 = xt::xtensor<double, 3>;
using Tensor4 = xt::xtensor<double, 4>;
/// A tensor whose rank is only known at run time (files, lesson documents).
using DynamicTensor = xt::xarray<double>;

/// (B, T, D) as the (B·T, D) matrix it is in row-major memory: a position-wise layer (a layer
/// norm, the feed-forward network) treats every position of every sequence as one row.
inline Matrix rows_of(const Tensor3& x) {
    Matrix rows = Matrix::from_shape({x.shape(0) * x.shape(1), x.shape(2)});
    std::copy(x.begin(), x.end(), rows.begin());
    return rows;
}

/// The inverse of rows_of: (B·T, D) rows back into (B, T, D).
inline Tensor3 positions_of(const Matrix& rows, std::size_t B, std::size_t T) {
    Tensor3 x = Tensor3::from_shape({B, T, rows.shape(1)});
    std::copy(rows.begin(), rows.end(), x.begin());
    return x;
}

}  // namespace attn
