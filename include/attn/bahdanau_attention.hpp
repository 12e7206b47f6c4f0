// attn/bahdanau_attention.hpp — lessons/03-bahdanau: additive attention (Bahdanau, Cho & Bengio
// 2015).
//
// Why: instead of a (bi)linear form, a small neural network judges how well each encoder output
// answers the decoder state. Both go into one hidden layer with a tanh, and a final linear layer
// turns the hidden units into one score per source position:
//
//   h       = [h̄_s ; h_t]                       the encoder output first, then the decoder state
//   score_s = w2 · tanh(W1 h + b1) + b2          W1 (2H, 2H), b1 (2H), w2 (1, 2H), b2 (1)
//
// then lessons/01-dot-product's softmax over S and weighted sum (attend_with_scores). W1 and w2 are
// stored as `nn.Linear(2H, 2H)` and `nn.Linear(2H, 1)` store them, biases included, so a PyTorch
// state_dict works unchanged. b2 shifts every score of a row by the same amount: the softmax
// removes it, and it is kept only so that the scores match PyTorch's.
//
// The textbook form. Splitting W1 = [W_enc | W_dec] by columns (W_enc = the first H columns,
// which meet h̄_s; W_dec = the last H, which meet h_t) gives W1 h = W_enc h̄_s + W_dec h_t, so
//
//   score_s = w2 · tanh(W_enc h̄_s + W_dec h_t + b1) + b2      (v_aᵀ tanh(W_enc h̄_s + W_dec h_t))
//
// bahdanau_split_scores computes it that way. The split is how real decoders run it: W_enc h̄_s is
// computed once per source sentence and reused at every decoding step; only W_dec h_t is new.
//
// Shapes: B batch · S source positions · H hidden size
//   encoder_outputs (B, S, H)   decoder_output (B, H)   W1 (2H, 2H)   b1 (2H)   w2 (1, 2H)   b2 (1)
//   scores (B, S)   weights (B, S)   context (B, H)
//
//   attn::Tensor3 A  = {{{1}, {2}}};               // (B=1, S=2, H=1)
//   attn::Matrix  b  = {{1}};
//   attn::Matrix  W1 = {{1, 0}, {0, 1}};           // h = [h̄_s ; h_t] = [1, 1] and [2, 1]
//   auto r = attn::bahdanau_attention(A, b, W1, attn::Vector{0, 0}, attn::Matrix{{1, -1}}, attn::Vector{0});
//   // r.scores = {{tanh(1) - tanh(1), tanh(2) - tanh(1)}} = {{0, 0.2024}}
#pragma once

#include "attn/tensor.hpp"

namespace attn {

/// Every intermediate of additive attention, in the order it is computed.
struct BahdanauStep {
    Tensor3 concatenated;   // (B, S, 2H) h = [h̄_s ; h_t]
    Tensor3 preactivation;  // (B, S, 2H) W1 h + b1
    Tensor3 hidden;         // (B, S, 2H) tanh(W1 h + b1)
    Matrix scores;          // (B, S) w2 · hidden + b2, before the softmax
    Matrix weights;         // (B, S) softmax of the scores over S
    Matrix context;         // (B, H) weights-averaged encoder outputs
};

/// Additive attention through the concatenation, as the seed notebook's nn.Linear version computes it.
/// encoder_outputs (B, S, H), decoder_output (B, H), W1 (2H, 2H), b1 (2H), w2 (1, 2H), b2 (1).
/// Throws ShapeError naming the argument and both shapes when they do not fit together.
BahdanauStep bahdanau_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output, const Matrix& W1,
                                const Vector& b1, const Matrix& w2, const Vector& b2);

/// The same scores through W1's two column blocks (the textbook form).
struct BahdanauSplitScores {
    Tensor3 encoder_projection;  // (B, S, 2H) W_enc h̄_s, W_enc = W1[:, :H]; independent of the decoder state
    Matrix decoder_projection;   // (B, 2H) W_dec h_t, W_dec = W1[:, H:]; one per sentence, shared by all S
    Tensor3 preactivation;       // (B, S, 2H) W_enc h̄_s + W_dec h_t + b1 — equal to BahdanauStep::preactivation
    Matrix scores;               // (B, S) w2 · tanh(preactivation) + b2 — equal to BahdanauStep::scores
};

/// Same arguments and checks as bahdanau_attention; returns the scores computed block by block.
BahdanauSplitScores bahdanau_split_scores(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                          const Matrix& W1, const Vector& b1, const Matrix& w2, const Vector& b2);

}  // namespace attn
