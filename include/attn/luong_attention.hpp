// attn/luong_attention.hpp — lessons/02-luong: Luong's three score functions (Luong, Pham & Manning
// 2015).
//
// Why: dot-product attention (lessons/01-dot-product) has nothing to learn; the score only measures
// how much a decoder state and an encoder output already point the same way. Luong et al. compare
// three scores, each a different way of asking "how well does h̄_s answer h_t?":
//
//   dot      score_s = h_tᵀ h̄_s                        attn::dot_attention (dot_attention.hpp)
//   general  score_s = h_tᵀ W_a h̄_s                    luong_general_attention: a learned bilinear form
//   concat   score_s = v_aᵀ tanh(W_a [h_t ; h̄_s])       luong_concat_attention: a one-layer MLP
//
// The softmax over S and the weighted sum that follow are lessons/01-dot-product's
// (attend_with_scores).
//
// Weight layout. W_a is stored as `nn.Linear(H, H, bias=False).weight` stores it, so the general
// score is h_t · (W_a h̄_s): the encoder outputs go through the linear layer, as in
// `torch.bmm(linear(encoder_outputs), decoder_output.unsqueeze(2))`. Code that writes
// `encoder_outputs @ W` instead computes h̄_sᵀ W h_t = h_tᵀ Wᵀ h̄_s: the same family of scores, with
// the matrix transposed. No bias: a bias c would add h_t · c to every score of a row, a constant
// over S that the softmax removes.
//
// The concat score, as in the paper: the decoder state first, then the encoder output,
// [h_t ; h̄_s] of width 2H; W_a is `nn.Linear(2H, A, bias=False).weight`, shape (A, 2H), and v_a is
// `nn.Linear(A, 1, bias=False).weight`, shape (1, A). A, the width of the hidden layer, is free
// (lessons/02-luong uses A = H).
//
// Shapes: B batch · S source positions · H hidden size · A concat hidden width
//   encoder_outputs (B, S, H)   decoder_output (B, H)   W_a (H, H) for general, (A, 2H) for concat
//   v_a (1, A)   scores (B, S)   weights (B, S)   context (B, H)
//
//   attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
//   attn::Matrix  b = {{7, 8, 9}, {2, 1, 1}};
//   attn::Matrix  W = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 1}};
//   auto r = attn::luong_general_attention(A, b, W);
//   // r.projected = W h̄_s: {{{1, 2, 2}, {2, 2, 1}}, {{4, 5, 2}, {4, 5, 2}}}
//   // r.scores    = {{41, 39}, {15, 15}}     r.context = {{1.1192, 2, 3}, {4, 5, 6}}
#pragma once

#include "attn/tensor.hpp"

namespace attn {

/// Every intermediate of Luong's general (bilinear) attention.
struct LuongGeneralStep {
    Tensor3 projected;  // (B, S, H) W_a h̄_s for every source position: encoder_outputs W_aᵀ
    Matrix scores;      // (B, S) h_t · (W_a h̄_s), before the softmax
    Matrix weights;     // (B, S) softmax of the scores over S
    Matrix context;     // (B, H) weights-averaged encoder outputs
};

/// General score: score_s = decoder_output · (W_a encoder_outputs[s]).
/// encoder_outputs (B, S, H), decoder_output (B, H), W_a (H, H) stored (out, in) as nn.Linear.
/// Throws ShapeError naming the argument and both shapes when B or H disagree, or a size is zero.
LuongGeneralStep luong_general_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                         const Matrix& W_a);

/// Every intermediate of Luong's concat attention.
struct LuongConcatStep {
    Tensor3 concatenated;  // (B, S, 2H) [h_t ; h̄_s]: the decoder state first, then the encoder output
    Tensor3 hidden;        // (B, S, A) tanh(W_a [h_t ; h̄_s])
    Matrix scores;         // (B, S) v_a · hidden, before the softmax
    Matrix weights;        // (B, S) softmax of the scores over S
    Matrix context;        // (B, H) weights-averaged encoder outputs
};

/// Concat score: score_s = v_a · tanh(W_a [decoder_output ; encoder_outputs[s]]).
/// encoder_outputs (B, S, H), decoder_output (B, H), W_a (A, 2H), v_a (1, A); no biases.
/// Throws ShapeError naming the argument and both shapes when they do not fit together.
LuongConcatStep luong_concat_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                       const Matrix& W_a, const Matrix& v_a);

}  // namespace attn
