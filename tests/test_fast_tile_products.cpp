// Tests of src/fast/tile_products.hpp and online_softmax_update.hpp, the kernels of
// lessons/07-online-softmax's tiled path: every variant this CPU runs (baseline, AVX2 + FMA,
// AVX-512) against double. The products: over every block height (1 … 6 and more), key counts
// around the panel width, and head widths that leave every kind of remainder (one vector, 8
// floats, single columns). Tolerance: 1e-5
// absolute plus 1e-5 relative (float32 sums of at most 75 terms of order 1, against double).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "fast/online_softmax_update.hpp"
#include "fast/tile_products.hpp"
#include "support/tensor_match.hpp"

using attn::fast::detail::key_panels;
using attn::fast::detail::pack_key_panels;
using attn::fast::detail::panel_width;
using attn::fast::detail::TileKernels;

namespace {

std::vector<float> random_values(std::mt19937& generator, std::size_t count) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(count);
    for (float& x : values) x = uniform(generator);
    return values;
}

// Every variant this CPU runs: the baseline, AVX2 + FMA, AVX-512.
std::vector<TileKernels> every_variant() { return attn::fast::detail::available_tile_kernels(); }

}  // namespace

TEST_CASE("the tile kernels' scores equal alpha · Q Kᵀ, and 0 past the last key", "[fast_kernels][lesson07]") {
    std::mt19937 generator(17);
    for (const TileKernels& kernels : every_variant()) {
        for (const std::size_t dk : {1, 3, 8, 16, 24, 64, 75}) {
            for (const std::size_t columns : {1, 5, 31, 32, 33, 70}) {
                for (const std::size_t rows : {1, 2, 3, 4, 5, 6, 7, 13}) {
                    INFO(kernels.name << " kernels, d_k " << dk << ", " << columns << " keys, "
                                               << rows << " queries");
                    const std::size_t ld = dk + 5, panels = key_panels(columns), stride = panels * panel_width + 7;
                    const auto q = random_values(generator, rows * ld);
                    const auto k = random_values(generator, columns * ld);
                    std::vector<float> packed(panels * dk * panel_width, -1.0f);
                    pack_key_panels(k.data(), columns, dk, ld, packed.data());
                    std::vector<float> scores(rows * stride, -1.0f);
                    const float alpha = 0.3f;
                    kernels.scores(q.data(), ld, rows, packed.data(), panels, dk, alpha, scores.data(), stride);

                    xt::xtensor<double, 2> expected = xt::zeros<double>({rows, panels * panel_width});
                    xt::xtensor<double, 2> got = xt::zeros<double>({rows, panels * panel_width});
                    for (std::size_t r = 0; r < rows; ++r) {
                        for (std::size_t c = 0; c < panels * panel_width; ++c) {
                            double sum = 0;
                            for (std::size_t i = 0; c < columns && i < dk; ++i)
                                sum += double(q[r * ld + i]) * k[c * ld + i];
                            expected(r, c) = alpha * sum;
                            got(r, c) = scores[r * stride + c];
                        }
                    }
                    CHECK_TENSOR_CLOSE(expected, got, 1e-5, 1e-5);
                }
            }
        }
    }
}

TEST_CASE("the tile kernels add P · V to the accumulator, every column of d_k", "[fast_kernels][lesson07]") {
    std::mt19937 generator(19);
    for (const TileKernels& kernels : every_variant()) {
        for (const std::size_t dk : {1, 3, 8, 12, 16, 24, 40, 64, 75}) {
            for (const std::size_t columns : {1, 5, 33, 70}) {
                for (const std::size_t rows : {1, 2, 3, 4, 5, 6, 7, 13}) {
                    INFO(kernels.name << " kernels, d_k " << dk << ", " << columns << " keys, "
                                               << rows << " queries");
                    const std::size_t ld = dk + 3, stride = columns + 2;
                    const auto p = random_values(generator, rows * stride);
                    const auto v = random_values(generator, columns * ld);
                    auto accumulator = random_values(generator, rows * dk);
                    xt::xtensor<double, 2> expected = xt::zeros<double>({rows, dk});
                    for (std::size_t r = 0; r < rows; ++r) {
                        for (std::size_t i = 0; i < dk; ++i) {
                            double sum = accumulator[r * dk + i];
                            for (std::size_t c = 0; c < columns; ++c) sum += double(p[r * stride + c]) * v[c * ld + i];
                            expected(r, i) = sum;
                        }
                    }
                    std::vector<float> slabs(attn::fast::detail::value_slab_floats(columns, dk), -1.0f);
                    attn::fast::detail::pack_value_slabs(v.data(), columns, dk, ld, slabs.data());
                    kernels.weighted_values(p.data(), stride, rows, columns, slabs.data(),
                                            attn::fast::detail::slab_width * columns, dk, accumulator.data());
                    xt::xtensor<double, 2> got = xt::zeros<double>({rows, dk});
                    for (std::size_t r = 0; r < rows; ++r)
                        for (std::size_t i = 0; i < dk; ++i) got(r, i) = accumulator[r * dk + i];
                    CHECK_TENSOR_CLOSE(expected, got, 1e-5, 1e-5);
                }
            }
        }
    }
}

