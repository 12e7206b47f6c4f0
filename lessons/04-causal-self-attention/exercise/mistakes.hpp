// lessons/04-causal-self-attention/exercise/mistakes.hpp — lesson 4's classic mistakes (causal scaled
// dot-product attention), made on purpose.
//
//   Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v)
//   → scores, masked_scores, weights (B, T, S), output (B, T, d_v); causal = hide keys s > t
//
// Each starts from the right result (attn::scaled_dot_product_attention with the causal mask) and
// recomputes from the step it changes; the mask mistakes only make sense for a causal case.
//
//   const auto right = attn::scaled_dot_product_attention(Q, K, V, {true});
//   attn::mistakes::causal_mask_after_softmax(right, V).weights;   // rows sum to less than 1
#pragma once

#include "attn/scaled_dot_product_attention.hpp"

namespace attn::mistakes {

/// `right` with other weights, and the output they give: output[b] = weights[b] · V[b].
ScaledDotProductAttentionResult attend_with_weights(ScaledDotProductAttentionResult right, Tensor3 weights,
                                                    const Tensor3& V);

/// The 1/√d_k scale forgotten: scores = Q Kᵀ. The formula's most forgettable symbol; with a small
/// d_k the weights still look plausible, only sharper (lesson 4, steps 7 and 8). Every step changes.
ScaledDotProductAttentionResult attention_unscaled(const Tensor3& Q, const Tensor3& K, const Tensor3& V, bool causal);

/// The causal mask on the wrong triangle: −∞ where s < t (the past) instead of s > t (the future),
/// as `torch.tril(ones, -1)` where `torch.triu(ones, 1)` was meant, or `s < t` for `s > t` in a
/// loop. Query t then sees keys t … S−1; a query with t ≥ S sees none (weights of zero).
ScaledDotProductAttentionResult causal_mask_on_wrong_triangle(const ScaledDotProductAttentionResult& right,
                                                              const Tensor3& V);

/// The softmax over the queries (dim=1, down each column of the T × S grid) instead of over the
/// keys (dim=2, along each row). Each column sums to 1. A column hidden from every query (causal
/// with T < S: keys s ≥ T) becomes NaN, as `torch.softmax(masked, dim=1)` and a hand-written
/// softmax give it (e^(−∞ − (−∞)) is NaN), so that such code is still recognised.
ScaledDotProductAttentionResult softmax_over_queries(const ScaledDotProductAttentionResult& right, const Tensor3& V);

/// The mask applied after the softmax: weights = softmax(scores) times the 0/1 causal grid, not
/// renormalised, so a row keeps only the share its visible keys had of all S keys and no longer
/// sums to 1. `masked_scores` holds what the softmax saw: the scores unmasked. (Renormalised, the
/// weights would be right and only masked_scores wrong: that is not this mistake.)
ScaledDotProductAttentionResult causal_mask_after_softmax(const ScaledDotProductAttentionResult& right,
                                                          const Tensor3& V);

/// The scores multiplied by the 0/1 causal grid instead of adding 0 and −∞ (lesson 4, step 9): a
/// hidden key gets the score 0, and e^0 = 1 is far from 0, so the future keeps weight. `alignment`
/// says which keys the grid hides when T ≠ S (lesson 4's KV-cache example is bottom-right).
ScaledDotProductAttentionResult causal_scores_multiplied_by_mask(const ScaledDotProductAttentionResult& right,
                                                                 const Tensor3& V,
                                                                 CausalAlignment alignment = CausalAlignment::top_left);

/// The softmax without the row's maximum subtracted (01-dot-product/exercise/mistakes.hpp): NaN where the
/// scores are in the hundreds.
ScaledDotProductAttentionResult attention_unshifted_softmax(const ScaledDotProductAttentionResult& right,
                                                            const Tensor3& V);

}  // namespace attn::mistakes
