// Exercise 10, a second correct implementation written from lessons/10-backward/README.md alone:
// no library function; the softmax by log-sum-exp over the visible keys only, its backward as the
// Jacobian (diag(p) − p pᵀ) applied to dp entry by entry, and dQ, dK, dV accumulated in one pass
// over the (query, key) pairs instead of as matrix products.
// A few `#ifdef PLANTED_…` lines make it one of the mistakes the checker names
// (tests/data/exercises/planted/).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "exercise.hpp"

namespace {

// ∂softmax_i/∂s_j = p_i (δ_ij − p_j), applied to dp: Σ_j p_i (δ_ij − p_j) dp_j.
std::vector<double> jacobian_times(const std::vector<double>& p, const std::vector<double>& dp) {
    std::vector<double> ds(p.size(), 0.0);
    for (std::size_t i = 0; i < p.size(); ++i)
        for (std::size_t j = 0; j < p.size(); ++j) {
            const double delta = i == j ? 1.0 : 0.0;
#ifdef PLANTED_ROW_SUM_FORGOTTEN
            ds[i] += p[i] * delta * dp[j];
#else
            ds[i] += p[i] * (delta - p[j]) * dp[j];
#endif
        }
    return ds;
}

// The softmax of `scores` over the entries `visible` marks, by log-sum-exp; hidden entries and a
// row with nothing visible get 0.
std::vector<double> softmax_visible(const std::vector<double>& scores, const std::vector<bool>& visible) {
    std::vector<double> weights(scores.size(), 0.0);
#ifdef PLANTED_NAN_FOR_FULLY_MASKED
    // The row's maximum over every entry, −∞ for the hidden ones: e^(−∞ − (−∞)) = NaN on a row of −∞.
    double row_max = -HUGE_VAL, denominator = 0.0;
    for (std::size_t s = 0; s < scores.size(); ++s) row_max = std::max(row_max, visible[s] ? scores[s] : -HUGE_VAL);
    for (std::size_t s = 0; s < scores.size(); ++s) denominator += std::exp((visible[s] ? scores[s] : -HUGE_VAL) - row_max);
    for (std::size_t s = 0; s < scores.size(); ++s)
        weights[s] = std::exp((visible[s] ? scores[s] : -HUGE_VAL) - row_max) / denominator;
    return weights;
#endif
    double top = -HUGE_VAL;
    for (std::size_t s = 0; s < scores.size(); ++s)
        if (visible[s]) top = std::max(top, scores[s]);
    if (top == -HUGE_VAL) return weights;
    double sum = 0.0;
    for (std::size_t s = 0; s < scores.size(); ++s)
        if (visible[s]) sum += std::exp(scores[s] - top);
    const double log_sum = top + std::log(sum);
    for (std::size_t s = 0; s < scores.size(); ++s)
        if (visible[s]) weights[s] = std::exp(scores[s] - log_sum);
    return weights;
}

}  // namespace

namespace exercise {

attn::Matrix softmax_backward_rows(const attn::Matrix& weights, const attn::Matrix& grad_weights) {
    const std::size_t R = weights.shape(0), S = weights.shape(1);
    attn::Matrix grad_scores = attn::Matrix::from_shape({R, S});
    for (std::size_t r = 0; r < R; ++r) {
        std::vector<double> p(S), dp(S);
        for (std::size_t s = 0; s < S; ++s) p[s] = weights(r, s), dp[s] = grad_weights(r, s);
        const std::vector<double> ds = jacobian_times(p, dp);
        for (std::size_t s = 0; s < S; ++s) grad_scores(r, s) = ds[s];
    }
    return grad_scores;
}

AttentionGradients attention_backward(const attn::Tensor3& query, const attn::Tensor3& key, const attn::Tensor3& value,
                                      const std::optional<attn::Tensor3>& mask, const attn::Tensor3& grad_output) {
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1);
    const std::size_t d_k = query.shape(2), d_v = value.shape(2);
#ifdef PLANTED_SCALE_LEFT_OUT
    const double gradient_scale = 1.0;
#else
    const double gradient_scale = 1.0 / std::sqrt(static_cast<double>(d_k));
#endif
    AttentionGradients g;
    g.weights = attn::Tensor3::from_shape({B, T, S});
    g.grad_weights = attn::Tensor3::from_shape({B, T, S});
    g.grad_scores = attn::Tensor3::from_shape({B, T, S});
    g.grad_query = attn::Tensor3::from_shape({B, T, d_k});
    g.grad_query.fill(0.0);
    g.grad_key = attn::Tensor3::from_shape({B, S, d_k});
    g.grad_key.fill(0.0);
    g.grad_value = attn::Tensor3::from_shape({B, S, d_v});
    g.grad_value.fill(0.0);
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            std::vector<double> scores(S), dp(S);
            std::vector<bool> visible(S, true);
            for (std::size_t s = 0; s < S; ++s) {
                double qk = 0.0, dov = 0.0;
                for (std::size_t i = 0; i < d_k; ++i) qk += query(b, t, i) * key(b, s, i);
                for (std::size_t j = 0; j < d_v; ++j) dov += grad_output(b, t, j) * value(b, s, j);
                scores[s] = qk / std::sqrt(static_cast<double>(d_k));
                dp[s] = dov;
#ifndef PLANTED_MASK_IGNORED
                if (mask) visible[s] = (*mask)(b, t, s) != 0.0;
#endif
            }
            const std::vector<double> p = softmax_visible(scores, visible);
            const std::vector<double> ds = jacobian_times(p, dp);
            for (std::size_t s = 0; s < S; ++s) {
                g.weights(b, t, s) = p[s];
                g.grad_weights(b, t, s) = dp[s];
                g.grad_scores(b, t, s) = ds[s];
            }
        }
        // Every (query, key) pair sends its share to Q, K and V.
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < S; ++s) {
                const double ds = g.grad_scores(b, t, s) * gradient_scale;
                for (std::size_t i = 0; i < d_k; ++i) {
                    g.grad_query(b, t, i) += ds * key(b, s, i);
                    g.grad_key(b, s, i) += ds * query(b, t, i);
                }
#ifdef PLANTED_VALUE_TRANSPOSE_FORGOTTEN
                const double p = g.weights(b, s, t);  // P(s, t) where P(t, s) belongs: defined only when T = S
#else
                const double p = g.weights(b, t, s);
#endif
                for (std::size_t j = 0; j < d_v; ++j) g.grad_value(b, s, j) += p * grad_output(b, t, j);
            }
    }
#ifdef PLANTED_QUERY_KEY_SWAPPED
    std::swap(g.grad_query, g.grad_key);
#endif
    return g;
}

}  // namespace exercise
