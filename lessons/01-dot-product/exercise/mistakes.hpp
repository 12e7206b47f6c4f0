// lessons/01-dot-product/exercise/mistakes.hpp — lesson 1's classic mistakes, made on purpose.
//
// Why: when a student's numbers are wrong, "expected 0.5, got 0.73" says little; "your numbers
// are what the softmax over the batch axis gives" says what to fix. `attn exercise` recomputes
// each case with every mistake here and names the one the student's numbers match in every case
// that can tell it apart (src/exercises/diagnosis.hpp). The lesson programs use them too, to
// show a trap's numbers. They belong to the tutor and the exercises (target attn_mistakes), never
// to the library a user links.
//
// Each mistake starts from the right result and recomputes only what it changes. The softmax
// slips are templates: lessons 2 and 3 end with lesson 1's softmax and weighted mean, so the same
// slips apply to their steps (any struct with scores (B, S), weights (B, S), context (B, H)).
//
//   const attn::AttentionStep right = attn::dot_attention(A, b);
//   const auto wrong = attn::mistakes::softmax_over_batch(right, A);   // columns of weights sum to 1
#pragma once

#include "attn/dot_attention.hpp"

namespace attn::mistakes {

// ---------------------------------------------------------------------------------------------
// Building blocks, shared with the later lessons

/// Softmax down each column of (B, S) — over the batch axis, `softmax(scores, dim=0)`.
Matrix softmax_down_columns(const Matrix& scores);

/// e^x / Σ e^x along the last axis without subtracting the row's maximum first: the textbook
/// formula, which overflows (e^x = ∞ beyond x ≈ 709.8, and ∞ / ∞ is NaN) when scores are in the
/// hundreds, and gives NaN (0 / 0) for a row whose keys are all −∞.
Matrix softmax_without_max_subtraction(const Matrix& scores);
Tensor3 softmax_without_max_subtraction(const Tensor3& scores);
Tensor4 softmax_without_max_subtraction(const Tensor4& scores);

/// context[b] = Σ_s weights(b, s) · encoder_outputs(b, s, ·), whatever the weights are.
/// weights (B, S), encoder_outputs (B, S, H) → (B, H).
Matrix weighted_sum(const Matrix& weights, const Tensor3& encoder_outputs);

/// `right` with other weights, and the context they give. Step: any of AttentionStep,
/// LuongGeneralStep, BahdanauStep.
template <class Step>
Step with_weights(Step right, Matrix weights, const Tensor3& encoder_outputs) {
    right.weights = std::move(weights);
    right.context = weighted_sum(right.weights, encoder_outputs);
    return right;
}

// ---------------------------------------------------------------------------------------------
// Lessons 1 to 3: the softmax step

/// The softmax over the batch axis (dim=0) instead of the source positions (dim=1): each column of
/// the weights sums to 1 instead of each row. Invisible only when B = 1 and S = 1.
template <class Step>
Step softmax_over_batch(const Step& right, const Tensor3& encoder_outputs) {
    return with_weights(right, softmax_down_columns(right.scores), encoder_outputs);
}

/// No softmax at all: the raw scores used as weights.
template <class Step>
Step without_softmax(const Step& right, const Tensor3& encoder_outputs) {
    return with_weights(right, right.scores, encoder_outputs);
}

/// The softmax without the maximum subtracted (see softmax_without_max_subtraction): right for
/// small scores, NaN when they are in the hundreds. Lesson 1, step 3 and hint 2 say why the
/// maximum is subtracted.
template <class Step>
Step unshifted_softmax(const Step& right, const Tensor3& encoder_outputs) {
    return with_weights(right, softmax_without_max_subtraction(right.scores), encoder_outputs);
}

/// Lesson 1's `.squeeze()` trap: every weight 1, the softmax taken over an axis of size one (the
/// seed's code squeezes (1, S, 1) scores to (S,) and softmaxes (1, S) over dim 0). The context is
/// then the plain sum of the encoder outputs. The same numbers as the softmax over the batch axis
/// when B = 1; told apart by any case with B > 1.
template <class Step>
Step weights_all_one(const Step& right, const Tensor3& encoder_outputs) {
    Matrix ones = right.weights;
    ones.fill(1.0);
    return with_weights(right, std::move(ones), encoder_outputs);
}

}  // namespace attn::mistakes
