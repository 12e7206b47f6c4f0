// lessons/05-multi-head-attention/exercise/mistakes.hpp — lesson 5's classic mistakes (multi-head
// attention), made on purpose.
//
//   query (B, T, D), key and value (B, S, D), weights w_q … b_v and optionally w_o, b_o (nn.Linear
//   layout), h heads of d_k = D / h; attention_mask (B, S), optional: 1 = attend, 0 = padding
//   → every intermediate of attn::multi_head_attention: q, k, v, q_heads, k_heads, v_heads,
//     scores, weights, context_heads, context, output
//
// Each takes the right result (attn::multi_head_attention with the same weights and mask) and
// recomputes from the step it changes.
//
//   const auto right = attn::multi_head_attention(x, x, x, w, 2, options);
//   attn::mistakes::mask_on_heads_axis(right, w, *options.attention_mask).weights;   // seed 000's broadcast
#pragma once

#include <cstddef>
#include <optional>

#include "attn/multi_head_attention.hpp"

namespace attn::mistakes {

/// split_heads as a reshape, PyTorch's `x.view(B, h, T, d_k)`, instead of
/// `x.view(B, T, h, d_k).transpose(1, 2)`. A reshape keeps memory order, so head 0 gets the first
/// T·d_k numbers of each sentence — whole positions cut into rows of d_k — instead of features
/// 0 … d_k−1 of every position. Invisible when T = 1 or h = 1. x (B, T, D) → (B, h, T, d_k).
Tensor4 split_heads_by_reshape(const Tensor3& x, std::size_t heads);

/// merge_heads as a reshape, `x.view(B, T, h * d_k)` on the (B, h, T, d_k) tensor, without
/// transposing the heads back first. Invisible when T = 1 or h = 1. x (B, h, T, d_k) → (B, T, h·d_k).
Tensor3 merge_heads_by_reshape(const Tensor4& x);

/// The heads split by a reshape and merged back correctly: every step from q_heads on changes.
MultiHeadAttentionResult heads_split_by_reshape(const MultiHeadAttentionResult& right,
                                                const MultiHeadAttentionWeights& weights,
                                                const std::optional<Matrix>& attention_mask);

/// The heads split right and merged by a reshape: only context and output change.
MultiHeadAttentionResult heads_merged_by_reshape(const MultiHeadAttentionResult& right,
                                                 const MultiHeadAttentionWeights& weights);

/// A reshape both ways, the consistent form of the slip (whoever splits with a reshape usually
/// merges with its inverse): every step from q_heads on changes.
MultiHeadAttentionResult heads_split_and_merged_by_reshape(const MultiHeadAttentionResult& right,
                                                           const MultiHeadAttentionWeights& weights,
                                                           const std::optional<Matrix>& attention_mask);

/// The scores multiplied by `scale` instead of 1/√d_k: 1 when the scale is forgotten (seed 004's
/// vectorised code, lesson 5 step 8), 1/√D when lesson 4's formula is copied with Q's width before
/// the split. Every step from scores on changes.
MultiHeadAttentionResult heads_scaled_by(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                         const std::optional<Matrix>& attention_mask, double scale);

/// The padding mask inverted, 1 taken as padding and 0 as a token: the Hugging Face mask fed
/// where PyTorch's key_padding_mask convention (True = ignore) was written, or
/// `masked_fill(mask == 1, -inf)`. A sentence without padding then has every key hidden and gets
/// weights of zero (the library's policy).
MultiHeadAttentionResult mask_inverted(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                       const Matrix& attention_mask);

/// The padding mask applied after the softmax: softmax(scores) times the 0/1 mask, not
/// renormalised, so the rows of a padded sentence sum to less than 1.
MultiHeadAttentionResult mask_after_softmax(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                            const Matrix& attention_mask);

/// Seed 000's mask on the heads axis: its (B, S) mask unsqueezed to (B, 1, S) and broadcast against
/// the (B, h, T, S) scores aligns the mask's batch axis with the heads, so head j of every sentence
/// gets sentence j's mask (lesson 5, step 9). In C++: `attention_mask(j, s)` where
/// `attention_mask(b, s)` was meant. Defined when B = h (PyTorch raises otherwise).
MultiHeadAttentionResult mask_on_heads_axis(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                            const Matrix& attention_mask);

/// NaN for a query whose keys are all hidden: a hand-written softmax of a row of −∞ computes
/// e^(−∞ − (−∞)) / … = NaN, and the NaN spreads to the context and the output, where the lesson
/// (and the library) give that query weights of zero (lesson 5, step 10).
MultiHeadAttentionResult nan_for_fully_masked_query(const MultiHeadAttentionResult& right,
                                                    const MultiHeadAttentionWeights& weights,
                                                    const std::optional<Matrix>& attention_mask);

/// The softmax without the row's maximum subtracted (01-dot-product/exercise/mistakes.hpp): NaN where the
/// scores are in the hundreds, and where a query's keys are all hidden.
MultiHeadAttentionResult heads_unshifted_softmax(const MultiHeadAttentionResult& right,
                                                 const MultiHeadAttentionWeights& weights,
                                                 const std::optional<Matrix>& attention_mask);

/// The output projection missing: output = context, W_o and b_o never applied (seed 000's block
/// stops at the context). The same as the right result when weights.w_o is absent.
MultiHeadAttentionResult without_output_projection(const MultiHeadAttentionResult& right);

}  // namespace attn::mistakes
