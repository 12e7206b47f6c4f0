#include "04-causal-self-attention/exercise/mistakes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "01-dot-product/exercise/mistakes.hpp"
#include "attn/masks.hpp"
#include "attn/softmax.hpp"

namespace attn::mistakes {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

// `scores` with `hidden(t, s)` keys set to `value`.
template <class Hidden>
Tensor3 with_keys_set(Tensor3 scores, Hidden hidden, double value) {
    for (std::size_t b = 0; b < scores.shape(0); ++b)
        for (std::size_t t = 0; t < scores.shape(1); ++t)
            for (std::size_t s = 0; s < scores.shape(2); ++s)
                if (hidden(t, s)) scores(b, t, s) = value;
    return scores;
}

}  // namespace

ScaledDotProductAttentionResult attend_with_weights(ScaledDotProductAttentionResult right, Tensor3 weights,
                                                    const Tensor3& V) {
    const std::size_t B = weights.shape(0), T = weights.shape(1), S = weights.shape(2), d_v = V.shape(2);
    right.weights = std::move(weights);
    right.output = xt::zeros<double>({B, T, d_v});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t j = 0; j < d_v; ++j) right.output(b, t, j) += right.weights(b, t, s) * V(b, s, j);
    return right;
}

ScaledDotProductAttentionResult attention_unscaled(const Tensor3& Q, const Tensor3& K, const Tensor3& V, bool causal) {
    AttentionOptions options;
    options.causal = causal;
    options.scale = 1.0;  // the mistake: no division by √d_k
    return scaled_dot_product_attention(Q, K, V, options);
}

ScaledDotProductAttentionResult causal_mask_on_wrong_triangle(const ScaledDotProductAttentionResult& right,
                                                              const Tensor3& V) {
    ScaledDotProductAttentionResult wrong = right;
    wrong.masked_scores = with_keys_set(right.scores, [](std::size_t t, std::size_t s) { return s < t; }, minus_infinity);
    return attend_with_weights(wrong, softmax_last_axis(wrong.masked_scores), V);
}

ScaledDotProductAttentionResult softmax_over_queries(const ScaledDotProductAttentionResult& right, const Tensor3& V) {
    const Tensor3& masked = right.masked_scores;
    const std::size_t B = masked.shape(0), T = masked.shape(1), S = masked.shape(2);
    Tensor3 weights = Tensor3::from_shape({B, T, S});
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t s = 0; s < S; ++s) {
            double maximum = minus_infinity;
            for (std::size_t t = 0; t < T; ++t) maximum = std::max(maximum, masked(b, t, s));
            double sum = 0.0;
            for (std::size_t t = 0; t < T; ++t) sum += weights(b, t, s) = std::exp(masked(b, t, s) - maximum);
            // A column of −∞ only: e^(−∞ − (−∞)) is NaN, as PyTorch and a hand-written softmax give it.
            for (std::size_t t = 0; t < T; ++t) weights(b, t, s) = maximum == minus_infinity ? not_a_number : weights(b, t, s) / sum;
        }
    }
    return attend_with_weights(right, std::move(weights), V);
}

ScaledDotProductAttentionResult causal_mask_after_softmax(const ScaledDotProductAttentionResult& right,
                                                          const Tensor3& V) {
    ScaledDotProductAttentionResult wrong = right;
    wrong.masked_scores = right.scores;  // what the softmax saw: nothing hidden
    return attend_with_weights(wrong, with_keys_set(softmax_last_axis(right.scores), [](std::size_t t, std::size_t s) { return is_future_key(t, s); }, 0.0), V);
}

ScaledDotProductAttentionResult causal_scores_multiplied_by_mask(const ScaledDotProductAttentionResult& right,
                                                                 const Tensor3& V, CausalAlignment alignment) {
    ScaledDotProductAttentionResult wrong = right;
    const std::size_t T = right.scores.shape(1), S = right.scores.shape(2);
    const auto future = [&](std::size_t t, std::size_t s) { return is_future_key(t, s, T, S, alignment); };
    wrong.masked_scores = with_keys_set(right.scores, future, 0.0);  // score × 0, not + (−∞)
    return attend_with_weights(wrong, softmax_last_axis(wrong.masked_scores), V);
}

ScaledDotProductAttentionResult attention_unshifted_softmax(const ScaledDotProductAttentionResult& right,
                                                            const Tensor3& V) {
    return attend_with_weights(right, softmax_without_max_subtraction(right.masked_scores), V);
}

}  // namespace attn::mistakes
