// Exercise 4, a second correct implementation written from lessons/04-causal-self-attention/README.md
// alone: each query's visible keys counted first (keys 0 … t when causal), the softmax taken over
// those only, the hidden ones given −∞ and weight 0 directly; the output accumulated value by value.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exercise.hpp"

namespace exercise {

attn::ScaledDotProductAttentionResult scaled_dot_product_attention(const attn::Tensor3& Q, const attn::Tensor3& K,
                                                                   const attn::Tensor3& V, bool causal) {
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), d = Q.shape(2), d_v = V.shape(2);
    const double root = std::sqrt(static_cast<double>(d));
    attn::ScaledDotProductAttentionResult out;
    out.scores = attn::Tensor3::from_shape({B, T, S});
    out.masked_scores = attn::Tensor3::from_shape({B, T, S});
    out.weights = attn::Tensor3::from_shape({B, T, S});
    out.output = attn::Tensor3::from_shape({B, T, d_v});
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            const std::size_t visible = causal ? std::min(t + 1, S) : S;
            double top = -std::numeric_limits<double>::infinity(), total = 0.0;
            for (std::size_t s = 0; s < S; ++s) {
                double dot = 0.0;
                for (std::size_t i = 0; i < d; ++i) dot += Q(b, t, i) * K(b, s, i);
                out.scores(b, t, s) = dot / root;
                out.masked_scores(b, t, s) = s < visible ? out.scores(b, t, s) : -std::numeric_limits<double>::infinity();
                if (s < visible) top = std::max(top, out.scores(b, t, s));
            }
            for (std::size_t s = 0; s < visible; ++s) total += std::exp(out.scores(b, t, s) - top);
            for (std::size_t s = 0; s < S; ++s) out.weights(b, t, s) = s < visible ? std::exp(out.scores(b, t, s) - top) / total : 0.0;
            for (std::size_t j = 0; j < d_v; ++j) out.output(b, t, j) = 0.0;
            for (std::size_t s = 0; s < visible; ++s)
                for (std::size_t j = 0; j < d_v; ++j) out.output(b, t, j) += out.weights(b, t, s) * V(b, s, j);
        }
    }
    return out;
}

}  // namespace exercise
