// One query per head over rows of keys and values (cached_attention.hpp).
#include "cached_attention.hpp"

#include <cmath>

#include "kernels.hpp"
#include "simd.hpp"

namespace attn::fast::detail {

namespace {

// One (batch, query head): scores of the rows, the softmax, then the weighted sum of value rows.
// scores holds `length` floats.
[[gnu::always_inline]] inline void attend_one_body(const float* q, const float* keys, const float* values,
                                                   std::size_t key_row, std::size_t value_row, std::size_t d_k,
                                                   std::size_t length, float scale, float* scores, float* context) {
    float maximum = -INFINITY;
    for (std::size_t i = 0; i < length; ++i) {
        const float* k = keys + i * key_row;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (std::size_t d = 0; d < d_k; ++d) dot += q[d] * k[d];
        scores[i] = dot * scale;
        maximum = scores[i] > maximum ? scores[i] : maximum;
    }
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (std::size_t i = 0; i < length; ++i) {
        scores[i] = exp_of_nonpositive(scores[i] - maximum);
        sum += scores[i];
    }
    for (std::size_t d = 0; d < d_k; ++d) context[d] = 0.0f;
    for (std::size_t i = 0; i < length; ++i) {
        const float* v = values + i * value_row;
        const float p = scores[i];
#pragma omp simd
        for (std::size_t d = 0; d < d_k; ++d) context[d] += p * v[d];
    }
    const float inverse = 1.0f / sum;
#pragma omp simd
    for (std::size_t d = 0; d < d_k; ++d) context[d] *= inverse;
}

using AttendOne = void (*)(const float*, const float*, const float*, std::size_t, std::size_t, std::size_t,
                           std::size_t, float, float*, float*);

#define ATTN_ATTEND_ONE(variant, TARGET)                                                                          \
    namespace variant {                                                                                           \
    TARGET void attend_one(const float* q, const float* keys, const float* values, std::size_t key_row,          \
                           std::size_t value_row, std::size_t d_k, std::size_t length, float scale, float* scores, \
                           float* context) {                                                                      \
        attend_one_body(q, keys, values, key_row, value_row, d_k, length, scale, scores, context);               \
    }                                                                                                             \
    }

ATTN_ATTEND_ONE(baseline, )
#ifdef ATTN_HAVE_X86_VARIANTS
ATTN_ATTEND_ONE(avx2, ATTN_TARGET_AVX2)
ATTN_ATTEND_ONE(avx512, ATTN_TARGET_AVX512)
#endif
#undef ATTN_ATTEND_ONE

AttendOne attend_one_for(Simd simd) {
    switch (simd) {
#ifdef ATTN_HAVE_X86_VARIANTS
        case Simd::avx512: return avx512::attend_one;
        case Simd::avx2: return avx2::attend_one;
#endif
        default: return baseline::attend_one;
    }
}

}  // namespace

void attend_rows(const CachedAttention& a, std::vector<float>& scratch, WorkerPool& pool) {
    const AttendOne attend_one = attend_one_for(active_simd());
    const std::size_t D = a.heads * a.d_k, group = a.heads / a.kv_heads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(a.d_k));
    if (scratch.size() < pool.size() * a.length) scratch.resize(pool.size() * a.length);
    pool.run(a.B * a.heads, [&](std::size_t task, std::size_t worker) {
        const std::size_t b = task / a.heads, head = task % a.heads, j = head / group;
        const float* keys = a.keys + b * a.key_strides.batch + j * a.key_strides.head;
        const float* values = a.values + b * a.value_strides.batch + j * a.value_strides.head;
        attend_one(a.q + b * D + head * a.d_k, keys, values, a.key_strides.row, a.value_strides.row, a.d_k, a.length,
                   scale, scratch.data() + worker * a.length, a.context + b * D + head * a.d_k);
    });
}

}  // namespace attn::fast::detail
