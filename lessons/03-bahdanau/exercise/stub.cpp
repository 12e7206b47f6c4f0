// Exercise 3 — Bahdanau (additive) attention.
//
// Implement exercise::bahdanau_attention below: steps 2 to 6 of lessons/03-bahdanau/README.md
// (concatenated, preactivation, hidden, scores, weights, context), for a whole batch. Then run
//
//     ./tutor exercise 3
//
// to check it against the lesson's worked example and against the library on random inputs.
// Stuck? A run whose numbers changed and still fail shows the next hint; `./tutor exercise 3 --hint`
// shows one at once, and `./tutor exercise 3 --reset` gives you a fresh copy of this file (yours is
// kept as a backup).
//
// Shapes: B batch · S source positions · H hidden size.
// W1 and w2 are stored as nn.Linear stores its weight, (out, in): row i makes output unit i.
// Steps 5 and 6 are lesson 1's softmax and weighted mean. Step 8 of the lesson shows a bug to avoid.
// Useful: attn::Tensor3::from_shape({B, S, 2 * H}) makes an uninitialised tensor; x(b, s, j)
// reads an element; std::exp and std::tanh are in <cmath>. From the library, use only its types:
// a call to attn::bahdanau_attention, or to any other of its functions, is refused before your
// code runs.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::BahdanauStep bahdanau_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                      const attn::Matrix& W1, const attn::Vector& b1, const attn::Matrix& w2,
                                      const attn::Vector& b2) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::BahdanauStep step;
    step.concatenated = attn::Tensor3::from_shape({B, S, 2 * H});   // TODO: [h̄_s ; h_t] — encoder_outputs[b, s, ·], then decoder_output[b, ·]
    step.preactivation = attn::Tensor3::from_shape({B, S, 2 * H});  // TODO: Σ_j W1[i, j] · concatenated[b, s, j] + b1[i]
    step.hidden = attn::Tensor3::from_shape({B, S, 2 * H});         // TODO: tanh of every preactivation
    step.scores = attn::Matrix::from_shape({B, S});                 // TODO: Σ_i w2[0, i] · hidden[b, s, i] + b2[0]
    step.weights = attn::Matrix::from_shape({B, S});                // TODO: softmax of each row of the scores
    step.context = attn::Matrix::from_shape({B, H});                // TODO: context[b, h] = Σ_s weights[b, s] · encoder_outputs[b, s, h]
    (void)decoder_output;
    (void)W1;
    (void)b1;
    (void)w2;
    (void)b2;
    throw attn::exercises::NotImplementedYet("lesson 3: exercise::bahdanau_attention is not implemented yet — "
                                             "edit lessons/03-bahdanau/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
