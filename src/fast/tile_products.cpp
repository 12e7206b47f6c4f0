// The micro-kernels of tile_products.hpp.
#include "tile_products.hpp"

#include <algorithm>

#include "vectors.hpp"

namespace attn::fast::detail {

// Everything in this namespace is inlined into the kernels' variants at its end, so that it is
// compiled for each of their targets (a function that is merely called would be compiled for the
// baseline only).
namespace {

// Every `sum += x * vector` below is one fused multiply-add (one rounding) in the AVX2 and AVX-512
// variants: this file is compiled with -ffp-contract=fast and, in every build type, optimised
// (CMakeLists.txt), since without optimisation GCC forms no fused multiply-add and a Debug or
// sanitizer build would compute other numbers. The baseline has no such instruction: two roundings.

// 2 vectors of keys of a panel (16 keys with AVX2: half a panel; 32 with AVX-512: all of it)
// against R ≤ 6 queries: out (R, 2·lanes) = q (R, d_k) · panel (d_k, 2·lanes of the 32).
template <class Vector, std::size_t R>
[[gnu::always_inline]] inline void scores_panel(const float* q, std::size_t ld, const float* panel, std::size_t dk,
                                                float* out, std::size_t stride) {
    constexpr std::size_t L = lanes<Vector>;
    Vector low[R] = {}, high[R] = {};
    for (std::size_t i = 0; i < dk; ++i) {
        const Vector keys_low = load<Vector>(panel + i * panel_width);
        const Vector keys_high = load<Vector>(panel + i * panel_width + L);
#pragma GCC unroll 6
        for (std::size_t r = 0; r < R; ++r) {
            const float x = q[r * ld + i];
            low[r] += x * keys_low;
            high[r] += x * keys_high;
        }
    }
#pragma GCC unroll 6
    for (std::size_t r = 0; r < R; ++r) {
        store(out + r * stride, low[r]);
        store(out + r * stride + L, high[r]);
    }
}

// alpha is applied in a pass of its own, after the products, and not at all when it is 1 (the
// tiled path scales its queries once instead): multiplied into each sum as it is stored, GCC held
// alpha's broadcast through the loop over d_k, which left AVX2's 16 registers one short for the 12
// accumulators, 2 key vectors and the broadcast, and the kernel ran at 67 GFLOP/s instead of 105.
template <class Vector, std::size_t R>
[[gnu::always_inline]] inline void scores_rows(const float* q, std::size_t ld, const float* packed,
                                               std::size_t panels, std::size_t dk, float alpha, float* scores,
                                               std::size_t stride) {
    constexpr std::size_t keys_per_pass = 2 * lanes<Vector>;
    for (std::size_t p = 0; p < panels; ++p)
        for (std::size_t j = 0; j < panel_width; j += keys_per_pass)
            scores_panel<Vector, R>(q, ld, packed + p * dk * panel_width + j, dk, scores + p * panel_width + j,
                                    stride);
    if (alpha == 1.0f) return;
    for (std::size_t r = 0; r < R; ++r) {
        float* row = scores + r * stride;
        for (std::size_t c = 0; c < panels * panel_width; ++c) row[c] *= alpha;
    }
}

template <class Vector>
[[gnu::always_inline]] inline void scores(const float* q, std::size_t ld, std::size_t rows, const float* packed,
                                          std::size_t panels, std::size_t dk, float alpha, float* out,
                                          std::size_t stride) {
    for (std::size_t r = 0; r < rows; r += block_rows) {
        const float* q_block = q + r * ld;
        float* block = out + r * stride;
        switch (std::min(block_rows, rows - r)) {
            case 6: scores_rows<Vector, 6>(q_block, ld, packed, panels, dk, alpha, block, stride); break;
            case 5: scores_rows<Vector, 5>(q_block, ld, packed, panels, dk, alpha, block, stride); break;
            case 4: scores_rows<Vector, 4>(q_block, ld, packed, panels, dk, alpha, block, stride); break;
            case 3: scores_rows<Vector, 3>(q_block, ld, packed, panels, dk, alpha, block, stride); break;
            case 2: scores_rows<Vector, 2>(q_block, ld, packed, panels, dk, alpha, block, stride); break;
            default: scores_rows<Vector, 1>(q_block, ld, packed, panels, dk, alpha, block, stride); break;
        }
    }
}

// W vectors of columns [i, i + W·lanes) of d_k for R ≤ 6 queries: accumulator (R, W·lanes) +=
// P (R, columns) · V (columns, W·lanes), V read from its slabs (value_slab_column).
template <class Vector, std::size_t R, std::size_t W>
[[gnu::always_inline]] inline void weighted_values_columns(const float* p, std::size_t stride, std::size_t columns,
                                                           const float* slabs, std::size_t slab_stride, std::size_t i,
                                                           float* accumulator, std::size_t dk) {
    constexpr std::size_t L = lanes<Vector>;
    const float* v[W];  // where vector w's columns start in their slab, at key 0
    for (std::size_t w = 0; w < W; ++w) v[w] = value_slab_column(slabs, slab_stride, i + w * L);
    Vector sum[R][W];
#pragma GCC unroll 6
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t w = 0; w < W; ++w) sum[r][w] = load<Vector>(accumulator + r * dk + i + w * L);
    for (std::size_t c = 0; c < columns; ++c) {
        Vector values[W];
        for (std::size_t w = 0; w < W; ++w) values[w] = load<Vector>(v[w] + c * slab_width);
#pragma GCC unroll 6
        for (std::size_t r = 0; r < R; ++r) {
            const float x = p[r * stride + c];
            for (std::size_t w = 0; w < W; ++w) sum[r][w] += x * values[w];
        }
    }
#pragma GCC unroll 6
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t w = 0; w < W; ++w) store(accumulator + r * dk + i + w * L, sum[r][w]);
}

