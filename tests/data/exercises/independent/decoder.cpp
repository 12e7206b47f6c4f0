// Exercise 9, a second correct implementation written from lessons/09-decoder/README.md alone: no
// library function; heads read as column slices of the projections (never split), a softmax by
// log-sum-exp over the visible keys only, and the K/V heads copied out to one per query head
// first, as Hugging Face's repeat_kv does, before plain multi-head attention over the cache.
// A few `#ifdef PLANTED_…` lines make it one of the mistakes the checker names
// (tests/data/exercises/planted/).
#include <algorithm>
#include <cmath>
#include <vector>

#include "exercise.hpp"

namespace {

// Row n of x (N, D_in) → x W^T + b, W (D_out, D_in); b may be null.
std::vector<double> project_row(const double* x, const attn::Matrix& W, const attn::Vector* b) {
    std::vector<double> y(W.shape(0));
    for (std::size_t o = 0; o < W.shape(0); ++o) {
        double sum = b ? (*b)(o) : 0.0;
        for (std::size_t i = 0; i < W.shape(1); ++i) sum += W(o, i) * x[i];
        y[o] = sum;
    }
    return y;
}

// Every row of x (B, N, D) projected: rows[b][n] is a vector of D_out values.
std::vector<std::vector<std::vector<double>>> project(const attn::Tensor3& x, const attn::Matrix& W,
                                                      const attn::Vector* b) {
    std::vector<std::vector<std::vector<double>>> rows(x.shape(0));
    for (std::size_t batch = 0; batch < x.shape(0); ++batch)
        for (std::size_t n = 0; n < x.shape(1); ++n)
            rows[batch].push_back(project_row(&x(batch, n, 0), W, b));
    return rows;
}

// The softmax of `scores` over the entries `visible` marks, by log-sum-exp; hidden entries and a
// row with nothing visible get 0.
std::vector<double> softmax_visible(const std::vector<double>& scores, const std::vector<bool>& visible) {
    double top = -HUGE_VAL;
    for (std::size_t s = 0; s < scores.size(); ++s)
        if (visible[s]) top = std::max(top, scores[s]);
    std::vector<double> weights(scores.size(), 0.0);
    if (top == -HUGE_VAL) return weights;
    double sum = 0.0;
    for (std::size_t s = 0; s < scores.size(); ++s)
        if (visible[s]) sum += std::exp(scores[s] - top);
    const double log_sum = top + std::log(sum);
    for (std::size_t s = 0; s < scores.size(); ++s)
        if (visible[s]) weights[s] = std::exp(scores[s] - log_sum);
    return weights;
}

// The K/V heads (B, g, S, d_k) copied to one per query head (B, h, S, d_k).
attn::Tensor4 one_per_query_head(const attn::Tensor4& kv, std::size_t h) {
    const std::size_t B = kv.shape(0), g = kv.shape(1), S = kv.shape(2), d_k = kv.shape(3);
    attn::Tensor4 out = attn::Tensor4::from_shape({B, h, S, d_k});
    for (std::size_t j = 0; j < h; ++j) {
#ifdef PLANTED_KV_HEADS_TILED
        const std::size_t source = j % g;
#else
        const std::size_t source = j * g / h;  // repeat_interleave: h/g consecutive query heads per K/V head
#endif
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t x = 0; x < d_k; ++x) out(b, j, s, x) = kv(b, source, s, x);
    }
    return out;
}

}  // namespace

