// Exercise 10 — the backward pass: the softmax's gradient, then scaled dot-product attention's.
//
// Implement the two functions below (lessons/10-backward/README.md): softmax_backward_rows, the
// gradient of a softmax row given its output and the gradient of its output, and
// attention_backward, the gradients of Q, K and V given the gradient of attention's output. Then
// run
//
//     ./tutor exercise 10
//
// to check them against the library's backward (itself checked against PyTorch's autograd) and
// against central finite differences of the library's forward. Stuck? A run whose numbers
// changed and still fail shows the next hint; `./tutor exercise 10 --hint` shows one at once, and
// `./tutor exercise 10 --reset` gives you a fresh copy of this file (yours is kept as a backup).
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width.
// Useful: attn::Tensor3::from_shape({B, T, S}) makes an uninitialised tensor; x(b, t, s) reads
// and writes an element; std::sqrt is in <cmath>, std::numeric_limits<double>::infinity() in
// <limits>. From the library you may call attn::softmax_last_axis (a row of −∞ only becomes
// zeros); a call to any other of its functions is refused before your code runs.
#include <cmath>
#include <limits>

#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace exercise {

attn::Matrix softmax_backward_rows(const attn::Matrix& weights, const attn::Matrix& grad_weights) {
    // TODO: for each row r, with P = weights and dP = grad_weights,
    //   dS(r, s) = P(r, s) · (dP(r, s) − Σ_j dP(r, j) · P(r, j))
    (void)weights;
    (void)grad_weights;
    throw attn::exercises::NotImplementedYet("lesson 10: exercise::softmax_backward_rows is not implemented yet — "
                                             "edit lessons/10-backward/exercise/exercise.cpp");
}

AttentionGradients attention_backward(const attn::Tensor3& query, const attn::Tensor3& key, const attn::Tensor3& value,
                                      const std::optional<attn::Tensor3>& mask, const attn::Tensor3& grad_output) {
    AttentionGradients g;
    // TODO:
    //   g.weights = softmax over s of query(t) · key(s) / √d_k, −∞ where mask(b, t, s) is 0 (B, T, S)
    //   g.grad_weights = dO Vᵀ (B, T, S);  g.grad_scores = each row's softmax backward (B, T, S)
    //   g.grad_value = Pᵀ dO (B, S, d_v)
    //   g.grad_query = dS K / √d_k (B, T, d_k);  g.grad_key = dSᵀ Q / √d_k (B, S, d_k)
    (void)query;
    (void)key;
    (void)value;
    (void)mask;
    (void)grad_output;
    throw attn::exercises::NotImplementedYet("lesson 10: exercise::attention_backward is not implemented yet — "
                                             "edit lessons/10-backward/exercise/exercise.cpp");
    return g;
}

}  // namespace exercise