// The columns of d_k two vectors at a time, then one vector, then one at a time (with AVX-512, a
// d_k of 16n + 8 leaves 8 columns to the last loop). A vector never straddles two slabs: i is a
// multiple of its width, which divides slab_width.
template <class Vector, std::size_t R>
[[gnu::always_inline]] inline void weighted_values_rows(const float* p, std::size_t stride, std::size_t columns,
                                                        const float* slabs, std::size_t slab_stride, std::size_t dk,
                                                        float* accumulator) {
    constexpr std::size_t L = lanes<Vector>;
    static_assert(slab_width % L == 0, "a vector within one slab");
    std::size_t i = 0;
    for (; i + 2 * L <= dk; i += 2 * L)
        weighted_values_columns<Vector, R, 2>(p, stride, columns, slabs, slab_stride, i, accumulator, dk);
    if (i + L <= dk) {
        weighted_values_columns<Vector, R, 1>(p, stride, columns, slabs, slab_stride, i, accumulator, dk);
        i += L;
    }
    for (; i < dk; ++i) {
        const float* v = value_slab_column(slabs, slab_stride, i);
        for (std::size_t r = 0; r < R; ++r) {
            float sum = accumulator[r * dk + i];
            for (std::size_t c = 0; c < columns; ++c) sum += p[r * stride + c] * v[c * slab_width];
            accumulator[r * dk + i] = sum;
        }
    }
}

template <class Vector>
[[gnu::always_inline]] inline void weighted_values(const float* p, std::size_t stride, std::size_t rows,
                                                   std::size_t columns, const float* v, std::size_t slab_stride,
                                                   std::size_t dk, float* accumulator) {
    for (std::size_t r = 0; r < rows; r += block_rows) {
        const float* p_block = p + r * stride;
        float* out = accumulator + r * dk;
        switch (std::min(block_rows, rows - r)) {
            case 6: weighted_values_rows<Vector, 6>(p_block, stride, columns, v, slab_stride, dk, out); break;
            case 5: weighted_values_rows<Vector, 5>(p_block, stride, columns, v, slab_stride, dk, out); break;
            case 4: weighted_values_rows<Vector, 4>(p_block, stride, columns, v, slab_stride, dk, out); break;
            case 3: weighted_values_rows<Vector, 3>(p_block, stride, columns, v, slab_stride, dk, out); break;
            case 2: weighted_values_rows<Vector, 2>(p_block, stride, columns, v, slab_stride, dk, out); break;
            default: weighted_values_rows<Vector, 1>(p_block, stride, columns, v, slab_stride, dk, out); break;
        }
    }
}