TEST_CASE("a query's scores do not depend on the block of rows it falls in", "[fast_kernels][lesson07]") {
    // The 6-row kernel and the 1-row kernel sum in the same order: the same bits.
    std::mt19937 generator(23);
    const std::size_t rows = 6, columns = 40, dk = 64, panels = key_panels(columns), stride = panels * panel_width;
    const auto q = random_values(generator, rows * dk);
    const auto k = random_values(generator, columns * dk);
    std::vector<float> packed(panels * dk * panel_width);
    pack_key_panels(k.data(), columns, dk, dk, packed.data());
    for (const TileKernels& kernels : every_variant()) {
        INFO(kernels.name << " kernels");
        std::vector<float> together(rows * stride), alone(stride);
        kernels.scores(q.data(), dk, rows, packed.data(), panels, dk, 0.125f, together.data(), stride);
        for (std::size_t r = 0; r < rows; ++r) {
            kernels.scores(q.data() + r * dk, dk, 1, packed.data(), panels, dk, 0.125f, alone.data(), stride);
            for (std::size_t c = 0; c < columns; ++c) CHECK(alone[c] == together[r * stride + c]);
        }
    }
}

namespace {

// The state the update leaves, computed in double from the same scores: rows × (m, l, P…, accumulator…).
struct UpdateCase {
    std::size_t rows, columns, stride, dk;
    std::vector<float> scores, keep, maximum, sum, accumulator;
    std::vector<std::size_t> visible;
};

xt::xtensor<double, 2> expected_update(const UpdateCase& u, bool masked) {
    xt::xtensor<double, 2> out = xt::zeros<double>({u.rows, 2 + u.columns + u.dk});
    for (std::size_t r = 0; r < u.rows; ++r) {
        const auto seen = [&](std::size_t c) { return c < u.visible[r] && (!masked || u.keep[c] != 0.0f); };
        double m = u.maximum[r];
        for (std::size_t c = 0; c < u.columns; ++c)
            if (seen(c)) m = std::max(m, double(u.scores[r * u.stride + c]));
        const double rescale = std::isinf(m) ? 0.0 : std::exp(double(u.maximum[r]) - m);
        double l = u.sum[r] * rescale;
        for (std::size_t c = 0; c < u.columns; ++c) {
            const double p = seen(c) ? std::exp(u.scores[r * u.stride + c] - m) : 0.0;
            out(r, 2 + c) = p;
            l += p;
        }
        out(r, 0) = m;
        out(r, 1) = l;
        for (std::size_t i = 0; i < u.dk; ++i) out(r, 2 + u.columns + i) = u.accumulator[r * u.dk + i] * rescale;
    }
    return out;
}

xt::xtensor<double, 2> got_update(const UpdateCase& u) {
    xt::xtensor<double, 2> out = xt::zeros<double>({u.rows, 2 + u.columns + u.dk});
    for (std::size_t r = 0; r < u.rows; ++r) {
        out(r, 0) = u.maximum[r];
        out(r, 1) = u.sum[r];
        for (std::size_t c = 0; c < u.columns; ++c) out(r, 2 + c) = u.scores[r * u.stride + c];
        for (std::size_t i = 0; i < u.dk; ++i) out(r, 2 + u.columns + i) = u.accumulator[r * u.dk + i];
    }
    return out;
}

}  // namespace

