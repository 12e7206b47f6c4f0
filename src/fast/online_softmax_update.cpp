// The online softmax's update of online_softmax_update.hpp, by vectors of 4 (the baseline's SSE),
// 8 (AVX2) or 16 (AVX-512) floats.
#include "online_softmax_update.hpp"

#include <cstring>
#include <limits>

#include "kernels.hpp"  // exp_in_range, exp_lowest, exp_of_nonpositive
#include "vectors.hpp"

namespace attn::fast::detail {

// Everything in this namespace is inlined into the variants at its end, so that it is compiled for
// each of their targets.
namespace {

constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

template <class Vector>
[[gnu::always_inline]] inline Vector splat(float x) {
    return Vector{} + x;
}

// a > b ? a : b is exactly what maxps computes (NaN in either gives b): GCC emits one maxps.
template <class Vector>
[[gnu::always_inline]] inline Vector maximum(Vector a, Vector b) {
    return a > b ? a : b;
}

// {first, first + 1, …}: the keys of a vector's lanes, to mask the last, partial vector of a row.
template <class Vector>
[[gnu::always_inline]] inline Vector lane_keys(std::size_t first) {
    Vector keys;
    for (std::size_t i = 0; i < lanes<Vector>; ++i) keys[i] = static_cast<float>(i);
    return keys + static_cast<float>(first);
}

// keep[first …] as a vector, 0 past `columns` (keep holds `columns` floats: no read past them).
template <class Vector>
[[gnu::always_inline]] inline Vector keep_lanes(const float* keep, std::size_t first, std::size_t columns) {
    Vector kept = {};
    for (std::size_t i = 0; i < lanes<Vector> && first + i < columns; ++i) kept[i] = keep[first + i];
    return kept;
}

template <class Vector>
[[gnu::always_inline]] inline float horizontal_max(Vector v) {
    float best = v[0];
    for (std::size_t i = 1; i < lanes<Vector>; ++i) best = v[i] > best ? v[i] : best;
    return best;
}

template <class Vector>
[[gnu::always_inline]] inline float horizontal_sum(Vector v) {
    float sum = v[0];
    for (std::size_t i = 1; i < lanes<Vector>; ++i) sum += v[i];
    return sum;
}

// e^x lane by lane for x = score − m_new, where `use` holds: the scalar exp_of_nonpositive's
// operations for x in [−87.34, 0], and 0 in every other lane. x needs no clamp into that range:
// outside it exp_in_range computes garbage (never undefined behaviour: integer operations on the
// float's bits only), which the select — a bitwise and — replaces with 0. Below −87.34 lies 0 as
// e^x rounds to in the normal floats; above 0 lie only hidden keys (a padding mask's score may
// exceed m_new), for which `use` is false.
template <class Vector, class Mask>
[[gnu::always_inline]] inline Vector exp_where(Vector x, Mask use) {
    return use && x >= exp_lowest ? exp_in_range(x) : Vector{};
}

// Pass 1 for one row: the largest visible score (−∞ when none), and into `poison` a NaN if a score
// among the `columns` computed is not finite (score · 0 is NaN exactly for NaN and ±∞). Four
// vectors at a time into four pairs of accumulators: with one pair, each vector waited for the
// previous one's fused multiply-add (4 cycles), and this pass cost nearly half as much as pass 2.
template <class Vector>
[[gnu::always_inline]] inline float row_maximum(const float* row, std::size_t limit, std::size_t columns,
                                                const float* keep, Vector& poison) {
    constexpr std::size_t L = lanes<Vector>, unroll = 4;
    const Vector hidden = splat<Vector>(minus_infinity);
    Vector best[unroll], poisons[unroll] = {};
    for (Vector& b : best) b = hidden;
    std::size_t c = 0;
    if (keep == nullptr) {
        for (; c + unroll * L <= limit; c += unroll * L) {  // the loop of almost every score
#pragma GCC unroll 4
            for (std::size_t j = 0; j < unroll; ++j) {
                const Vector s = load<Vector>(row + c + j * L);
                poisons[j] += s * 0.0f;
                best[j] = maximum(best[j], s);
            }
        }
    }
    for (; c + L <= limit; c += L) {  // whole vectors of visible keys
        const Vector s = load<Vector>(row + c);
        poisons[0] += s * 0.0f;
        best[0] = maximum(best[0], keep != nullptr ? (load<Vector>(keep + c) != 0.0f ? s : hidden) : s);
    }
    for (; c < columns; c += L) {  // the rest, lane by lane: visible, hidden, or not computed
        const Vector s = load<Vector>(row + c);
        const Vector key = lane_keys<Vector>(c);
        poisons[0] += (key < static_cast<float>(columns) ? s : Vector{}) * 0.0f;
        auto visible = key < static_cast<float>(limit);
        if (keep != nullptr) visible &= keep_lanes<Vector>(keep, c, columns) != 0.0f;
        best[0] = maximum(best[0], visible ? s : hidden);
    }
    for (std::size_t j = 1; j < unroll; ++j) {
        best[0] = maximum(best[0], best[j]);
        poisons[0] += poisons[j];
    }
    poison += poisons[0];
    return horizontal_max(best[0]);
}

// Pass 2 for one row whose m_new is finite: P over the row, returned Σ P. keep == nullptr: every
// key kept.
template <class Vector>
[[gnu::always_inline]] inline float row_exponentials(float* row, std::size_t limit, std::size_t columns,
                                                     const float* keep, float m_new) {
    constexpr std::size_t L = lanes<Vector>;
    const Vector m = splat<Vector>(m_new);
    const auto all = Vector{} == Vector{};  // a mask with every lane true
    Vector sum = {};
    std::size_t c = 0;
    for (; c + L <= limit; c += L) {  // whole vectors of visible keys: the loop of almost every score
        const auto use = keep != nullptr ? load<Vector>(keep + c) != 0.0f : all;
        const Vector e = exp_where(load<Vector>(row + c) - m, use);
        store(row + c, e);
        sum += e;
    }
    if (c < limit) {  // the last, partial vector of visible keys; 0 in the lanes past them
        auto use = lane_keys<Vector>(c) < static_cast<float>(limit);
        if (keep != nullptr) use &= keep_lanes<Vector>(keep, c, columns) != 0.0f;
        const Vector e = exp_where(load<Vector>(row + c) - m, use);
        store(row + c, e);
        sum += e;
        c += L;
    }
    for (; c < columns; c += L) store(row + c, Vector{});  // the causal mask's hidden keys
    return horizontal_sum(sum);
}

template <class Vector>
[[gnu::always_inline]] inline bool update(const ScoreBlock& block, const RunningRows& running) {
    // Pass 1, every row: the largest visible score; and no score of the block may be NaN or ±∞.
    float tile_max[block_rows];
    Vector poison = {};
    for (std::size_t r = 0; r < block.rows; ++r)
        tile_max[r] = row_maximum<Vector>(block.scores + r * block.stride, block.visible[r], block.columns,
                                          block.keep, poison);
    for (std::size_t i = 0; i < lanes<Vector>; ++i)
        if (poison[i] != poison[i]) return false;
    // Pass 2, row by row: P, l and the rescaled accumulator.
    const std::size_t dk = running.dk;
    for (std::size_t r = 0; r < block.rows; ++r) {
        float* row = block.scores + r * block.stride;
        const float m_old = running.maximum[r];
        const float m_new = m_old > tile_max[r] ? m_old : tile_max[r];
        if (m_new == minus_infinity) {
            // No visible key yet, in this tile or before: P is 0, l and the accumulator stay 0.
            std::memset(row, 0, block.columns * sizeof(float));
            continue;
        }
        const float sum = row_exponentials<Vector>(row, block.visible[r], block.columns, block.keep, m_new);
        // Once per row and key tile: m_old = −∞ gives 0 (l and the accumulator are 0).
        const float rescale = exp_of_nonpositive(m_old - m_new);
        running.sum[r] = running.sum[r] * rescale + sum;
        running.maximum[r] = m_new;
        if (rescale != 1.0f) {
            float* accumulator = running.accumulator + r * dk;
#pragma omp simd
            for (std::size_t i = 0; i < dk; ++i) accumulator[i] *= rescale;
        }
    }
    return true;
}

// The variants (simd.hpp).
bool update_baseline(const ScoreBlock& block, const RunningRows& running) { return update<Vector4>(block, running); }

#ifdef ATTN_HAVE_X86_VARIANTS
ATTN_TARGET_AVX2 bool update_avx2(const ScoreBlock& block, const RunningRows& running) {
    return update<Vector8>(block, running);
}

ATTN_TARGET_AVX512 bool update_avx512(const ScoreBlock& block, const RunningRows& running) {
    return update<Vector16>(block, running);
}
#endif

}  // namespace

SoftmaxUpdate online_softmax_update(Simd simd) {
    switch (simd) {
#ifdef ATTN_HAVE_X86_VARIANTS
        case Simd::avx512: return update_avx512;
        case Simd::avx2: return update_avx2;
#endif
        default: return update_baseline;
    }
}

}  // namespace attn::fast::detail
