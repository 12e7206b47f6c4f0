// attn/layer_norm.hpp — layer normalisation over the last axis, as PyTorch's nn.LayerNorm does it,
// and the Annotated Transformer's variant kept for comparison (lessons/06-encoder-layer).
//
// Why two: the Annotated Transformer (seed 003) divides by the *unbiased* standard deviation plus
// eps; nn.LayerNorm divides by the square root of the *biased* variance plus eps. The same input
// gives different numbers — on [1, 0, 0, 0] the first element is 1.732 with PyTorch's and 1.5 with
// the annotated one — so a student comparing with PyTorch must know which is which. The library's
// encoder layer uses PyTorch's.
//
// Shapes: N rows (any leading axes flattened) · D features
//   x (…, D) · weight (D) · bias (D) → (…, D);  mean and variance have one value per row.
//
//   attn::Matrix x = {{1, 0, 0, 0}};
//   attn::layer_norm(x, {1, 1, 1, 1}, {0, 0, 0, 0}).output;   // {{1.7320, -0.5773, -0.5773, -0.5773}}
//   attn::annotated_layer_norm(x, {1, 1, 1, 1}, {0, 0, 0, 0}).output;   // {{1.5, -0.5, -0.5, -0.5}}
#pragma once

#include "attn/tensor.hpp"

namespace attn {

/// PyTorch's default eps for nn.LayerNorm.
constexpr double default_layer_norm_eps = 1e-5;

struct LayerNormStep {
    Vector mean;        // (N) mean of each row
    Vector variance;    // (N) biased variance (÷D) for layer_norm; unbiased (÷(D−1)) for annotated_layer_norm
    Matrix normalized;  // (N, D) (x − mean) / the row's scale, before weight and bias
    Matrix output;      // (N, D) normalized · weight + bias
};

/// nn.LayerNorm: (x − mean) / sqrt(biased variance + eps) · weight + bias, per row of x (N, D).
/// Throws ShapeError when weight or bias is not (D), InputError when eps ≤ 0.
LayerNormStep layer_norm(const Matrix& x, const Vector& weight, const Vector& bias, double eps = default_layer_norm_eps);

/// The Annotated Transformer's LayerNorm: (x − mean) / (unbiased std + eps) · weight + bias.
/// Needs D ≥ 2 (the unbiased std of one value is undefined). Its usual eps is 1e-6.
LayerNormStep annotated_layer_norm(const Matrix& x, const Vector& weight, const Vector& bias, double eps = 1e-6);

/// layer_norm over the last axis of (B, T, D), returning only the output.
Tensor3 layer_norm(const Tensor3& x, const Vector& weight, const Vector& bias, double eps = default_layer_norm_eps);

}  // namespace attn
