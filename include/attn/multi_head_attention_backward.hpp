// attn/multi_head_attention_backward.hpp — the gradients of multi-head attention, inputs and
// parameters (lesson 10: the backward pass).
//
// Why it is three known backwards: the forward (attn/multi_head_attention.hpp) is linear maps,
// reshapes and scaled dot-product attention, so its backward runs them in reverse:
//
//   output = context W_oᵀ + b_o       linear_backward: dcontext, dW_o, db_o   (or dcontext = doutput)
//   context = merge_heads(…)          dcontext_heads = split_heads(dcontext): the inverse reshape
//   head j: softmax(q_j k_jᵀ · scale + M) v_j
//                                     the attention backward per head: dq_j, dk_j, dv_j
//   q_heads = split_heads(q) …        dq = merge_heads(dq_heads), and so for k and v
//   q = query W_qᵀ + b_q …            linear_backward: dquery, dW_q, db_q, and so for key and value
//
// A reshape moves numbers without changing them, so its gradient is the same move undone. In
// self-attention (query, key and value one tensor x) the gradient of x is the sum of the three.
//
// Shapes: B batch · T queries · S keys · D model width · h heads · d_k = D / h
//   query (B, T, D)   key, value (B, S, D)   weights as in the forward   grad_output (B, T, D)
//   → grad.query (B, T, D), .key, .value (B, S, D); grad.weights: w_q … (D, D), b_q … (D), and
//     w_o, b_o exactly when the forward had them
//
//   auto r = attn::multi_head_attention(x, x, x, w, 2, options);
//   auto grad = attn::multi_head_attention_backward(x, x, x, w, 2, r, dy, options);
//   attn::Tensor3 dx = grad.query + grad.key + grad.value;   // self-attention
#pragma once

#include <cstddef>

#include "attn/multi_head_attention.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The gradient with respect to each input of multi_head_attention, named like it.
struct MultiHeadAttentionGradients {
    Tensor3 query;  // (B, T, D)
    Tensor3 key;    // (B, S, D)
    Tensor3 value;  // (B, S, D)
    /// w_q, w_k, w_v (D, D), b_q, b_k, b_v (D); w_o and b_o present when the forward's were;
    /// no_output_projection as the forward's.
    MultiHeadAttentionWeights weights;
};

/// The backward of multi_head_attention(query, key, value, weights, heads, options), which returned
/// `forward`; grad_output is ∂loss/∂forward.output. Only options.scale is read (the masks are in
/// forward.weights, training's dropout mask in forward.weights_dropout). Throws ShapeError naming
/// the tensor that disagrees (grad_output, or a forward intermediate of another call) and
/// InputError for the output projection's choice, as the forward does, and when grad_output holds
/// NaN or ±∞ (named with its index).
MultiHeadAttentionGradients multi_head_attention_backward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                          const MultiHeadAttentionWeights& weights, std::size_t heads,
                                                          const MultiHeadAttentionResult& forward,
                                                          const Tensor3& grad_output,
                                                          const AttentionOptions& options = {});

}  // namespace attn
