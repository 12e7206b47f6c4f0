// attn/linear.hpp — y = x Wᵀ + b, the affine map every learned attention is built from.
//
// Why PyTorch's layout: weights are stored as `nn.Linear` stores them, (out, in), so a weight
// taken from a PyTorch state_dict works here unchanged (docs/notation.md). The map applies to the
// last axis; any leading axes (batch, positions) are carried through.
//
// Shapes: x (..., in) · weight (out, in) · bias (out) → (..., out)
//
//   attn::Matrix x = {{1, 2}};                 // (N=1, in=2)
//   attn::Matrix W = {{1, 0}, {0, 1}, {1, 1}}; // (out=3, in=2)
//   attn::linear(x, W, attn::Vector{0, 0, 10}); // {{1, 2, 13}}
#pragma once

#include <string>

#include "attn/tensor.hpp"

namespace attn {

/// x (N, in) → (N, out). `weight_name` names the weight in a ShapeError ("W_a has shape ...").
Matrix linear(const Matrix& x, const Matrix& weight, const std::string& weight_name = "weight");
Matrix linear(const Matrix& x, const Matrix& weight, const Vector& bias, const std::string& weight_name = "weight");

/// x (B, T, in) → (B, T, out).
Tensor3 linear(const Tensor3& x, const Matrix& weight, const std::string& weight_name = "weight");
Tensor3 linear(const Tensor3& x, const Matrix& weight, const Vector& bias, const std::string& weight_name = "weight");

}  // namespace attn