namespace exercise {

CrossAttentionResult cross_attention(const attn::Tensor3& tgt, const attn::Tensor3& memory,
                                     const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                     const attn::Matrix& memory_mask) {
    const std::size_t B = tgt.shape(0), S = memory.shape(1), D = tgt.shape(2), d_k = D / heads;
    (void)memory_mask;  // unused when a planted mistake ignores it
#ifdef PLANTED_QUERIES_FROM_MEMORY
    const auto q = project(memory, weights.w_q, &weights.b_q);
#else
    const auto q = project(tgt, weights.w_q, &weights.b_q);
#endif
    const auto k = project(memory, weights.w_k, &weights.b_k), v = project(memory, weights.w_v, &weights.b_v);
    const std::size_t T = q[0].size();
    CrossAttentionResult r;
    r.weights = attn::Tensor4::from_shape({B, heads, T, S});
    attn::Tensor3 context = attn::Tensor3::from_shape({B, T, D});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t) {
                std::vector<double> scores(S);
                std::vector<bool> visible(S);
                for (std::size_t s = 0; s < S; ++s) {
                    double dot = 0.0;
                    for (std::size_t x = j * d_k; x < (j + 1) * d_k; ++x) dot += q[b][t][x] * k[b][s][x];
                    scores[s] = dot / std::sqrt(double(d_k));
#ifdef PLANTED_MEMORY_MASK_IGNORED
                    visible[s] = true;
#else
                    visible[s] = memory_mask(b, s) != 0.0;
#endif
#ifdef PLANTED_CAUSAL_CROSS_ATTENTION
                    visible[s] = visible[s] && s <= t;
#endif
                }
                const std::vector<double> w = softmax_visible(scores, visible);
                for (std::size_t s = 0; s < S; ++s) r.weights(b, j, t, s) = w[s];
                for (std::size_t x = j * d_k; x < (j + 1) * d_k; ++x) {
                    double sum = 0.0;
                    for (std::size_t s = 0; s < S; ++s) sum += w[s] * v[b][s][x];
                    context(b, t, x) = sum;
                }
            }
    r.output = attn::Tensor3::from_shape({B, T, D});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            const auto out = project_row(&context(b, t, 0), *weights.w_o, weights.b_o ? &*weights.b_o : nullptr);
            std::copy(out.begin(), out.end(), &r.output(b, t, 0));
        }
    return r;
}

DecodingStep cached_decoding_step(const attn::Tensor4& q, const attn::Tensor4& k, const attn::Tensor4& v,
                                  const attn::Tensor4& k_cache, const attn::Tensor4& v_cache) {
    const std::size_t B = q.shape(0), h = q.shape(1), n = q.shape(2), d_k = q.shape(3), g = k.shape(1);
    const std::size_t P = k_cache.shape(2);
    DecodingStep r;
    r.k_cache = attn::Tensor4::from_shape({B, g, P + n, d_k});
    r.v_cache = attn::Tensor4::from_shape({B, g, P + n, d_k});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < g; ++j) {
            std::copy(&k_cache(b, j, 0, 0), &k_cache(b, j, 0, 0) + P * d_k, &r.k_cache(b, j, 0, 0));
            std::copy(&v_cache(b, j, 0, 0), &v_cache(b, j, 0, 0) + P * d_k, &r.v_cache(b, j, 0, 0));
            std::copy(&k(b, j, 0, 0), &k(b, j, 0, 0) + n * d_k, &r.k_cache(b, j, P, 0));
            std::copy(&v(b, j, 0, 0), &v(b, j, 0, 0) + n * d_k, &r.v_cache(b, j, P, 0));
        }
#ifdef PLANTED_CACHE_APPENDED_AFTER_USE
    const attn::Tensor4 keys = one_per_query_head(k_cache, h), values = one_per_query_head(v_cache, h);
#else
    const attn::Tensor4 keys = one_per_query_head(r.k_cache, h), values = one_per_query_head(r.v_cache, h);
#endif
    const std::size_t S = keys.shape(2);
    r.weights = attn::Tensor4::from_shape({B, h, n, S});
    r.context = attn::Tensor4::from_shape({B, h, n, d_k});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < h; ++j)
            for (std::size_t i = 0; i < n; ++i) {
                // The new queries are the last n of the S keys' positions: query i sees S − n + i of them, plus one.
#ifdef PLANTED_CACHE_TOP_LEFT
                const long last_seen = long(i);
#else
                const long last_seen = long(S) - long(n) + long(i);
#endif
                std::vector<double> scores(S);
                std::vector<bool> visible(S);
                for (std::size_t s = 0; s < S; ++s) {
                    double dot = 0.0;
                    for (std::size_t x = 0; x < d_k; ++x) dot += q(b, j, i, x) * keys(b, j, s, x);
                    scores[s] = dot / std::sqrt(double(d_k));
                    visible[s] = long(s) <= last_seen;
                }
                const std::vector<double> w = softmax_visible(scores, visible);
                for (std::size_t s = 0; s < S; ++s) r.weights(b, j, i, s) = w[s];
                for (std::size_t x = 0; x < d_k; ++x) {
                    double sum = 0.0;
                    for (std::size_t s = 0; s < S; ++s) sum += w[s] * values(b, j, s, x);
                    r.context(b, j, i, x) = sum;
                }
            }
    return r;
}

}  // namespace exercise
