// Exercise 4 — causal scaled dot-product self-attention.
//
// Implement exercise::scaled_dot_product_attention below: steps 2 to 5 of
// lessons/04-causal-self-attention/README.md (scores, masked_scores, weights, output), for a
// whole batch, with the causal mask when `causal` is true. Then run
//
//     ./tutor exercise 4
//
// to check it against the lesson's worked examples and against the library on random inputs.
// Stuck? A run whose numbers changed and still fail shows the next hint; `./tutor exercise 4 --hint`
// shows one at once, and `./tutor exercise 4 --reset` gives you a fresh copy of this file (yours is
// kept as a backup).
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width. T and S may differ.
// Useful: attn::Tensor3::from_shape({B, T, S}) makes an uninitialised tensor; x(b, t, s) reads an
// element; std::exp and std::sqrt are in <cmath>, std::numeric_limits<double>::infinity() in
// <limits>. From the library, use only its types: a call to attn::scaled_dot_product_attention,
// or to any other of its functions, is refused before your code runs.
#include <cmath>
#include <limits>

#include "exercise.hpp"

namespace exercise {

attn::ScaledDotProductAttentionResult scaled_dot_product_attention(const attn::Tensor3& Q, const attn::Tensor3& K,
                                                                   const attn::Tensor3& V, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), d_v = V.shape(2);
    attn::ScaledDotProductAttentionResult result;
    result.scores = attn::Tensor3::from_shape({B, T, S});         // TODO: Σ_i Q[b, t, i] · K[b, s, i], divided by √d_k
    result.masked_scores = attn::Tensor3::from_shape({B, T, S});  // TODO: the scores, with −∞ where causal and s > t
    result.weights = attn::Tensor3::from_shape({B, T, S});        // TODO: softmax of each row (over s) of masked_scores
    result.output = attn::Tensor3::from_shape({B, T, d_v});       // TODO: output[b, t, j] = Σ_s weights[b, t, s] · V[b, s, j]
    (void)causal;
    throw attn::exercises::NotImplementedYet("lesson 4: exercise::scaled_dot_product_attention is not implemented yet — "
                                             "edit lessons/04-causal-self-attention/exercise/exercise.cpp");
    return result;
}

}  // namespace exercise
