// attn/feed_forward_backward.hpp — the gradients of FFN(x) = activation(x W1ᵀ + b1) W2ᵀ + b2
// (lesson 10: the backward pass).
//
// Why: the network is two linear maps (attn/linear_backward.hpp) around an element-wise
// activation, so its backward is the second map's backward, the activation's derivative applied
// element by element, and the first map's backward. The derivatives, at the pre-activation u:
//
//   relu       1 where u > 0, else 0 (at u = 0 too, as PyTorch)
//   gelu       Φ(u) + u φ(u)                       Φ, φ: the standard normal's cdf and density
//   gelu_tanh  ½(1 + t) + ½ u (1 − t²) · k (1 + 3 · 0.044715 u²),  t = tanh(k (u + 0.044715 u³)),
//              k = √(2/π): PyTorch's formula for approximate="tanh"
//
// When the forward dropped out the hidden layer (training), its mask, kept in the step, is applied
// again on the way back: linear2 read the dropped hidden layer, and the hidden layer's gradient
// is dropped out with the same mask (attn/dropout.hpp).
//
// Shapes: N rows · D model width · F inner width
//   x (N, D) · linear1_weight (F, D) · linear2_weight (D, F) · forward.hidden_preactivation,
//   forward.hidden (N, F) · grad_output (N, D)
//   → grad.x (N, D), .linear1_weight (F, D), .linear1_bias (F), .linear2_weight (D, F), .linear2_bias (D)
//
//   auto step = attn::feed_forward(x, W1, b1, W2, b2, attn::Activation::gelu);
//   auto grad = attn::feed_forward_backward(x, W1, W2, step, attn::Activation::gelu, dy);
#pragma once

#include "attn/feed_forward.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The gradient with respect to each input of feed_forward, named like it.
struct FeedForwardGradients {
    Matrix x;               // (N, D)
    Matrix linear1_weight;  // (F, D)
    Vector linear1_bias;    // (F)
    Matrix linear2_weight;  // (D, F)
    Vector linear2_bias;    // (D)
};

/// ∂loss/∂u from ∂loss/∂activation(u), element-wise: grad_hidden ∘ activation′(preactivation).
/// ShapeError when the two shapes differ.
Matrix activation_backward(const Matrix& preactivation, const Matrix& grad_hidden, Activation activation);

/// The backward of feed_forward(x, linear1_weight, linear1_bias, linear2_weight, linear2_bias,
/// activation), which returned `forward`; grad_output is ∂loss/∂forward.output. Throws ShapeError
/// naming the tensor that disagrees and the shape it must have, InputError when grad_output holds
/// NaN or ±∞ (named with its index).
FeedForwardGradients feed_forward_backward(const Matrix& x, const Matrix& linear1_weight, const Matrix& linear2_weight,
                                           const FeedForwardStep& forward, Activation activation,
                                           const Matrix& grad_output);

}  // namespace attn
