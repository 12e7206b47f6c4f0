// Exercise 9 — a solution (CI checks that it passes: -DATTN_EXERCISE_SOLUTIONS=ON).
//
// Both functions are lesson 5's attention with other inputs: cross-attention takes its queries from
// the decoder and its keys and values from the memory, with only the memory's padding hidden; the
// decoding step appends to the cache first and then lets query head j read K/V head j / (h/g).
// It uses the library functions the exercise allows (attn::linear, attn::split_heads,
// attn::merge_heads, attn::softmax_last_axis) and writes the rest out.
//
// Shapes: B batch · T decoder positions · S memory positions · D model width · h query heads ·
// g K/V heads · d_k = D / h · P cached positions · n new tokens.
#include <cmath>
#include <limits>

#include "attn/linear.hpp"
#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace {

const double hidden = -std::numeric_limits<double>::infinity();

double dot(const attn::Tensor4& a, std::size_t b, std::size_t head, std::size_t t, const attn::Tensor4& c,
           std::size_t c_head, std::size_t s) {
    double sum = 0.0;
    for (std::size_t i = 0; i < a.shape(3); ++i) sum += a(b, head, t, i) * c(b, c_head, s, i);
    return sum;
}

// weights (B, h, T, S) · values (B, G, S, d_v) → (B, h, T, d_v), query head j reading value head
// j / group (group = h / G; 1 when every head has its own values).
attn::Tensor4 weighted_values(const attn::Tensor4& weights, const attn::Tensor4& values, std::size_t group) {
    const std::size_t B = weights.shape(0), h = weights.shape(1), T = weights.shape(2), S = weights.shape(3);
    const std::size_t d_v = values.shape(3);
    attn::Tensor4 context = attn::Tensor4::from_shape({B, h, T, d_v});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < h; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t x = 0; x < d_v; ++x) {
                    double sum = 0.0;
                    for (std::size_t s = 0; s < S; ++s) sum += weights(b, j, t, s) * values(b, j / group, s, x);
                    context(b, j, t, x) = sum;
                }
    return context;
}

// cache (B, g, P, d) followed by fresh (B, g, n, d) along the positions: (B, g, P + n, d).
attn::Tensor4 appended(const attn::Tensor4& cache, const attn::Tensor4& fresh) {
    const std::size_t B = cache.shape(0), g = cache.shape(1), P = cache.shape(2), n = fresh.shape(2), d = cache.shape(3);
    attn::Tensor4 grown = attn::Tensor4::from_shape({B, g, P + n, d});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < g; ++j)
            for (std::size_t p = 0; p < P + n; ++p)
                for (std::size_t i = 0; i < d; ++i) grown(b, j, p, i) = p < P ? cache(b, j, p, i) : fresh(b, j, p - P, i);
    return grown;
}

}  // namespace

namespace exercise {

CrossAttentionResult cross_attention(const attn::Tensor3& tgt, const attn::Tensor3& memory,
                                     const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                     const attn::Matrix& memory_mask) {
    const std::size_t B = tgt.shape(0), T = tgt.shape(1), S = memory.shape(1), d_k = tgt.shape(2) / heads;
    // Queries from the decoder; keys and values from the memory.
    const attn::Tensor4 q = attn::split_heads(attn::linear(tgt, weights.w_q, weights.b_q), heads);
    const attn::Tensor4 k = attn::split_heads(attn::linear(memory, weights.w_k, weights.b_k), heads);
    const attn::Tensor4 v = attn::split_heads(attn::linear(memory, weights.w_v, weights.b_v), heads);
    // The memory is the source sentence, all of it known: only its padding is hidden, no causal mask.
    attn::Tensor4 scores = attn::Tensor4::from_shape({B, heads, T, S});
    const double scale = 1.0 / std::sqrt(double(d_k));
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t s = 0; s < S; ++s)
                    scores(b, j, t, s) = memory_mask(b, s) == 0.0 ? hidden : dot(q, b, j, t, k, j, s) * scale;
    CrossAttentionResult r;
    r.weights = attn::softmax_last_axis(scores);  // a row of −∞ only (all padding) becomes zeros
    const attn::Tensor3 context = attn::merge_heads(weighted_values(r.weights, v, 1));
    r.output = weights.b_o ? attn::linear(context, *weights.w_o, *weights.b_o) : attn::linear(context, *weights.w_o);
    return r;
}

DecodingStep cached_decoding_step(const attn::Tensor4& q, const attn::Tensor4& k, const attn::Tensor4& v,
                                  const attn::Tensor4& k_cache, const attn::Tensor4& v_cache) {
    const std::size_t B = q.shape(0), h = q.shape(1), n = q.shape(2), d_k = q.shape(3);
    const std::size_t P = k_cache.shape(2), group = h / k.shape(1);  // query heads per K/V head
    DecodingStep r;
    // Append first: each new token is a key of its own query (and of the new queries after it).
    r.k_cache = appended(k_cache, k);
    r.v_cache = appended(v_cache, v);
    attn::Tensor4 scores = attn::Tensor4::from_shape({B, h, n, P + n});
    const double scale = 1.0 / std::sqrt(double(d_k));
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < h; ++j)
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t s = 0; s < P + n; ++s) {
                    // Query i is position P + i: it sees the keys 0 … P + i (bottom-right alignment).
                    scores(b, j, i, s) = s > P + i ? hidden : dot(q, b, j, i, r.k_cache, j / group, s) * scale;
                }
    r.weights = attn::softmax_last_axis(scores);
    r.context = weighted_values(r.weights, r.v_cache, group);
    return r;
}

}  // namespace exercise
