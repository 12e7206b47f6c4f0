// lessons/10-backward/exercise/mistakes.hpp — lesson 10's classic mistakes (the softmax's backward
// and scaled dot-product attention's backward), made on purpose.
//
//   attention: query (B, T, d_k), key (B, S, d_k), value (B, S, d_v), mask (B, T, S) 1 = visible
//   (optional), grad_output (B, T, d_v) → weights, grad_weights, grad_scores (B, T, S),
//   grad_query (B, T, d_k), grad_key (B, S, d_k), grad_value (B, S, d_v)
//
// The right steps come from the library's PyTorch-tested forward and backward
// (attn::scaled_dot_product_attention, attn::scaled_dot_product_attention_backward,
// attn::softmax_backward); each mistake changes one step and recomputes the steps after it.
//
//   attn::mistakes::attention_backward_with(q, k, v, mask, dO, BackwardSlip::scale_left_out).grad_query;
#pragma once

#include <optional>

#include "attn/tensor.hpp"

namespace attn::mistakes {

/// Every step of attention's backward.
struct AttentionBackwardSteps {
    Tensor3 weights, grad_weights, grad_scores, grad_query, grad_key, grad_value;
};

/// One slip in attention's backward (or none).
enum class BackwardSlip {
    none,
    scale_left_out,             // dQ = dS K and dK = dSᵀ Q: the 1/√d_k of the forward forgotten
    row_sum_forgotten,          // dS = P ∘ dP: the softmax's backward without − rowsum(dP ∘ P)
    query_key_swapped,          // dQ and dK returned in each other's place
    value_transpose_forgotten,  // dV = P dO instead of Pᵀ dO (defined only when T = S)
    mask_ignored,               // P recomputed without the mask: gradient flows into hidden keys
    nan_for_fully_masked,       // a query whose keys are all hidden gets NaN weights (e^(−∞ + ∞))
};

/// Every step, the right way (BackwardSlip::none: the library's forward and backward) or with `slip`.
AttentionBackwardSteps attention_backward_with(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                               const std::optional<Tensor3>& mask, const Tensor3& grad_output,
                                               BackwardSlip slip);

/// The softmax's backward without the row sum: P ∘ dP.
Matrix softmax_backward_without_row_sum(const Matrix& weights, const Matrix& grad_weights);

/// `mask` (B, T, S, 1 = visible) as the library's additive mask: 0 where visible, −∞ where hidden.
Tensor3 additive_mask_of(const Tensor3& mask);

}  // namespace attn::mistakes
