// attn/mistakes.hpp — the classic mistakes of each lesson, implemented on purpose.
//
// Why: when a student's numbers are wrong, "expected 0.5, got 0.73" says little; "your numbers
// are what you get when the softmax runs over the batch axis" says what to fix. The exercise
// checker recomputes the lesson with each function here and names the one the student's numbers
// match. Each mistake must give different numbers from the correct function on its lesson's
// worked example (tests/test_mistakes.cpp checks that), or it could not be told apart.
//
//   auto wrong = attn::mistakes::dot_attention_softmax_over_batch(A, b);
//   // wrong.weights columns sum to 1, not rows
#pragma once

#include "attn/dot_attention.hpp"
#include "attn/bahdanau_attention.hpp"
#include "attn/luong_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/encoder_layer.hpp"  // lessons 5 and 6: multi_head_attention.hpp, layer_norm.hpp, feed_forward.hpp

#include <optional>

namespace attn::mistakes {

/// Lesson 1: the softmax taken over the batch axis (dim=0) instead of the source positions (dim=1).
/// encoder_outputs (B, S, H), decoder_output (B, H) → scores, weights (B, S), context (B, H).
AttentionStep dot_attention_softmax_over_batch(const Tensor3& encoder_outputs, const Matrix& decoder_output);

/// Lesson 1: the weights applied without normalising (exp(score) summed, or no softmax at all):
/// here, no softmax — the raw scores used as weights.
AttentionStep dot_attention_without_softmax(const Tensor3& encoder_outputs, const Matrix& decoder_output);

// ---------------------------------------------------------------------------------------------
// Lesson 2 — Luong's general score (exercises/02-luong)
//   encoder_outputs (B, S, H), decoder_output (B, H), W_a (H, H) stored (out, in) as nn.Linear
//   → projected (B, S, H), scores (B, S), weights (B, S), context (B, H)

/// Lesson 2: W where Wᵀ was meant. The projection written as `encoder_outputs @ W_a` (each h̄_s as
/// a row vector times W_a, as the seed's first LuAttention does with a raw nn.Parameter) instead of
/// nn.Linear's W_a h̄_s, so the score is h̄_sᵀ W_a h_t = h_tᵀ W_aᵀ h̄_s. Students write it because
/// `x @ W` is what a matrix product "looks like" and, W_a being square, every shape still fits.
/// Invisible only when W_a is symmetric (the identity, say).
LuongGeneralStep luong_general_attention_weight_transposed(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                           const Matrix& W_a);

/// Lesson 2: the softmax over the batch axis (dim=0) instead of the source positions (dim=1), the
/// slip of lesson 1 again: `softmax(scores, dim=0)`, or a loop over b inside the sum. Each column
/// of the weights sums to 1 instead of each row. Invisible only when B = 1 and S = 1.
LuongGeneralStep luong_general_attention_softmax_over_batch(const Tensor3& encoder_outputs,
                                                            const Matrix& decoder_output, const Matrix& W_a);

/// Lesson 2: the context as the weighted mean of the projected encoder outputs W_a h̄_s instead of
/// the original h̄_s. The projection is at hand right above the last step, so it is easy to reuse;
/// but W_a only decides how positions are scored (lesson 2, step 5). Invisible when W_a = I.
LuongGeneralStep luong_general_attention_context_of_projected(const Tensor3& encoder_outputs,
                                                              const Matrix& decoder_output, const Matrix& W_a);

// ---------------------------------------------------------------------------------------------
// Lesson 3 — Bahdanau's additive score (exercises/03-bahdanau)
//   encoder_outputs (B, S, H), decoder_output (B, H), W1 (2H, 2H), b1 (2H), w2 (1, 2H), b2 (1)
//   → concatenated, preactivation, hidden (B, S, 2H), scores, weights (B, S), context (B, H)

/// Lesson 3: the concatenation in the other order, h = [h_t ; h̄_s] (Luong's concat order, lesson 2
/// step 9) instead of [h̄_s ; h_t]. W1's first H columns then meet the decoder state: a W1 trained
/// with one order gives nonsense with the other. Students swap it because both orders are "the
/// concatenation" and the shapes agree.
BahdanauStep bahdanau_attention_concatenation_swapped(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                      const Matrix& W1, const Vector& b1, const Matrix& w2,
                                                      const Vector& b2);

/// Lesson 3: a reshape where a transpose was meant, the seed's first BaAttention:
/// `h.reshape(B, 2H, -1)` to get one column per source position. A reshape keeps memory order, so
/// column s of the (2H, S) grid is h[b]'s flat numbers j·S + s, a mix of several positions and of
/// h_t (lesson 3, step 8). `concatenated` is right; from `preactivation` on, row s holds W1 ·
/// column s + b1. Invisible when S = 1.
BahdanauStep bahdanau_attention_reshape_not_transpose(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                      const Matrix& W1, const Vector& b1, const Matrix& w2,
                                                      const Vector& b2);

/// Lesson 3: the softmax over the batch axis (dim=0) instead of the source positions (dim=1).
/// Everything before the weights is right. Invisible only when B = 1 and S = 1.
BahdanauStep bahdanau_attention_softmax_over_batch(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                   const Matrix& W1, const Vector& b1, const Matrix& w2,
                                                   const Vector& b2);

// ---------------------------------------------------------------------------------------------
// Lesson 4 — causal scaled dot-product self-attention (exercises/04-causal-self-attention)
//   Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v)
//   → scores, masked_scores, weights (B, T, S), output (B, T, d_v); causal = hide keys s > t
// The mask mistakes below always apply the (wrong) causal mask; the others take `causal`.

/// Lesson 4: the 1/√d_k scale forgotten: scores = Q Kᵀ. The formula's most forgettable symbol; with
/// a small d_k the weights still look plausible, only less soft (lesson 4, steps 7 and 8).
ScaledDotProductAttentionResult scaled_dot_product_attention_unscaled(const Tensor3& Q, const Tensor3& K,
                                                                      const Tensor3& V, bool causal);

/// Lesson 4: the causal mask on the wrong triangle: −∞ where s < t (the past) instead of s > t (the
/// future), as `torch.tril(ones, -1)` where `torch.triu(ones, 1)` was meant, or `s < t` for `s > t`
/// in a loop. Query t then sees keys t … S−1; a query with t ≥ S sees none (weights of zero).
ScaledDotProductAttentionResult causal_attention_mask_on_wrong_triangle(const Tensor3& Q, const Tensor3& K,
                                                                        const Tensor3& V);

/// Lesson 4: the softmax over the queries (dim=1, down each column of the T × S grid) instead of
/// over the keys (dim=2, along each row): `softmax(masked, dim=1)`, or the axes of a transpose
/// mixed up. Each column sums to 1. A column hidden from every query (causal with T < S: keys
/// s ≥ T) becomes NaN, and with it every output: what `torch.softmax(masked, dim=1)` and a
/// hand-written softmax give there (e^(−∞ − (−∞)) is NaN), so that such code is still recognised.
/// Invisible only when T = 1 with the causal mask: key 0 is then the only visible key, and its
/// column holds one score. Without the mask and T = 1, every weight becomes 1.
ScaledDotProductAttentionResult scaled_dot_product_attention_softmax_over_queries(const Tensor3& Q, const Tensor3& K,
                                                                                  const Tensor3& V, bool causal);

/// Lesson 4: the mask applied after the softmax: weights = softmax(scores) multiplied by the 0/1
/// causal grid, without renormalising, so a row keeps only the share its visible keys had of all S
/// keys and no longer sums to 1. `masked_scores` holds what the softmax saw: the scores unmasked.
/// Students do it because "zero the future weights" sounds like the rule itself.
ScaledDotProductAttentionResult causal_attention_mask_after_softmax(const Tensor3& Q, const Tensor3& K,
                                                                    const Tensor3& V);

/// Lesson 4: the scores multiplied by the 0/1 causal grid instead of adding 0 and −∞ (lesson 4,
/// step 9): a hidden key gets the score 0, and e^0 = 1 is far from 0, so the future keeps weight.
/// `masked_scores` holds the product.
ScaledDotProductAttentionResult causal_attention_scores_multiplied_by_mask(const Tensor3& Q, const Tensor3& K,
                                                                           const Tensor3& V);

// ---------------------------------------------------------------------------------------------
// Lesson 5 — multi-head attention (exercises/05-multi-head-attention)
//   query (B, T, D), key and value (B, S, D), weights w_q … b_v and optionally w_o, b_o (nn.Linear
//   layout), h heads of d_k = D / h; attention_mask (B, S), optional: 1 = attend, 0 = padding
//   → every intermediate of attn::multi_head_attention: q, k, v, q_heads, k_heads, v_heads,
//     scores, weights, context_heads, context, output
// Each function checks its arguments as attn::multi_head_attention does (same ShapeError).

/// Lesson 5: split_heads as a reshape, PyTorch's `x.view(B, h, T, d_k)`, instead of
/// `x.view(B, T, h, d_k).transpose(1, 2)`. A reshape keeps memory order, so head 0 gets the first
/// T·d_k numbers of each sentence — whole positions cut into rows of d_k — instead of features
/// 0 … d_k−1 of every position. Students write it because (B, h, T, d_k) is the shape they want
/// and a view to it runs without complaint. Invisible when T = 1 or h = 1.
/// x (B, T, D) → (B, h, T, d_k). ShapeError when h does not divide D.
Tensor4 split_heads_by_reshape(const Tensor3& x, std::size_t heads);

/// Lesson 5: merge_heads as a reshape, `x.view(B, T, h * d_k)` on the (B, h, T, d_k) tensor,
/// without transposing the heads back first: row t of the result holds consecutive numbers of
/// head 0, then head 1, instead of every head's features of position t. Invisible when T = 1 or h = 1.
/// x (B, h, T, d_k) → (B, T, h·d_k).
Tensor3 merge_heads_by_reshape(const Tensor4& x);

/// Lesson 5: the heads split by a reshape (split_heads_by_reshape), merged back correctly; the
/// projections are right, every step from q_heads on is wrong.
MultiHeadAttentionResult multi_head_attention_split_by_reshape(const Tensor3& query, const Tensor3& key,
                                                               const Tensor3& value,
                                                               const MultiHeadAttentionWeights& weights,
                                                               std::size_t heads,
                                                               const std::optional<Matrix>& attention_mask = std::nullopt);

/// Lesson 5: the heads split right, merged by a reshape (merge_heads_by_reshape): only context and
/// output are wrong.
MultiHeadAttentionResult multi_head_attention_merge_by_reshape(const Tensor3& query, const Tensor3& key,
                                                               const Tensor3& value,
                                                               const MultiHeadAttentionWeights& weights,
                                                               std::size_t heads,
                                                               const std::optional<Matrix>& attention_mask = std::nullopt);

/// Lesson 5: a reshape both ways, the consistent form of the slip: whoever splits with a reshape
/// usually merges with its inverse. Every step from q_heads on is wrong.
MultiHeadAttentionResult multi_head_attention_split_and_merge_by_reshape(
    const Tensor3& query, const Tensor3& key, const Tensor3& value, const MultiHeadAttentionWeights& weights,
    std::size_t heads, const std::optional<Matrix>& attention_mask = std::nullopt);

/// Lesson 5: the 1/√d_k scale forgotten in every head, as seed 004's vectorised code does (lesson 5,
/// step 8): scores = q_j k_jᵀ. Nothing fails and the shapes are right; the softmax is only sharper.
MultiHeadAttentionResult multi_head_attention_unscaled(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                       const MultiHeadAttentionWeights& weights, std::size_t heads,
                                                       const std::optional<Matrix>& attention_mask = std::nullopt);

/// Lesson 5: the scores divided by √D, the model width, instead of √d_k = √(D / h), the width of
/// one head: lesson 4's formula copied with the wrong d_k, since Q's last dimension before the
/// split is D. Every score is √h times too small and each softmax too flat.
MultiHeadAttentionResult multi_head_attention_scaled_by_model_width(
    const Tensor3& query, const Tensor3& key, const Tensor3& value, const MultiHeadAttentionWeights& weights,
    std::size_t heads, const std::optional<Matrix>& attention_mask = std::nullopt);

/// Lesson 5: the padding mask inverted, 1 taken as padding and 0 as a token: the Hugging Face mask
/// (1 = attend) fed where PyTorch's key_padding_mask convention (True = ignore) was written, or
/// `masked_fill(mask == 1, -inf)`. The real tokens are hidden and the padding attended; a sentence
/// without padding has every key hidden, and gets weights of zero (the library's policy).
/// attention_mask (B, S) of 0 and 1, required (InputError for other values).
MultiHeadAttentionResult multi_head_attention_mask_inverted(const Tensor3& query, const Tensor3& key,
                                                            const Tensor3& value,
                                                            const MultiHeadAttentionWeights& weights,
                                                            std::size_t heads, const Matrix& attention_mask);

/// Lesson 5: the padding mask applied after the softmax: weights = softmax(scores) multiplied by
/// the 0/1 mask, not renormalised, so the rows of a padded sentence sum to less than 1 (the share
/// the real keys had of all S keys). Students do it because "padding gets weight 0" sounds like
/// the rule itself. `scores` are right (they come before any mask). attention_mask (B, S), required.
MultiHeadAttentionResult multi_head_attention_mask_after_softmax(const Tensor3& query, const Tensor3& key,
                                                                 const Tensor3& value,
                                                                 const MultiHeadAttentionWeights& weights,
                                                                 std::size_t heads, const Matrix& attention_mask);

/// Lesson 5: the output projection missing: output = context, W_o and b_o never applied. Seed
/// 000's block stops at the context (its W_o lives in the next module), so code copied from it
/// lacks the fourth linear map that nn.MultiheadAttention and seed 003 have. The same as the right
/// result when weights.w_o is absent.
MultiHeadAttentionResult multi_head_attention_without_output_projection(
    const Tensor3& query, const Tensor3& key, const Tensor3& value, const MultiHeadAttentionWeights& weights,
    std::size_t heads, const std::optional<Matrix>& attention_mask = std::nullopt);

// ---------------------------------------------------------------------------------------------
// Lesson 6 — the Transformer encoder layer (exercises/06-encoder-layer)
//   layer norm: x (N, D), weight (D), bias (D), eps > 0 → mean, variance (N), normalized, output (N, D)
//   encoder layer: x (B, T, D), EncoderLayerWeights, EncoderLayerOptions → every intermediate
//   (EncoderLayerStep), as attn::transformer_encoder_layer; same argument checks.

/// Lesson 6: LayerNorm with the unbiased variance, ÷ (D − 1) instead of ÷ D, still inside the
/// square root with eps: (x − mean) / sqrt(var_unbiased + eps) · weight + bias. `torch.var` and
/// `x.std(-1)` are unbiased by default and the Annotated Transformer uses them, so it is the
/// variance students reach for; nn.LayerNorm uses the biased one. Every value shrinks by about
/// √((D − 1) / D). `variance` holds the unbiased variance. Needs D ≥ 2 (ShapeError otherwise).
LayerNormStep layer_norm_unbiased_variance(const Matrix& x, const Vector& weight, const Vector& bias,
                                           double eps = default_layer_norm_eps);

/// Lesson 6: eps outside the square root, (x − mean) / (sqrt(biased variance) + eps), the Annotated
/// Transformer's `std + eps` with PyTorch's variance. Both keep the division finite, but they are
/// different numbers: negligible for a spread row (about eps / (2σ) relative), large when the
/// row's variance is as small as eps. `variance` is the biased one, as nn.LayerNorm's.
LayerNormStep layer_norm_eps_outside_sqrt(const Matrix& x, const Vector& weight, const Vector& bias,
                                          double eps = default_layer_norm_eps);

/// Lesson 6: both at once, the Annotated Transformer's LayerNorm (unbiased std + eps), copied from
/// seed 003: attn::annotated_layer_norm, with the eps given (PyTorch's 1e-5 by default here).
LayerNormStep layer_norm_annotated_transformer(const Matrix& x, const Vector& weight, const Vector& bias,
                                               double eps = default_layer_norm_eps);

/// Lesson 6: the encoder layer with layer_norm_unbiased_variance in both of its norms.
EncoderLayerStep transformer_encoder_layer_unbiased_variance(const Tensor3& x, const EncoderLayerWeights& weights,
                                                             const EncoderLayerOptions& options);

/// Lesson 6: the encoder layer with layer_norm_eps_outside_sqrt in both of its norms.
EncoderLayerStep transformer_encoder_layer_eps_outside_sqrt(const Tensor3& x, const EncoderLayerWeights& weights,
                                                            const EncoderLayerOptions& options);

/// Lesson 6: the encoder layer with the Annotated Transformer's norm in both places.
EncoderLayerStep transformer_encoder_layer_annotated_layer_norm(const Tensor3& x, const EncoderLayerWeights& weights,
                                                                const EncoderLayerOptions& options);

/// Lesson 6: pre-norm and post-norm swapped: norm_first read the wrong way round, so the layer
/// computes x + attention(norm1(x)) … when post-norm was asked, and norm1(x + attention(x)) … when
/// pre-norm was. The two orders differ by where one call sits, and both "have a residual and a
/// norm", so the swap is easy to make and hard to see.
EncoderLayerStep transformer_encoder_layer_norms_swapped(const Tensor3& x, const EncoderLayerWeights& weights,
                                                         const EncoderLayerOptions& options);

/// Lesson 6: the attention sub-layer's output taken before the output projection: the residual
/// adds attention.context (the heads side by side) instead of attention.output (context W_oᵀ +
/// b_o), the field just above it. `attention.output` holds what was used. The same as the right
/// result when weights.attention.w_o is absent.
EncoderLayerStep transformer_encoder_layer_without_output_projection(const Tensor3& x, const EncoderLayerWeights& weights,
                                                                     const EncoderLayerOptions& options);

}  // namespace attn::mistakes
