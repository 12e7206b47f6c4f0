// src/lib/attention_arguments.hpp — private to the library: the argument checks every
// softmax(Q Kᵀ · scale) V function makes before it computes, shared so that lesson 4's
// scaled_dot_product_attention and lesson 7's online_softmax_attention refuse the same inputs with
// the same messages (each prefixed with the name of the function that was called).
//
// Shapes: Q (B, T, d_k) · K (B, S, d_k) · V (B, S, d_v) · attention_mask (B, S), optional
#pragma once

#include <optional>
#include <string>

#include "attn/tensor.hpp"

namespace attn::detail {

/// Throws ShapeError naming Q, K, V (and attention_mask) with their shapes when a size is zero or
/// B, S or d_k disagree; InputError when attention_mask holds a value other than 0 or 1 or the
/// scale is not a finite number.
void check_attention_arguments(const std::string& function, const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                               const std::optional<Matrix>& attention_mask, const std::optional<double>& scale);

}  // namespace attn::detail
