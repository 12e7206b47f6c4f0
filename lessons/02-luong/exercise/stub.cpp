// Exercise 2 — Luong attention with the general score.
//
// Implement exercise::luong_general_attention below: steps 2 to 5 of lessons/02-luong/README.md
// (projected, scores, weights, context), for a whole batch. Then run
//
//     ./tutor exercise 2
//
// to check it against the lesson's worked example and against the library on random inputs.
// Stuck? A run whose numbers changed and still fail shows the next hint; `./tutor exercise 2 --hint`
// shows one at once, and `./tutor exercise 2 --reset` gives you a fresh copy of this file (yours is
// kept as a backup).
//
// Shapes: B batch · S source positions · H hidden size.
// W_a is stored as nn.Linear(H, H, bias=False).weight stores it: row i makes output feature i, so
// (W_a h̄_s)[i] = Σ_j W_a[i, j] · h̄_s[j]. Steps 4 and 5 are lesson 1's softmax and weighted mean.
// Useful: attn::Tensor3::from_shape({B, S, H}) makes an uninitialised (B, S, H) tensor; x(b, s, h)
// reads an element; std::exp is in <cmath>. From the library, use only its types: a call to
// attn::luong_general_attention, or to any other of its functions, is refused before your code runs.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::LuongGeneralStep luong_general_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                               const attn::Matrix& W_a) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::LuongGeneralStep step;
    step.projected = attn::Tensor3::from_shape({B, S, H});  // TODO: projected[b, s, i] = Σ_j W_a[i, j] · encoder_outputs[b, s, j]
    step.scores = attn::Matrix::from_shape({B, S});         // TODO: score[b, s] = Σ_i decoder_output[b, i] · projected[b, s, i]
    step.weights = attn::Matrix::from_shape({B, S});        // TODO: softmax of each row of the scores
    step.context = attn::Matrix::from_shape({B, H});        // TODO: context[b, h] = Σ_s weights[b, s] · encoder_outputs[b, s, h]
    (void)decoder_output;
    (void)W_a;
    throw attn::exercises::NotImplementedYet("lesson 2: exercise::luong_general_attention is not implemented yet — "
                                             "edit lessons/02-luong/exercise/exercise.cpp");
    return step;
}

}  // namespace exercise
