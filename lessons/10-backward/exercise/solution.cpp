// Exercise 10 — a solution (CI checks that it passes: -DATTN_EXERCISE_SOLUTIONS=ON).
//
// The forward is recomputed (P from Q, K and the mask, attn::softmax_last_axis turning a row of −∞
// into zeros), then read backwards: dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − rowsum(dP ∘ P)),
// dQ = dS K / √d_k, dK = dSᵀ Q / √d_k. Loops written out, one batch item at a time.
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width.
#include <cmath>
#include <limits>

#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace exercise {

attn::Matrix softmax_backward_rows(const attn::Matrix& weights, const attn::Matrix& grad_weights) {
    attn::Matrix grad_scores = attn::Matrix::from_shape(weights.shape());
    for (std::size_t r = 0; r < weights.shape(0); ++r) {
        double row_dot = 0.0;  // dP · P: how much the loss moves when the whole row moves together
        for (std::size_t s = 0; s < weights.shape(1); ++s) row_dot += grad_weights(r, s) * weights(r, s);
        for (std::size_t s = 0; s < weights.shape(1); ++s)
            grad_scores(r, s) = weights(r, s) * (grad_weights(r, s) - row_dot);
    }
    return grad_scores;
}

namespace {

// P = softmax(Q Kᵀ / √d_k), −∞ where the mask is 0.
attn::Tensor3 recomputed_weights(const attn::Tensor3& q, const attn::Tensor3& k, const std::optional<attn::Tensor3>& mask) {
    const std::size_t B = q.shape(0), T = q.shape(1), S = k.shape(1), d_k = q.shape(2);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));
    attn::Tensor3 scores = attn::Tensor3::from_shape({B, T, S});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < S; ++s) {
                double sum = 0.0;
                for (std::size_t i = 0; i < d_k; ++i) sum += q(b, t, i) * k(b, s, i);
                const bool hidden = mask && (*mask)(b, t, s) == 0.0;
                scores(b, t, s) = hidden ? -std::numeric_limits<double>::infinity() : sum * scale;
            }
    return attn::softmax_last_axis(scores);
}

}  // namespace

AttentionGradients attention_backward(const attn::Tensor3& query, const attn::Tensor3& key, const attn::Tensor3& value,
                                      const std::optional<attn::Tensor3>& mask, const attn::Tensor3& grad_output) {
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1);
    const std::size_t d_k = query.shape(2), d_v = value.shape(2);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));
    AttentionGradients g;
    g.weights = recomputed_weights(query, key, mask);
    g.grad_weights = attn::Tensor3::from_shape({B, T, S});
    g.grad_scores = attn::Tensor3::from_shape({B, T, S});
    g.grad_query = attn::Tensor3::from_shape({B, T, d_k});
    g.grad_key = attn::Tensor3::from_shape({B, S, d_k});
    g.grad_value = attn::Tensor3::from_shape({B, S, d_v});
    for (std::size_t b = 0; b < B; ++b) {
        attn::Matrix P = attn::Matrix::from_shape({T, S}), dP = P;
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < S; ++s) {
                P(t, s) = g.weights(b, t, s);
                double sum = 0.0;  // dP = dO Vᵀ: output row t moves with value row s by P(t, s)
                for (std::size_t j = 0; j < d_v; ++j) sum += grad_output(b, t, j) * value(b, s, j);
                dP(t, s) = g.grad_weights(b, t, s) = sum;
            }
        const attn::Matrix dS = softmax_backward_rows(P, dP);
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < S; ++s) g.grad_scores(b, t, s) = dS(t, s);
        for (std::size_t s = 0; s < S; ++s) {
            for (std::size_t j = 0; j < d_v; ++j) {  // dV = Pᵀ dO
                double sum = 0.0;
                for (std::size_t t = 0; t < T; ++t) sum += P(t, s) * grad_output(b, t, j);
                g.grad_value(b, s, j) = sum;
            }
            for (std::size_t i = 0; i < d_k; ++i) {  // dK = dSᵀ Q / √d_k
                double sum = 0.0;
                for (std::size_t t = 0; t < T; ++t) sum += dS(t, s) * query(b, t, i);
                g.grad_key(b, s, i) = sum * scale;
            }
        }
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t i = 0; i < d_k; ++i) {  // dQ = dS K / √d_k
                double sum = 0.0;
                for (std::size_t s = 0; s < S; ++s) sum += dS(t, s) * key(b, s, i);
                g.grad_query(b, t, i) = sum * scale;
            }
    }
    return g;
}

}  // namespace exercise
