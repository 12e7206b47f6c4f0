// Exercise 10 — the functions you write (in lessons/10-backward/exercise/exercise.cpp).
#pragma once

#include <optional>

#include "attn/tensor.hpp"        // attn::Matrix, attn::Tensor3
#include "not_implemented.hpp"    // NotImplementedYet, what the stub throws

namespace exercise {

/// The softmax's backward, row by row: given the softmax's output P and the gradient dP of a loss
/// with respect to it, the gradient with respect to the softmax's input (the scores),
///   dS = P ∘ (dP − rowsum(dP ∘ P))          (one dot product per row)
///   weights P (R, S): each row a softmax (sums to 1, or all zeros for a row with nothing visible);
///   grad_weights dP (R, S) → dS (R, S)
attn::Matrix softmax_backward_rows(const attn::Matrix& weights, const attn::Matrix& grad_weights);

/// What attention_backward returns: the forward's weights it recomputed, the two gradients in
/// between, and the gradient of each input.
struct AttentionGradients {
    attn::Tensor3 weights;       // (B, T, S) P = softmax(Q Kᵀ / √d_k, −∞ where the mask is 0)
    attn::Tensor3 grad_weights;  // (B, T, S) dP = dO Vᵀ
    attn::Tensor3 grad_scores;   // (B, T, S) dS, the softmax's backward of each row
    attn::Tensor3 grad_query;    // (B, T, d_k) dQ
    attn::Tensor3 grad_key;      // (B, S, d_k) dK
    attn::Tensor3 grad_value;    // (B, S, d_v) dV
};

/// The backward of scaled dot-product attention O = softmax(Q Kᵀ / √d_k + mask) V: recompute P
/// from Q, K and the mask, then read the forward backwards with dO = ∂loss/∂O.
///   query Q (B, T, d_k); key K (B, S, d_k); value V (B, S, d_v); grad_output dO (B, T, d_v);
///   mask (B, T, S), when given: 1 = query t may see key s, 0 = hidden (−∞ in the scores).
///   A query whose keys are all hidden has weights of zero (the library's policy) and so
///   gradients of zero, never NaN.
AttentionGradients attention_backward(const attn::Tensor3& query, const attn::Tensor3& key, const attn::Tensor3& value,
                                      const std::optional<attn::Tensor3>& mask, const attn::Tensor3& grad_output);

}  // namespace exercise
