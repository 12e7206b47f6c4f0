// src/lib/attention_backward.hpp — private to the library: the backward of P V with P =
// softmax(scale · Q Kᵀ + M), on a stack of independent blocks. Scaled dot-product attention's
// blocks are its batch items; multi-head attention's are its (batch, head) pairs, the
// (B, h, ·, ·) tensors read as (B·h, ·, ·) — the same row-major memory.
#pragma once

#include "attn/dropout.hpp"
#include "attn/scaled_dot_product_attention_backward.hpp"

namespace attn::detail {

/// Q (M, T, d_k), K (M, S, d_k), V (M, S, d_v), weights P (M, T, S), grad_output dO (M, T, d_v):
/// dV = Pᵀ dO, dS = softmax_backward(P, dO Vᵀ), dQ = scale · dS K, dK = scale · dSᵀ Q.
/// With training's dropout on the weights (its mask (M, T, S) from the forward), P' = dropout(P)
/// weighed the values: dV = P'ᵀ dO and dP = dropout_backward(dO Vᵀ). The shapes are the caller's
/// to check.
ScaledDotProductAttentionGradients attention_blocks_backward(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                                             const Tensor3& weights, const Tensor3& grad_output,
                                                             double scale,
                                                             const DropoutMask<Tensor3>& weights_dropout = {});

}  // namespace attn::detail
