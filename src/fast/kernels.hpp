// src/fast/kernels.hpp — private to the fast path: the element-wise float32 kernels (exponential,
// erf, softmax of a row, LayerNorm of a row, activations, the non-finite count).
//
// Why written this way: these loops touch every score and every activation, so they must run at
// vector width. They are branch-free (selects, no early exits) so that GCC vectorises them; the
// target compiles with -fopenmp-simd (`#pragma omp simd` without OpenMP's runtime) and
// -fno-trapping-math (without it GCC keeps the selects as branches and the loops stay scalar:
// 5 ns instead of 1 ns per score). On x86-64 the row kernels are also compiled for AVX2 + FMA and
// AVX-512, and the variant of the active instruction set is called (simd.hpp), so the binary
// stays portable (no -march=native) and still uses the wide registers where they exist.
//
//   float e = attn::fast::detail::exp_of_nonpositive(-1.0f);   // 0.36787945 (within 2 ulps)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attn/feed_forward.hpp"  // attn::Activation
#include "simd.hpp"

namespace attn::fast::detail {

// The unsigned integers with the bits of a float (Real = float) or of a vector of floats (GCC's
// vector extension, as the fast path's hand-vectorised kernels use: online_softmax_update.cpp).
template <class Real>
struct BitsOf {
    typedef std::uint32_t type __attribute__((vector_size(sizeof(Real))));
};
template <>
struct BitsOf<float> {
    using type = std::uint32_t;
};

/// e^c for c in [−87.34, 0], the part both exponentials below share. Cephes' expf range reduction
/// and polynomial (max relative error 8e-8, under 2 float32 ulps). No float-to-integer conversion
/// happens at all (2ⁿ is built from the bits of the rounded float), so no input, NaN included, is
/// undefined behaviour. Real is float, or a vector of floats: the same operations lane by lane
/// (always inlined, so that a vector variant is compiled for its caller's target: simd.hpp).
template <class Real>
[[gnu::always_inline]] inline Real exp_in_range(Real c) {
    // 1. c = n·ln 2 + r with n an integer and |r| ≤ ln 2 / 2. Adding 1.5·2²³ rounds c·log₂e to
    //    the integer n and leaves n in the low bits of the float's mantissa.
    const Real shifted = c * 1.44269504088896341f + 12582912.0f;
    const Real n = shifted - 12582912.0f;
    Real r = c - n * 0.693359375f;  // ln 2 in two parts, so that n·ln 2 is exact enough
    r = r - n * -2.12194440e-4f;
    // 2. e^r by its minimax polynomial.
    Real p = 1.9875691500e-4f * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const Real y = p * r * r + r + 1.0f;
    // 3. 2ⁿ: n + 127 (between 1 and 127) in the exponent bits.
    typename BitsOf<Real>::type bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    bits = (bits + (127u - 0x4B400000u)) << 23;
    Real power;
    std::memcpy(&power, &bits, sizeof power);
    return y * power;
}

inline constexpr float exp_lowest = -87.3365447504f;  // e^exp_lowest is the smallest normal float

/// e^x for x ≤ 0 — every exponential the fast path takes is of a non-positive number: a score
/// minus its row's maximum, m_old − m_new, −a² in erf. Branch-free so that loops calling it
/// vectorise. Below −87.34 (where e^x leaves the normal floats) and at −∞ the result is 0; NaN
/// gives NaN; x > 0 is taken as 0 (result 1).
inline float exp_of_nonpositive(float x) {
    float c = x > exp_lowest ? x : exp_lowest;  // NaN compares false: c = exp_lowest
    c = c < 0.0f ? c : 0.0f;
    const float e = exp_in_range(c);
    return x >= exp_lowest ? e : (x != x ? x : 0.0f);
}

/// The same for an x known not to be NaN (scores already checked), two selects fewer per value:
/// the softmax's inner loop. A NaN would give 0.
inline float exp_of_nonpositive_not_nan(float x) {
    float c = x > exp_lowest ? x : exp_lowest;
    c = c < 0.0f ? c : 0.0f;
    const float e = exp_in_range(c);
    return x >= exp_lowest ? e : 0.0f;
}

/// erf(x), branch-free (Abramowitz & Stegun 7.1.26: absolute error 1.5e-7, below 5e-7 once computed
/// in float32); NaN gives NaN.
inline float erf_approx(float x) {
    const float a = x < 0.0f ? -x : x;
    const float t = 1.0f / (1.0f + 0.3275911f * a);
    const float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    const float y = 1.0f - poly * exp_of_nonpositive(-a * a);
    return x < 0.0f ? -y : y;
}

/// The row kernels of one instruction set:
///   count_non_finite(x, count): how many of x[0, count) are NaN or ±∞.
///   softmax_row(x, limit, columns, keep): softmax of one row of scores in place; columns s < limit
///     whose keep[s] is 1 take part (keep == nullptr: all); the others — padding, and the causal
///     mask's s ≥ limit — get weight 0. The scores are finite (checked before). A row with no key
///     left is all zeros (the library's policy).
///   residual_layer_norm_row(a, b, bias, gamma, beta, eps, out, D): out = LayerNorm(a + b + bias) ·
///     gamma + beta over one row of D values; b and bias may be null. Biased variance, eps inside
///     the square root (nn.LayerNorm).
///   residual_row(a, b, bias, out, D): out = a + b + bias over one row (the pre-norm residual);
///     bias may be null.
///   bias_activation_row(x, bias, F, activation): x = activation(x + bias) over one row of F
///     values; bias may be null. gelu is the exact x·Φ(x), gelu_tanh PyTorch's tanh form.
struct ElementKernels {
    int (*count_non_finite)(const float* x, std::size_t count);
    void (*softmax_row)(float* x, std::size_t limit, std::size_t columns, const float* keep);
    void (*residual_layer_norm_row)(const float* a, const float* b, const float* bias, const float* gamma,
                                    const float* beta, float eps, float* out, std::size_t D);
    void (*residual_row)(const float* a, const float* b, const float* bias, float* out, std::size_t D);
    void (*bias_activation_row)(float* x, const float* bias, std::size_t F, Activation activation);
};

/// The kernels compiled for `simd` (the baseline's where the build has no such variant).
const ElementKernels& element_kernels(Simd simd = active_simd());

// The kernels of the active instruction set, by name.
inline int count_non_finite(const float* x, std::size_t count) {
    return element_kernels().count_non_finite(x, count);
}
inline void softmax_row(float* x, std::size_t limit, std::size_t columns, const float* keep) {
    element_kernels().softmax_row(x, limit, columns, keep);
}
inline void residual_layer_norm_row(const float* a, const float* b, const float* bias, const float* gamma,
                                    const float* beta, float eps, float* out, std::size_t D) {
    element_kernels().residual_layer_norm_row(a, b, bias, gamma, beta, eps, out, D);
}
inline void residual_row(const float* a, const float* b, const float* bias, float* out, std::size_t D) {
    element_kernels().residual_row(a, b, bias, out, D);
}
inline void bias_activation_row(float* x, const float* bias, std::size_t F, Activation activation) {
    element_kernels().bias_activation_row(x, bias, F, activation);
}

}  // namespace attn::fast::detail
