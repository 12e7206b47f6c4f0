// src/fast/tile_products.hpp — private to the fast path: the two matrix products of lesson 7's
// tiles (tiled_attention.cpp) as register-blocked micro-kernels.
//
// Why not sgemm: one (query tile, key tile) pair is a small product (64 × 512 × 64 by default),
// and sgemm copies ("packs") both operands into its own layout on every call — each key tile and
// value tile again for every query tile, and every block of P. At one thread those copies took
// 16 % of a T = 4096 call (docs/performance.md). Here the keys and values are packed once per
// (batch, head) by pack_key_panels and pack_value_slabs, and P is read where the softmax left it.
//
// Both kernels work in blocks of at most 6 queries (block_rows), the size whose accumulators fill
// AVX2's 16 vector registers with the operands:
//
//   scores:           scores (rows, 32·panels) = alpha · Q_rows K_tileᵀ
//       per 16 keys of a panel (AVX2; 32 with AVX-512), 6 × 2 accumulators; per i < d_k: load the
//       panel's two vectors of k_·[i], broadcast q_r[i] for each row, 12 fused multiply-adds.
//   weighted_values:  accumulator (rows, d_k) += P (rows, columns) V_tile (columns, d_k)
//       per 16 columns of d_k (32 with AVX-512), 6 × 2 accumulators; per key c: load V[c]'s two
//       vectors, broadcast P[r][c] for each row, 12 fused multiply-adds. Leftover columns of d_k:
//       a vector at a time, then one at a time. V comes by slabs of 16 columns, so that the loads
//       of consecutive keys are contiguous (with V's rows as they are, 4·d_k bytes apart, AVX2's
//       P·V ran at 92–98 GFLOP/s, with slabs at 99–109; bench/tile_kernels.cpp).
//
// They are written once with GCC's vector extension, for a vector type of 8 or 16 floats, and
// compiled for three targets: AVX-512 (16 floats), AVX2 + FMA and the baseline (8 floats)
// (simd.hpp); tile_kernels() gives the variant of the active instruction set. On a CPU whose units are 512
// bits wide (AMD Zen 5, Intel's server cores) AVX-512 does twice the work per instruction. Each
// score is a sum over i in increasing order, each context value a sum over the keys in increasing
// order, in every variant, so a query's numbers do not depend on the block it falls in.
//
// Shapes: rows queries · columns keys of the tile · d_k head width · panels = ⌈columns / 32⌉
//   keys (columns, d_k), leading dimension ld · packed (panels, d_k, 32): packed[p][i][j] =
//   keys[32p + j][i], 0 past the last key · q (rows, d_k), leading dimension ld ·
//   scores and P (rows, ≥ 32·panels), row stride `stride` · V (columns, d_k), leading dimension
//   ld · slabs (⌈d_k/16⌉, columns, 16): slabs[s][c][j] = V[c][16s + j], 0 past d_k, slab_stride =
//   16·columns · accumulator (rows, d_k), row stride d_k
//
//   pack_key_panels(k, 40, 64, 768, packed);            // 2 panels: keys 32 … 39, then zeros
//   const TileKernels kernels = tile_kernels();
//   kernels.scores(q, 768, 6, packed, 2, 64, 0.125f, scores, 64);   // scores (6, 64)
//   pack_value_slabs(v, 40, 64, 768, slabs);             // 4 slabs of (40, 16)
//   kernels.weighted_values(scores, 64, 6, 40, slabs, 16 * 40, 64, accumulator);
#pragma once

#include <cstddef>
#include <vector>

#include "simd.hpp"

namespace attn::fast::detail {

inline constexpr std::size_t panel_width = 32;  // keys per panel: two vectors of AVX-512, four of AVX2
inline constexpr std::size_t block_rows = 6;    // queries per micro-kernel block

/// The number of panels that hold `columns` keys.
inline std::size_t key_panels(std::size_t columns) { return (columns + panel_width - 1) / panel_width; }

/// packed (⌈columns/32⌉, d_k, 32) = the keys (columns, d_k) by panels of 32, zeros past the last.
void pack_key_panels(const float* keys, std::size_t columns, std::size_t dk, std::size_t ld, float* packed);

inline constexpr std::size_t slab_width = 16;  // columns of d_k per slab of values: one AVX-512 vector, two AVX2

/// The floats of `columns` values packed by slabs: ⌈d_k/16⌉ slabs of (columns, 16).
inline std::size_t value_slab_floats(std::size_t columns, std::size_t dk) {
    return (dk + slab_width - 1) / slab_width * slab_width * columns;
}

/// slabs (⌈d_k/16⌉, columns, 16) = the values (columns, d_k) by slabs of 16 columns, zeros past d_k:
/// slabs[s][c][j] = values[c][16s + j]. One slab is slab_stride = 16 · columns floats.
void pack_value_slabs(const float* values, std::size_t columns, std::size_t dk, std::size_t ld, float* slabs);

/// Where column i of d_k starts in the slabs (key 0; key c is 16·c floats further).
inline const float* value_slab_column(const float* slabs, std::size_t slab_stride, std::size_t i) {
    return slabs + i / slab_width * slab_stride + i % slab_width;
}

struct TileKernels {
    /// scores[r][c] = alpha · Σ_i q[r][i] · key_c[i] for r < rows and c < 32 · panels.
    void (*scores)(const float* q, std::size_t ld, std::size_t rows, const float* packed, std::size_t panels,
                   std::size_t dk, float alpha, float* scores, std::size_t stride);
    /// accumulator[r][i] += Σ_{c < columns} P[r][c] · V[c][i] for r < rows and i < d_k, V by slabs
    /// (pack_value_slabs) of slab_stride floats each.
    void (*weighted_values)(const float* p, std::size_t stride, std::size_t rows, std::size_t columns,
                            const float* v, std::size_t slab_stride, std::size_t dk, float* accumulator);
    std::size_t vector_floats;  // 16: AVX-512; 8: AVX2 + FMA or the baseline
    const char* name;           // "AVX-512", "AVX2 + FMA" or "baseline"
};

/// The variant for `simd` (the baseline where the build has no such variant).
TileKernels tile_kernels(Simd simd = active_simd());

/// Every variant this CPU runs (available_simd()), the baseline first and the widest last.
std::vector<TileKernels> available_tile_kernels();

}  // namespace attn::fast::detail
