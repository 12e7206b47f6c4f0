// attn/softmax_backward.hpp — the gradient of softmax over the last axis (lesson 10: the backward
// pass).
//
// Where the backwards live: every backward of the library has its own header beside its forward,
// `X_backward.hpp` next to `X.hpp`, so that the forward headers the lessons 1–9 read stay as they
// are and the backward of a layer can be read on its own, forward and backward side by side.
//
// Why not the Jacobian: for one row p = softmax(s), ∂p_i/∂s_j = p_i (δ_ij − p_j), the (S, S)
// matrix diag(p) − p pᵀ. Multiplied by the upstream gradient dp it collapses to
//
//   ds = p ∘ (dp − (dp · p))          one dot product per row, never an (S, S) matrix
//
// which is what every attention kernel computes. A masked key has p = 0, so its ds is 0; a row
// whose keys are all masked (the library's zero-weights policy, attn/softmax.hpp) is all zeros
// and gets ds = 0, never NaN.
//
// Shapes: the weights p and the upstream gradient dp have the same shape (…, S); ds has it too.
//
//   attn::Matrix p = {{0.25, 0.25, 0.5}}, dp = {{1, 0, 0}};
//   attn::softmax_backward(p, dp);   // dp · p = 0.25 → {{0.25 · 0.75, 0.25 · −0.25, 0.5 · −0.25}}
#pragma once

#include <cstddef>

#include "attn/tensor.hpp"

namespace attn {

/// ds = p ∘ (dp − rowsum(dp ∘ p)) over `rows` consecutive rows of `columns` values (row-major).
/// `weights` are the softmax's outputs, `grad_weights` the upstream gradient; writes `grad_scores`.
void softmax_rows_backward(const double* weights, const double* grad_weights, double* grad_scores, std::size_t rows,
                           std::size_t columns);

/// The gradient with respect to the softmax's input (the scores), given its output `weights` and
/// the gradient of the loss with respect to them. ShapeError when the two shapes differ,
/// InputError when grad_weights holds NaN or ±∞.
Vector softmax_backward(const Vector& weights, const Vector& grad_weights);
Matrix softmax_backward(const Matrix& weights, const Matrix& grad_weights);
Tensor3 softmax_backward(const Tensor3& weights, const Tensor3& grad_weights);
Tensor4 softmax_backward(const Tensor4& weights, const Tensor4& grad_weights);

}  // namespace attn
