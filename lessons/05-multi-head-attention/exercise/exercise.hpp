// Exercise 5 — the functions you write (in lessons/05-multi-head-attention/exercise/exercise.cpp).
#pragma once

#include <cstddef>
#include <optional>

#include "attn/multi_head_attention.hpp"
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// Step 3 of the lesson: (B, T, D) → (B, h, T, d_k) with d_k = D / h. Head j holds features
/// j·d_k … (j+1)·d_k − 1 of every position: out(b, j, t, i) = x(b, t, j·d_k + i).
/// PyTorch: x.view(B, T, h, d_k).transpose(1, 2).
attn::Tensor4 split_heads(const attn::Tensor3& x, std::size_t heads);

/// Step 6 of the lesson: (B, h, T, d_k) → (B, T, h·d_k), the inverse of split_heads: the heads'
/// features side by side. PyTorch: x.transpose(1, 2).contiguous().view(B, T, h * d_k).
attn::Tensor3 merge_heads(const attn::Tensor4& x);

/// Multi-head attention, lesson 5: return every intermediate.
///   query (B, T, D), key and value (B, S, D); weights: w_q, w_k, w_v (D, D) stored (out, in) as
///   nn.Linear stores them, biases b_q, b_k, b_v (D), and optionally w_o (D, D) with b_o (D);
///   attention_mask (B, S), optional: 1 = a real token (attend), 0 = padding (hide it).
///   → q, k, v           the projections x Wᵀ + b: (B, T, D), (B, S, D), (B, S, D)
///     q_heads …         split_heads of each: (B, h, T, d_k), (B, h, S, d_k), (B, h, S, d_k)
///     scores            (B, h, T, S) q_j k_jᵀ / √d_k per head, before the mask
///     weights           (B, h, T, S) softmax over S with the padding keys hidden (−∞ before the softmax);
///                       a query whose keys are all hidden gets weights of zero
///     context_heads     (B, h, T, d_k) weights · v_j per head
///     context           (B, T, D) merge_heads(context_heads)
///     output            (B, T, D) context W_oᵀ + b_o, or the context itself when weights.w_o is absent
attn::MultiHeadAttentionResult multi_head_attention(const attn::Tensor3& query, const attn::Tensor3& key,
                                                    const attn::Tensor3& value,
                                                    const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                                    const std::optional<attn::Matrix>& attention_mask);

}  // namespace exercise
