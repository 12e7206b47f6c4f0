// attn/layer_norm_backward.hpp — the gradients of nn.LayerNorm (lesson 10: the backward pass).
//
// Why two mean terms: each row is y = x̂ ∘ γ + β with x̂ = (x − μ) · r, r = 1/√(σ² + eps), and both
// μ and σ² are computed from the whole row, so moving one x_d moves every x̂ of its row: once
// through μ (every x̂ shifts by the same amount) and once through σ² (every x̂ scales by the same
// factor). With dx̂ = dy ∘ γ, per row of D features:
//
//   dx = r · (dx̂ − mean(dx̂) − x̂ ∘ mean(dx̂ ∘ x̂))      the first mean from μ, the second from σ²
//   dγ = Σ_rows dy ∘ x̂      dβ = Σ_rows dy
//
// Only PyTorch's layer norm (attn::layer_norm): it reads x̂ (forward.normalized) and σ²
// (forward.variance) from the forward's step, so nothing is normalised again.
//
// Shapes: N rows · D features
//   forward.normalized (N, D) · forward.variance (N) · weight (D) · grad_output (N, D)
//   → grad.x (N, D), .weight (D), .bias (D)
//
//   auto step = attn::layer_norm(x, gamma, beta);
//   auto grad = attn::layer_norm_backward(step, gamma, dy);   // the same eps as the forward
#pragma once

#include "attn/layer_norm.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The gradient with respect to each input of layer_norm, named like it.
struct LayerNormGradients {
    Matrix x;       // (N, D)
    Vector weight;  // (D) γ
    Vector bias;    // (D) β
};

/// The backward of layer_norm(x, weight, bias, eps), which returned `forward`; grad_output is
/// ∂loss/∂forward.output. Throws ShapeError naming the tensor that disagrees, InputError when
/// eps ≤ 0 or grad_output holds NaN or ±∞ (named with its index).
LayerNormGradients layer_norm_backward(const LayerNormStep& forward, const Vector& weight, const Matrix& grad_output,
                                       double eps = default_layer_norm_eps);

}  // namespace attn
