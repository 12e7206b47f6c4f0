// Exercise 5, solved: multi-head attention written out step by step, as
// lessons/05-multi-head-attention/README.md computes it. A reference, not a shortcut: it uses no
// library function (not even attn::linear, which the exercise allows), and
// `attn exercise 5 --file lessons/05-multi-head-attention/exercise/solution.cpp` passes every case.
//
// Shapes: B batch · T queries · S keys · D model width · h heads · d_k = D / h per head.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exercise.hpp"

namespace {

// x W^T + b over the last axis of (B, N, D), W stored (out, in) as nn.Linear stores it; no bias
// when `bias` is null.
attn::Tensor3 project(const attn::Tensor3& x, const attn::Matrix& W, const attn::Vector* bias) {
    const std::size_t B = x.shape(0), N = x.shape(1), D_in = x.shape(2), D_out = W.shape(0);
    attn::Tensor3 y = attn::Tensor3::from_shape({B, N, D_out});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t n = 0; n < N; ++n)
            for (std::size_t o = 0; o < D_out; ++o) {
                double sum = bias ? (*bias)(o) : 0.0;
                for (std::size_t i = 0; i < D_in; ++i) sum += W(o, i) * x(b, n, i);
                y(b, n, o) = sum;
            }
    return y;
}

}  // namespace

namespace exercise {

// Step 3 — head j takes features j·d_k … (j+1)·d_k − 1 of every position (a view, then a transpose
// in PyTorch; a reshape alone would hand whole positions to each head).
attn::Tensor4 split_heads(const attn::Tensor3& x, std::size_t heads) {
    const std::size_t B = x.shape(0), T = x.shape(1), d_k = x.shape(2) / heads;
    attn::Tensor4 out = attn::Tensor4::from_shape({B, heads, T, d_k});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t i = 0; i < d_k; ++i) out(b, j, t, i) = x(b, t, j * d_k + i);
    return out;
}

// Step 6 — the inverse: each position gets every head's d_k features back, side by side.
attn::Tensor3 merge_heads(const attn::Tensor4& x) {
    const std::size_t B = x.shape(0), heads = x.shape(1), T = x.shape(2), d_k = x.shape(3);
    attn::Tensor3 out = attn::Tensor3::from_shape({B, T, heads * d_k});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t i = 0; i < d_k; ++i) out(b, t, j * d_k + i) = x(b, j, t, i);
    return out;
}

attn::MultiHeadAttentionResult multi_head_attention(const attn::Tensor3& query, const attn::Tensor3& key,
                                                    const attn::Tensor3& value,
                                                    const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                                    const std::optional<attn::Matrix>& attention_mask) {
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), D = query.shape(2), d_k = D / heads;
    const double minus_infinity = -std::numeric_limits<double>::infinity();
    attn::MultiHeadAttentionResult r;

    // Step 2 — the three projections, nn.Linear with bias.
    r.q = project(query, weights.w_q, &weights.b_q);
    r.k = project(key, weights.w_k, &weights.b_k);
    r.v = project(value, weights.w_v, &weights.b_v);
    // Step 3 — cut each into h heads of d_k features.
    r.q_heads = split_heads(r.q, heads);
    r.k_heads = split_heads(r.k, heads);
    r.v_heads = split_heads(r.v, heads);

    r.scores = attn::Tensor4::from_shape({B, heads, T, S});
    r.weights = attn::Tensor4::from_shape({B, heads, T, S});
    r.context_heads = attn::Tensor4::from_shape({B, heads, T, d_k});
    const double scale = 1.0 / std::sqrt(double(d_k));  // d_k, the width of one head — not D
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t j = 0; j < heads; ++j) {
            for (std::size_t t = 0; t < T; ++t) {
                // Step 4 — each head is lesson 4 on its own d_k features: q_j k_jᵀ / √d_k.
                for (std::size_t s = 0; s < S; ++s) {
                    double dot = 0.0;
                    for (std::size_t i = 0; i < d_k; ++i) dot += r.q_heads(b, j, t, i) * r.k_heads(b, j, s, i);
                    r.scores(b, j, t, s) = dot * scale;
                }
                // Step 5 — the padding mask hides keys before the softmax (1 = a real token,
                // 0 = padding), the same keys for every head and query of sentence b. A query
                // with no visible key gets weights of zero, as the lesson decides (step 10).
                double maximum = minus_infinity;
                for (std::size_t s = 0; s < S; ++s) {
                    const bool hidden = attention_mask && (*attention_mask)(b, s) == 0.0;
                    r.weights(b, j, t, s) = hidden ? minus_infinity : r.scores(b, j, t, s);
                    maximum = std::max(maximum, r.weights(b, j, t, s));
                }
                double sum = 0.0;
                for (std::size_t s = 0; s < S; ++s) {
                    r.weights(b, j, t, s) = maximum == minus_infinity ? 0.0 : std::exp(r.weights(b, j, t, s) - maximum);
                    sum += r.weights(b, j, t, s);
                }
                for (std::size_t s = 0; s < S && sum > 0.0; ++s) r.weights(b, j, t, s) /= sum;
                // The head's output for this query: the weighted mean of its values.
                for (std::size_t i = 0; i < d_k; ++i) {
                    double mean = 0.0;
                    for (std::size_t s = 0; s < S; ++s) mean += r.weights(b, j, t, s) * r.v_heads(b, j, s, i);
                    r.context_heads(b, j, t, i) = mean;
                }
            }
        }
    }
    // Step 6 — the heads side by side again; step 7 — the output projection, when there is one.
    r.context = merge_heads(r.context_heads);
    r.output = weights.w_o ? project(r.context, *weights.w_o, weights.b_o ? &*weights.b_o : nullptr) : r.context;
    return r;
}

}  // namespace exercise
