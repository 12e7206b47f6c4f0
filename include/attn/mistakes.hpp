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

namespace attn::mistakes {

/// Lesson 1: the softmax taken over the batch axis (dim=0) instead of the source positions (dim=1).
/// encoder_outputs (B, S, H), decoder_output (B, H) → scores, weights (B, S), context (B, H).
AttentionStep dot_attention_softmax_over_batch(const Tensor3& encoder_outputs, const Matrix& decoder_output);

/// Lesson 1: the weights applied without normalising (exp(score) summed, or no softmax at all):
/// here, no softmax — the raw scores used as weights.
AttentionStep dot_attention_without_softmax(const Tensor3& encoder_outputs, const Matrix& decoder_output);

}  // namespace attn::mistakes
