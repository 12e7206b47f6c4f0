// Exercise 5, a second correct implementation written from lessons/05-multi-head-attention/README.md
// alone: split_heads and merge_heads through flat indices, and attention head by head on column
// slices of q, k, v (seed 004's per-head loop) rather than on the split tensors.
#include <cmath>
#include <limits>
#include <vector>

#include "exercise.hpp"

namespace {

attn::Tensor3 linear_layer(const attn::Tensor3& x, const attn::Matrix& W, const attn::Vector* b) {
    attn::Tensor3 y = attn::Tensor3::from_shape({x.shape(0), x.shape(1), W.shape(0)});
    for (std::size_t n = 0; n < x.shape(0) * x.shape(1); ++n)
        for (std::size_t o = 0; o < W.shape(0); ++o) {
            double sum = 0.0;
            for (std::size_t i = 0; i < W.shape(1); ++i) sum += x.data()[n * x.shape(2) + i] * W(o, i);
            y.data()[n * W.shape(0) + o] = sum + (b ? (*b)(o) : 0.0);
        }
    return y;
}

}  // namespace

namespace exercise {

attn::Tensor4 split_heads(const attn::Tensor3& x, std::size_t heads) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2), d_k = D / heads;
    attn::Tensor4 out = attn::Tensor4::from_shape({B, heads, T, d_k});
    for (std::size_t flat = 0; flat < x.size(); ++flat) {  // x(b, t, f) goes to head f / d_k, feature f % d_k
        const std::size_t b = flat / (T * D), t = flat / D % T, f = flat % D;
        out(b, f / d_k, t, f % d_k) = x.data()[flat];
    }
    return out;
}

attn::Tensor3 merge_heads(const attn::Tensor4& x) {
    const std::size_t B = x.shape(0), heads = x.shape(1), T = x.shape(2), d_k = x.shape(3);
    attn::Tensor3 out = attn::Tensor3::from_shape({B, T, heads * d_k});
    for (std::size_t flat = 0; flat < x.size(); ++flat) {
        const std::size_t b = flat / (heads * T * d_k), j = flat / (T * d_k) % heads, t = flat / d_k % T, i = flat % d_k;
        out(b, t, j * d_k + i) = x.data()[flat];
    }
    return out;
}

attn::MultiHeadAttentionResult multi_head_attention(const attn::Tensor3& query, const attn::Tensor3& key,
                                                    const attn::Tensor3& value,
                                                    const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                                    const std::optional<attn::Matrix>& attention_mask) {
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), D = query.shape(2), d_k = D / heads;
    attn::MultiHeadAttentionResult r;
    r.q = linear_layer(query, weights.w_q, &weights.b_q);
    r.k = linear_layer(key, weights.w_k, &weights.b_k);
    r.v = linear_layer(value, weights.w_v, &weights.b_v);
    r.q_heads = split_heads(r.q, heads);
    r.k_heads = split_heads(r.k, heads);
    r.v_heads = split_heads(r.v, heads);
    r.scores = attn::Tensor4::from_shape({B, heads, T, S});
    r.weights = attn::Tensor4::from_shape({B, heads, T, S});
    r.context_heads = attn::Tensor4::from_shape({B, heads, T, d_k});
    for (std::size_t j = 0; j < heads; ++j) {
        const std::size_t first = j * d_k;  // head j's columns of q, k, v
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t t = 0; t < T; ++t) {
                std::vector<double> row(S);
                std::vector<bool> seen(S);
                double top = -std::numeric_limits<double>::infinity();
                bool any = false;
                for (std::size_t s = 0; s < S; ++s) {
                    double dot = 0.0;
                    for (std::size_t i = 0; i < d_k; ++i) dot += r.q(b, t, first + i) * r.k(b, s, first + i);
                    r.scores(b, j, t, s) = dot / std::sqrt(static_cast<double>(d_k));
#ifdef PLANTED_MASK_ON_HEADS_AXIS
                    seen[s] = !attention_mask || (*attention_mask)(j, s) != 0.0;  // seed 000's broadcast
#else
                    seen[s] = !attention_mask || (*attention_mask)(b, s) != 0.0;
#endif
                    if (seen[s] && r.scores(b, j, t, s) > top) top = r.scores(b, j, t, s);
                    any = any || seen[s];
                }
                double total = 0.0;
                for (std::size_t s = 0; s < S; ++s) total += row[s] = seen[s] ? std::exp(r.scores(b, j, t, s) - top) : 0.0;
                for (std::size_t s = 0; s < S; ++s) {
#ifdef PLANTED_NAN_FOR_FULLY_MASKED
                    (void)any;
                    r.weights(b, j, t, s) = row[s] / total;  // 0 / 0 for a query with no visible key
#else
                    r.weights(b, j, t, s) = any ? row[s] / total : 0.0;
#endif
                }
                for (std::size_t i = 0; i < d_k; ++i) {
                    double sum = 0.0;
                    for (std::size_t s = 0; s < S; ++s) sum += r.weights(b, j, t, s) * r.v(b, s, first + i);
                    r.context_heads(b, j, t, i) = sum;
                }
            }
        }
    }
    r.context = merge_heads(r.context_heads);
    r.output = weights.w_o ? linear_layer(r.context, *weights.w_o, weights.b_o ? &*weights.b_o : nullptr) : r.context;
    return r;
}

}  // namespace exercise
