// src/lib/attention_arguments.hpp — private to the library: what every softmax(Q Kᵀ · scale) V
// function checks besides shapes, shared so that scaled_dot_product_attention
// (lessons/04-causal-self-attention), multi_head_attention (lessons/05-multi-head-attention) and
// online_softmax_attention (lessons/07-online-softmax) refuse the same values with the same
// messages.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "attn/tensor.hpp"

namespace attn::detail {

/// InputError when attention_mask holds a value other than 0 or 1 (naming it and its index), or
/// the scale is not a finite number ("function: the scale must be a finite number").
void check_mask_and_scale(const std::string& function, const std::optional<Matrix>& attention_mask,
                          const std::optional<double>& scale);

/// Grouped-query attention's two rules, for h heads of d_k = D / h (h already checked to divide D):
/// InputError unless kv_heads g divides h (each K/V head serves h / g query heads), ShapeError
/// naming `w_k_name` with its shape and (g·d_k, D) unless w_k has g·d_k rows.
void check_kv_heads(const std::string& function, const std::string& w_k_name, const Matrix& w_k, std::size_t D,
                    std::size_t heads, std::size_t kv_heads);

}  // namespace attn::detail