TEST_CASE("the online softmax's update gives m, l, P and the rescaled accumulator of double, every variant",
          "[fast_kernels][lesson07]") {
    // Rows whose m grows in this tile and rows whose m stays, rows with no visible key (causal),
    // a padding mask, and key counts that leave every kind of partial vector. Tolerance 1e-6
    // relative (float32 exponentials within 2 ulps, sums of at most 70 terms) plus 1e-7 absolute.
    using attn::fast::detail::online_softmax_update;
    using attn::fast::detail::ScoreBlock;
    using attn::fast::detail::RunningRows;
    std::mt19937 generator(29);
    std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
    for (const auto simd : attn::fast::detail::available_simd()) {
        for (const std::size_t columns : {1, 7, 16, 33, 70}) {
            for (const std::size_t rows : {1, 5, 6}) {
                for (const bool masked : {false, true}) {
                    INFO(attn::fast::detail::simd_name(simd) << ", " << rows << " rows, " << columns << " keys, "
                                                             << (masked ? "padding mask" : "no mask"));
                    const std::size_t stride = key_panels(columns) * panel_width, dk = 24;
                    UpdateCase u{rows, columns, stride, dk, {}, {}, {}, {}, {}, {}};
                    for (std::size_t i = 0; i < rows * stride; ++i) u.scores.push_back(uniform(generator));
                    for (std::size_t c = 0; c < columns; ++c) u.keep.push_back(c % 3 == 1 ? 0.0f : 1.0f);
                    for (std::size_t r = 0; r < rows; ++r) {
                        // Row 0 sees nothing yet (m = −∞); then m below, within and above the scores.
                        u.maximum.push_back(r == 0 ? -std::numeric_limits<float>::infinity() : -6.0f + 2.5f * r);
                        u.sum.push_back(r == 0 ? 0.0f : 1.5f);
                        u.visible.push_back(r == 1 ? 0 : std::min(columns, 3 * r + 1 + (r == rows - 1 ? columns : 0)));
                        for (std::size_t i = 0; i < dk; ++i) u.accumulator.push_back(r == 0 ? 0.0f : uniform(generator));
                    }
                    const auto expected = expected_update(u, masked);
                    ScoreBlock block{u.scores.data(), stride, rows, columns, {}, masked ? u.keep.data() : nullptr};
                    std::copy(u.visible.begin(), u.visible.end(), block.visible);
                    const RunningRows running{u.maximum.data(), u.sum.data(), u.accumulator.data(), dk};
                    REQUIRE(online_softmax_update(simd)(block, running));
                    CHECK_TENSOR_CLOSE(expected, got_update(u), 1e-7, 1e-6);
                }
            }
        }
    }
}

TEST_CASE("the online softmax's update refuses a non-finite score among those computed, and only those",
          "[fast_kernels][lesson07]") {
    using attn::fast::detail::ScoreBlock;
    using attn::fast::detail::RunningRows;
    const std::size_t columns = 37, stride = 64, dk = 8;
    for (const auto simd : attn::fast::detail::available_simd()) {
        for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity()}) {
            INFO(attn::fast::detail::simd_name(simd) << ", " << bad);
            std::vector<float> scores(2 * stride, 0.5f), maximum{1.0f, 1.0f}, sum{2.0f, 2.0f}, accumulator(2 * dk, 3.0f);
            ScoreBlock block{scores.data(), stride, 2, columns, {5, 5}, nullptr};
            const RunningRows running{maximum.data(), sum.data(), accumulator.data(), dk};
            const auto update = attn::fast::detail::online_softmax_update(simd);
            scores[stride + columns] = bad;  // past the keys computed: not looked at
            CHECK(update(block, running));
            std::fill(scores.begin(), scores.end(), 0.5f);
            maximum = {1.0f, 1.0f};
            sum = {2.0f, 2.0f};
            scores[stride + columns - 1] = bad;  // hidden by the causal limit, but computed: refused
            CHECK_FALSE(update(block, running));
            CHECK(scores[0] == 0.5f);  // nothing touched
            CHECK(maximum[1] == 1.0f);
            CHECK(sum[1] == 2.0f);
        }
    }
}
