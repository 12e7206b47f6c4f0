// Exercise 4 — the function you write (in lessons/04-causal-self-attention/exercise/exercise.cpp).
#pragma once

#include "attn/scaled_dot_product_attention.hpp"
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// Scaled dot-product attention with an optional causal mask, lesson 4: return all four steps.
///   Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v); causal: query t may not see the keys s > t
///   → scores (B, T, S) Q Kᵀ / √d_k, masked_scores (B, T, S) the scores with −∞ where a key is hidden
///     (the scores themselves when causal is false), weights (B, T, S) softmax over S,
///     output (B, T, d_v) weights · V.
attn::ScaledDotProductAttentionResult scaled_dot_product_attention(const attn::Tensor3& Q, const attn::Tensor3& K,
                                                                   const attn::Tensor3& V, bool causal);

}  // namespace exercise