// The variants (simd.hpp). Each is an ordinary function with its own target, chosen at run time:
// so the sanitizer build runs them too.
void block_scores_baseline(const float* q, std::size_t ld, std::size_t rows, const float* packed, std::size_t panels,
                           std::size_t dk, float alpha, float* out, std::size_t stride) {
    scores<Vector8>(q, ld, rows, packed, panels, dk, alpha, out, stride);
}

void block_weighted_values_baseline(const float* p, std::size_t stride, std::size_t rows, std::size_t columns,
                                    const float* v, std::size_t slab_stride, std::size_t dk, float* accumulator) {
    weighted_values<Vector8>(p, stride, rows, columns, v, slab_stride, dk, accumulator);
}

#ifdef ATTN_HAVE_X86_VARIANTS
ATTN_TARGET_AVX2 void block_scores_avx2(const float* q, std::size_t ld, std::size_t rows, const float* packed,
                                        std::size_t panels, std::size_t dk, float alpha, float* out,
                                        std::size_t stride) {
    scores<Vector8>(q, ld, rows, packed, panels, dk, alpha, out, stride);
}

ATTN_TARGET_AVX2 void block_weighted_values_avx2(const float* p, std::size_t stride, std::size_t rows,
                                                 std::size_t columns, const float* v, std::size_t slab_stride,
                                                 std::size_t dk, float* accumulator) {
    weighted_values<Vector8>(p, stride, rows, columns, v, slab_stride, dk, accumulator);
}

// Where the CPU's units are 512 bits wide (AMD Zen 5, Intel's server cores) AVX-512 does twice the
// work of AVX2 per instruction.
ATTN_TARGET_AVX512 void block_scores_avx512(const float* q, std::size_t ld, std::size_t rows, const float* packed,
                                            std::size_t panels, std::size_t dk, float alpha, float* out,
                                            std::size_t stride) {
    scores<Vector16>(q, ld, rows, packed, panels, dk, alpha, out, stride);
}

ATTN_TARGET_AVX512 void block_weighted_values_avx512(const float* p, std::size_t stride, std::size_t rows,
                                                     std::size_t columns, const float* v, std::size_t slab_stride,
                                                     std::size_t dk, float* accumulator) {
    weighted_values<Vector16>(p, stride, rows, columns, v, slab_stride, dk, accumulator);
}
#endif

}  // namespace

TileKernels tile_kernels(Simd simd) {
    switch (simd) {
#ifdef ATTN_HAVE_X86_VARIANTS
        case Simd::avx512: return {block_scores_avx512, block_weighted_values_avx512, 16, simd_name(simd)};
        case Simd::avx2: return {block_scores_avx2, block_weighted_values_avx2, 8, simd_name(simd)};
#endif
        default: return {block_scores_baseline, block_weighted_values_baseline, 8, simd_name(Simd::baseline)};
    }
}

std::vector<TileKernels> available_tile_kernels() {
    std::vector<TileKernels> variants;
    for (const Simd simd : available_simd()) variants.push_back(tile_kernels(simd));
    return variants;
}

void pack_value_slabs(const float* values, std::size_t columns, std::size_t dk, std::size_t ld, float* slabs) {
    for (std::size_t first = 0; first < dk; first += slab_width) {
        const std::size_t width = std::min(slab_width, dk - first);
        for (std::size_t c = 0; c < columns; ++c) {
            float* out = slabs + c * slab_width;
            for (std::size_t j = 0; j < width; ++j) out[j] = values[c * ld + first + j];
            for (std::size_t j = width; j < slab_width; ++j) out[j] = 0.0f;
        }
        slabs += columns * slab_width;
    }
}

void pack_key_panels(const float* keys, std::size_t columns, std::size_t dk, std::size_t ld, float* packed) {
    for (std::size_t first = 0; first < columns; first += panel_width) {
        const std::size_t width = std::min(panel_width, columns - first);
        for (std::size_t i = 0; i < dk; ++i) {
            float* out = packed + i * panel_width;
            for (std::size_t j = 0; j < width; ++j) out[j] = keys[(first + j) * ld + i];
            for (std::size_t j = width; j < panel_width; ++j) out[j] = 0.0f;
        }
        packed += dk * panel_width;
    }
}

}  // namespace attn::fast::detail
