// Exercise 1 — dot-product attention.
//
// Implement exercise::dot_attention below: the three steps of lessons/01-dot-product/README.md
// (scores, weights, context), for a whole batch. Then run
//
//     ./tutor exercise 1
//
// to check it against the lesson's worked example and against the library on random inputs.
// Stuck? A run whose numbers changed and still fail shows the next hint; `./tutor exercise 1 --hint`
// shows one at once, and `./tutor exercise 1 --reset` gives you a fresh copy of this file (yours is
// kept as a backup).
//
// Shapes: B batch · S source positions · H hidden size.
// Useful: attn::Matrix::from_shape({B, S}) makes an uninitialised (B, S) matrix; x(b, s, h)
// reads an element; std::exp is in <cmath>. From the library, use only its types: a call to
// attn::dot_attention, or to any other of its functions, is refused before your code runs.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::AttentionStep step;
    step.scores = attn::Matrix::from_shape({B, S});    // TODO: score[b, s] = Σ_h encoder_outputs[b, s, h] · decoder_output[b, h]
    step.weights = attn::Matrix::from_shape({B, S});   // TODO: softmax of each row of the scores
    step.context = attn::Matrix::from_shape({B, H});   // TODO: context[b, h] = Σ_s weights[b, s] · encoder_outputs[b, s, h]
    (void)decoder_output;
    throw attn::exercises::NotImplementedYet("lesson 1: exercise::dot_attention is not implemented yet — "
                                             "edit lessons/01-dot-product/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
