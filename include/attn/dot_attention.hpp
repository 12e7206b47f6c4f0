// attn/dot_attention.hpp — lessons/01-dot-product: seq2seq attention with a plain dot-product
// score.
//
// Why: the simplest attention there is. At one decoding step the decoder state h_t asks "which
// encoder positions matter now?"; each encoder output h̄_s answers with the score h_t · h̄_s, a
// softmax turns the scores into weights, and the context is the weighted mean of the encoder
// outputs. Every later lesson changes one of these three steps.
//
// Shapes: B batch · S source positions · H hidden size
//   encoder_outputs (B, S, H)   decoder_output (B, H)
//   scores (B, S)   weights (B, S)   context (B, H)
//
//   attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
//   attn::Matrix  b = {{7, 8, 9}, {2, 1, 1}};
//   auto r = attn::dot_attention(A, b);
//   // r.scores  = {{50, 57}, {19, 19}}
//   // r.context = {{1.9991, 2.0000, 3.0000}, {4, 5, 6}}
#pragma once

#include "attn/tensor.hpp"

namespace attn {

/// Every intermediate of one attention step, so a lesson (or a student) can inspect each.
struct AttentionStep {
    Matrix scores;   // (B, S) raw scores, before the softmax
    Matrix weights;  // (B, S) softmax of the scores over S; each row sums to 1
    Matrix context;  // (B, H) weights-averaged encoder outputs
};

/// Dot-product attention: score_s = decoder_output · encoder_outputs[s].
/// Throws ShapeError when B or H disagree between the two arguments, or a size is zero;
/// InputError when a score or the context is NaN or ±∞ (inputs that overflow float64).
AttentionStep dot_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output);

/// The last two steps shared by every seq2seq attention: softmax over S, then the weighted sum.
/// scores (B, S), encoder_outputs (B, S, H) → weights (B, S), context (B, H). Scores must be
/// finite numbers (seq2seq attention has no mask), or InputError names the first that is not.
AttentionStep attend_with_scores(Matrix scores, const Tensor3& encoder_outputs);

}  // namespace attn
