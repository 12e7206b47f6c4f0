// Tests of src/fast/tile_products.hpp, the micro-kernels of lessons/07-online-softmax's tiled path:
// every variant this CPU runs (baseline, AVX2 + FMA, AVX-512) against the products computed in
// double, over every block height (1 … 6 and more), key counts around the panel width, and head
// widths that leave every kind of remainder (one vector, 8 floats, single columns). Tolerance: 1e-5
// absolute plus 1e-5 relative (float32 sums of at most 75 terms of order 1, against double).
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include <xtensor/xtensor.hpp>

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
                    kernels.weighted_values(p.data(), stride, rows, columns, v.data(), ld, dk, accumulator.data());
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
