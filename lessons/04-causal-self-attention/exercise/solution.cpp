// Exercise 4, solved: scaled dot-product attention with the causal mask, written out step by step
// as lessons/04-causal-self-attention/README.md computes it. A reference, not a shortcut: it uses
// no library function, and `attn exercise 4 --file lessons/04-causal-self-attention/exercise/solution.cpp`
// passes every case.
//
// Shapes: B batch · T queries · S keys · d_k query/key width · d_v value width.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exercise.hpp"

namespace exercise {

attn::ScaledDotProductAttentionResult scaled_dot_product_attention(const attn::Tensor3& Q, const attn::Tensor3& K,
                                                                   const attn::Tensor3& V, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), d_k = Q.shape(2), d_v = V.shape(2);
    const double minus_infinity = -std::numeric_limits<double>::infinity();
    const double scale = 1.0 / std::sqrt(double(d_k));
    attn::ScaledDotProductAttentionResult result;
    result.scores = attn::Tensor3::from_shape({B, T, S});
    result.masked_scores = attn::Tensor3::from_shape({B, T, S});
    result.weights = attn::Tensor3::from_shape({B, T, S});
    result.output = attn::Tensor3::from_shape({B, T, d_v});

    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            // Step 2 — every query meets every key: Q Kᵀ / √d_k.
            for (std::size_t s = 0; s < S; ++s) {
                double dot = 0.0;
                for (std::size_t i = 0; i < d_k; ++i) dot += Q(b, t, i) * K(b, s, i);
                result.scores(b, t, s) = dot * scale;
                // Step 3 — the causal mask is *added* before the softmax: −∞ for a key in the
                // query's future (s > t), so that e^(−∞) = 0 gives it no weight at all.
                result.masked_scores(b, t, s) = causal && s > t ? minus_infinity : result.scores(b, t, s);
            }

            // Step 4 — softmax along the row, over the keys. The maximum is over the visible keys
            // (key 0 is always visible: query t sees keys 0 … t), so e^x never overflows.
            double maximum = minus_infinity;
            for (std::size_t s = 0; s < S; ++s) maximum = std::max(maximum, result.masked_scores(b, t, s));
            double sum = 0.0;
            for (std::size_t s = 0; s < S; ++s) {
                result.weights(b, t, s) = std::exp(result.masked_scores(b, t, s) - maximum);
                sum += result.weights(b, t, s);
            }
            for (std::size_t s = 0; s < S; ++s) result.weights(b, t, s) /= sum;

            // Step 5 — the output: the weighted mean of the values.
            for (std::size_t j = 0; j < d_v; ++j) {
                double mean = 0.0;
                for (std::size_t s = 0; s < S; ++s) mean += result.weights(b, t, s) * V(b, s, j);
                result.output(b, t, j) = mean;
            }
        }
    }
    return result;
}

}  // namespace exercise
