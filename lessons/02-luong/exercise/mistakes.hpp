// lessons/02-luong/exercise/mistakes.hpp — lesson 2's classic mistakes (Luong's general score), made on
// purpose; the softmax slips of lesson 1 (01-dot-product/exercise/mistakes.hpp) apply to its last steps.
//
//   encoder_outputs (B, S, H), decoder_output (B, H), W_a (H, H) stored (out, in) as nn.Linear
//   → projected (B, S, H), scores (B, S), weights (B, S), context (B, H)
//
//   const auto right = attn::luong_general_attention(A, b, W);
//   attn::mistakes::luong_context_of_projected(right);   // context averages W h̄_s, not h̄_s
#pragma once

#include "01-dot-product/exercise/mistakes.hpp"
#include "attn/luong_attention.hpp"

namespace attn::mistakes {

/// W where Wᵀ was meant: the projection written as `encoder_outputs @ W_a` (each h̄_s a row vector
/// times W_a, as the seed's first LuAttention does with a raw nn.Parameter) instead of nn.Linear's
/// W_a h̄_s, so the score is h_tᵀ W_aᵀ h̄_s. Students write it because `x @ W` is what a matrix
/// product "looks like" and, W_a being square, every shape still fits. Invisible only when W_a is
/// symmetric (the identity, say). Every step changes.
LuongGeneralStep luong_weight_transposed(const Tensor3& encoder_outputs, const Matrix& decoder_output, const Matrix& W_a);

/// The context as the weighted mean of the projected encoder outputs W_a h̄_s instead of the
/// original h̄_s: the projection is at hand right above the last step, but W_a only decides how
/// positions are scored (lesson 2, step 5). Invisible when W_a = I. Only the context changes.
LuongGeneralStep luong_context_of_projected(const LuongGeneralStep& right);

}  // namespace attn::mistakes
