// attn/linear_backward.hpp — the gradients of y = x Wᵀ + b (lesson 10: the backward pass).
//
// Why these three products: y_nk = Σ_i x_ni W_ki + b_k, so a change of W_ki moves every row's y_nk
// by x_ni, a change of b_k moves every row's y_nk by 1, and a change of x_ni moves y_nk by W_ki
// for every k. With dY the gradient of the loss with respect to y:
//
//   dW = dYᵀ X     (out, in), nn.Linear's layout, like W itself
//   db = Σ_n dY    (out), the column sums of dY
//   dX = dY W      (N, in)
//
// A forward without a bias still gets `bias` (the gradient a bias would get); ignore it.
//
// Shapes: N rows (or B, T: every position one row) · in · out
//   x (N, in) · weight (out, in) · grad_output (N, out) → grad.x (N, in), .weight (out, in), .bias (out)
//
//   attn::Matrix x = {{1, 2}}, W = {{1, 0}, {0, 1}, {1, 1}}, dY = {{1, 0, 1}};
//   auto grad = attn::linear_backward(x, W, dY);
//   // grad.weight = {{1, 2}, {0, 0}, {1, 2}}   grad.bias = {1, 0, 1}   grad.x = {{2, 1}}
#pragma once

#include "attn/tensor.hpp"

namespace attn {

/// The gradient with respect to each input of linear, named like it; X is Matrix or Tensor3.
template <class X>
struct LinearGradientsOf {
    X x;            // like x: (N, in) or (B, T, in)
    Matrix weight;  // (out, in)
    Vector bias;    // (out)
};
using LinearGradients = LinearGradientsOf<Matrix>;
using SequenceLinearGradients = LinearGradientsOf<Tensor3>;

/// The backward of linear(x, weight[, bias]) given grad_output = ∂loss/∂y. Throws ShapeError
/// naming x, weight or grad_output and the shape it must have, InputError when grad_output holds
/// NaN or ±∞ (named with its index).
LinearGradients linear_backward(const Matrix& x, const Matrix& weight, const Matrix& grad_output);
SequenceLinearGradients linear_backward(const Tensor3& x, const Matrix& weight, const Tensor3& grad_output);

}  // namespace attn
