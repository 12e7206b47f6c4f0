// attn/scaled_dot_product_attention_backward.hpp — the gradients of softmax(Q Kᵀ · scale + mask) V
// (lesson 10: the backward pass).
//
// Why: the forward keeps the weights P (its result's `weights`), so the backward needs no softmax
// again. Given the gradient dO of a loss with respect to the output, the chain rule read backwards
// through the forward's three steps, S = scale · Q Kᵀ + M, P = softmax(S), O = P V:
//
//   dV = Pᵀ dO                               O = P V, seen from V
//   dP = dO Vᵀ                               O = P V, seen from P
//   dS = P ∘ (dP − rowsum(dP ∘ P))           the softmax (attn/softmax_backward.hpp)
//   dQ = scale · dS K                        S = scale · Q Kᵀ, seen from Q
//   dK = scale · dSᵀ Q                       … and from K
//
// The mask M is added, not learned: it gets no gradient. A hidden key has P = 0 in every row that
// hides it, so dS is 0 there and nothing flows into that key through that query; a query whose
// keys are all hidden (all-zero weights, the library's policy) gets dQ = 0, never NaN.
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width
//   query (B, T, d_k)   key (B, S, d_k)   value (B, S, d_v)   forward.weights (B, T, S)
//   grad_output (B, T, d_v)  →  gradients.query (B, T, d_k), .key (B, S, d_k), .value (B, S, d_v)
//
//   auto forward = attn::scaled_dot_product_attention(Q, K, V, options);
//   auto grad = attn::scaled_dot_product_attention_backward(Q, K, V, forward, dO, options);
//   grad.query;   // ∂loss/∂Q, where dO = ∂loss/∂forward.output
#pragma once

#include "attn/scaled_dot_product_attention.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The gradient with respect to each input of scaled_dot_product_attention, named like it.
struct ScaledDotProductAttentionGradients {
    Tensor3 query;  // (B, T, d_k)
    Tensor3 key;    // (B, S, d_k)
    Tensor3 value;  // (B, S, d_v)
};

/// The backward of scaled_dot_product_attention(query, key, value, options), which returned
/// `forward`; `grad_output` is the gradient of the loss with respect to forward.output. Only
/// options.scale is read (absent: 1/√d_k, as in the forward); the masks are in forward.weights.
/// Throws ShapeError naming grad_output (or the tensor that disagrees) and the shape it must have,
/// InputError when grad_output holds NaN or ±∞ (named with its index).
ScaledDotProductAttentionGradients scaled_dot_product_attention_backward(const Tensor3& query, const Tensor3& key,
                                                                         const Tensor3& value,
                                                                         const ScaledDotProductAttentionResult& forward,
                                                                         const Tensor3& grad_output,
                                                                         const AttentionOptions& options = {});

}  // namespace attn
