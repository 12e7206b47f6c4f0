// The element-wise kernels of kernels.hpp.
#include "kernels.hpp"

#include <cmath>
#include <limits>

namespace attn::fast::detail {

// The bodies, inlined into each variant below (so compiled for its target).
namespace {

// |x| ≤ FLT_MAX is false for NaN and ±∞ (-fno-trapping-math leaves NaN comparisons alone; only
// -ffinite-math-only would not).
[[gnu::always_inline]] inline int count_non_finite_body(const float* x, std::size_t count) {
    const float largest = std::numeric_limits<float>::max();
    int bad = 0;
#pragma omp simd reduction(+ : bad)
    for (std::size_t i = 0; i < count; ++i) bad += !(std::fabs(x[i]) <= largest);
    return bad;
}

// Pass 1 finds the maximum of the kept scores, pass 2 writes e^(score − max) and sums it (the max
// makes every exponent ≤ 0: no overflow), pass 3 normalises. The row is 4·S bytes, in L1 for all
// three.
[[gnu::always_inline]] inline void softmax_row_body(float* x, std::size_t limit, std::size_t columns, const float* keep) {
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    float maximum = minus_infinity;
    if (keep != nullptr) {
#pragma omp simd reduction(max : maximum)
        for (std::size_t s = 0; s < limit; ++s) {
            const float v = keep[s] != 0.0f ? x[s] : minus_infinity;
            maximum = v > maximum ? v : maximum;
        }
    } else {
#pragma omp simd reduction(max : maximum)
        for (std::size_t s = 0; s < limit; ++s) maximum = x[s] > maximum ? x[s] : maximum;
    }
    if (maximum == minus_infinity) {
        // No key to attend to: zeros, the library's policy for a fully masked row (attn/softmax.hpp).
        for (std::size_t s = 0; s < columns; ++s) x[s] = 0.0f;
        return;
    }
    float sum = 0.0f;
    if (keep != nullptr) {
#pragma omp simd reduction(+ : sum)
        for (std::size_t s = 0; s < limit; ++s) {
            // A masked score may lie above the maximum: exp_of_nonpositive then gives 1, times 0.
            const float e = exp_of_nonpositive(x[s] - maximum) * keep[s];
            x[s] = e;
            sum += e;
        }
    } else {
#pragma omp simd reduction(+ : sum)
        for (std::size_t s = 0; s < limit; ++s) {
            const float e = exp_of_nonpositive(x[s] - maximum);
            x[s] = e;
            sum += e;
        }
    }
    const float inverse = 1.0f / sum;  // sum ≥ 1: the maximum contributes e^0
#pragma omp simd
    for (std::size_t s = 0; s < limit; ++s) x[s] *= inverse;
    for (std::size_t s = limit; s < columns; ++s) x[s] = 0.0f;
}

// Two-pass variance: the row is in L1, and subtracting the mean first avoids the cancellation of
// E[x²] − E[x]².
[[gnu::always_inline]] inline void residual_layer_norm_row_body(const float* a, const float* b, const float* bias, const float* gamma,
                             const float* beta, float eps, float* out, std::size_t D) {
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (std::size_t j = 0; j < D; ++j) {
        const float v = a[j] + (b != nullptr ? b[j] : 0.0f) + (bias != nullptr ? bias[j] : 0.0f);
        out[j] = v;
        sum += v;
    }
    const float mean = sum / static_cast<float>(D);
    float squares = 0.0f;
#pragma omp simd reduction(+ : squares)
    for (std::size_t j = 0; j < D; ++j) {
        const float centred = out[j] - mean;
        squares += centred * centred;
    }
    const float inverse_std = 1.0f / std::sqrt(squares / static_cast<float>(D) + eps);
#pragma omp simd
    for (std::size_t j = 0; j < D; ++j) out[j] = (out[j] - mean) * inverse_std * gamma[j] + beta[j];
}

[[gnu::always_inline]] inline void residual_row_body(const float* a, const float* b, const float* bias, float* out, std::size_t D) {
#pragma omp simd
    for (std::size_t j = 0; j < D; ++j) out[j] = a[j] + b[j] + (bias != nullptr ? bias[j] : 0.0f);
}

[[gnu::always_inline]] inline void bias_activation_row_body(float* x, const float* bias, std::size_t F,
                                                             Activation activation) {
    if (activation == Activation::relu) {
#pragma omp simd
        for (std::size_t j = 0; j < F; ++j) {
            const float v = x[j] + (bias != nullptr ? bias[j] : 0.0f);
            x[j] = v > 0.0f ? v : 0.0f;
        }
    } else if (activation == Activation::gelu) {
#pragma omp simd
        for (std::size_t j = 0; j < F; ++j) {
            const float v = x[j] + (bias != nullptr ? bias[j] : 0.0f);
            x[j] = 0.5f * v * (1.0f + erf_approx(v * 0.70710678118654752f));  // exact GELU: x·Φ(x)
        }
    } else {
        // PyTorch's approximate="tanh": 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
        for (std::size_t j = 0; j < F; ++j) {
            const float v = x[j] + (bias != nullptr ? bias[j] : 0.0f);
            x[j] = 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
        }
    }
}

}  // namespace

// The variants (simd.hpp): the same bodies compiled for each target.
#define ATTN_ELEMENT_KERNELS(variant, TARGET)                                                                   \
    namespace variant {                                                                                         \
    TARGET int count_non_finite(const float* x, std::size_t count) { return count_non_finite_body(x, count); } \
    TARGET void softmax_row(float* x, std::size_t limit, std::size_t columns, const float* keep) {              \
        softmax_row_body(x, limit, columns, keep);                                                              \
    }                                                                                                           \
    TARGET void residual_layer_norm_row(const float* a, const float* b, const float* bias, const float* gamma,  \
                                        const float* beta, float eps, float* out, std::size_t D) {              \
        residual_layer_norm_row_body(a, b, bias, gamma, beta, eps, out, D);                                     \
    }                                                                                                           \
    TARGET void residual_row(const float* a, const float* b, const float* bias, float* out, std::size_t D) {    \
        residual_row_body(a, b, bias, out, D);                                                                  \
    }                                                                                                           \
    TARGET void bias_activation_row(float* x, const float* bias, std::size_t F, Activation activation) {        \
        bias_activation_row_body(x, bias, F, activation);                                                       \
    }                                                                                                           \
    const ElementKernels kernels = {count_non_finite, softmax_row, residual_layer_norm_row, residual_row,       \
                                    bias_activation_row};                                                       \
    }

ATTN_ELEMENT_KERNELS(baseline, )
#ifdef ATTN_HAVE_X86_VARIANTS
ATTN_ELEMENT_KERNELS(avx2, ATTN_TARGET_AVX2)
ATTN_ELEMENT_KERNELS(avx512, ATTN_TARGET_AVX512)
#endif
#undef ATTN_ELEMENT_KERNELS

const ElementKernels& element_kernels(Simd simd) {
    switch (simd) {
#ifdef ATTN_HAVE_X86_VARIANTS
        case Simd::avx512: return avx512::kernels;
        case Simd::avx2: return avx2::kernels;
#endif
        default: return baseline::kernels;
    }
}

}  // namespace attn::fast::detail
