// The three steps of the tiled path's inner loop (src/fast/tiled_attention.cpp), timed apart, for
// every instruction set this CPU and build run: the scores kernel, the online softmax's update and
// the P·V kernel, at `attn bench mha --no-weights --seq 4096`'s shape (d_k 64, query tiles of 64,
// key tiles of 512, one head of 4096 keys), next to OpenBLAS's sgemm 1024³ in the same run.
//
//   cmake --build build --target attn_fast attn attn_io
//   g++ -O2 -std=c++17 -Iinclude -Isrc bench/tile_kernels.cpp build/libattn_{fast,,_io}.a -lopenblas
//   ./a.out
//
// The loop is walk_key_tiles's for one query tile over all the head's key tiles, run three times:
// scores alone, scores + update, scores + update + P·V; each step's time is the difference. Times
// are the least CPU time of 7 repetitions, on one thread (cpu_time.hpp).
#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "cpu_time.hpp"

#include "fast/online_softmax_update.hpp"
#include "fast/simd.hpp"
#include "fast/tile_products.hpp"

extern "C" void openblas_set_num_threads(int);

namespace {

using namespace attn::fast::detail;

constexpr std::size_t S = 4096, dk = 64, query_tile = 64, key_tile = 512;

std::vector<float> random_values(std::mt19937& generator, std::size_t count, float scale) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> values(count);
    for (float& x : values) x = normal(generator);
    return values;
}

double sgemm_gflops() {
    const int n = 1024;
    std::mt19937 generator(1);
    const auto a = random_values(generator, n * n, 1.0f), b = random_values(generator, n * n, 1.0f);
    std::vector<float> c(n * n);
    const double ms = least_ms([&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                    c.data(), n);
    }, 7);
    return 2.0 * n * n * n / ms / 1e6;
}

// One head's inputs, as a worker holds them: the query tile's rows already scaled by 1/√d_k and
// contiguous, the keys packed by panels and the values by slabs, tile by tile.
struct Head {
    std::vector<float> q, packed, values;  // values by slabs (pack_value_slabs)
    Head() {
        std::mt19937 generator(7);
        q = random_values(generator, query_tile * dk, 0.125f);
        const auto keys = random_values(generator, S * dk, 1.0f);
        const auto plain_values = random_values(generator, S * dk, 1.0f);
        values.resize(value_slab_floats(S, dk));
        packed.resize(S / key_tile * key_panels(key_tile) * dk * panel_width);
        for (std::size_t k0 = 0; k0 < S; k0 += key_tile)
        {
            pack_key_panels(keys.data() + k0 * dk, key_tile, dk, dk, packed.data() + k0 * dk);
            pack_value_slabs(plain_values.data() + k0 * dk, key_tile, dk, dk, values.data() + k0 * dk);
        }
    }
};

// walk_key_tiles for one query tile, up to `steps` of its three steps.
void walk(const Head& head, const TileKernels& kernels, SoftmaxUpdate update, int steps, std::vector<float>& scores,
          std::vector<float>& running) {
    float* maximum = running.data();
    float* sum = maximum + query_tile;
    float* accumulator = sum + query_tile;
    std::fill(maximum, maximum + query_tile, -std::numeric_limits<float>::infinity());
    std::fill(sum, running.data() + running.size(), 0.0f);
    for (std::size_t k0 = 0; k0 < S; k0 += key_tile) {
        for (std::size_t first = 0; first < query_tile; first += block_rows) {
            const std::size_t rows = std::min(block_rows, query_tile - first);
            kernels.scores(head.q.data() + first * dk, dk, rows, head.packed.data() + k0 * dk, key_panels(key_tile),
                           dk, 1.0f, scores.data(), key_tile);
            if (steps < 2) continue;
            ScoreBlock block{scores.data(), key_tile, rows, key_tile, {}, nullptr};
            std::fill(block.visible, block.visible + rows, key_tile);
            update(block, RunningRows{maximum + first, sum + first, accumulator + first * dk, dk});
            if (steps < 3) continue;
            kernels.weighted_values(scores.data(), key_tile, rows, key_tile, head.values.data() + k0 * dk,
                                    slab_width * key_tile, dk, accumulator + first * dk);
        }
    }
}

}  // namespace

int main() {
    openblas_set_num_threads(1);
    std::printf("sgemm 1024^3 (OpenBLAS, this run)  %6.1f GFLOP/s\n", sgemm_gflops());
    const Head head;
    const double scores_per_walk = double(query_tile) * S, flops_per_product = 2.0 * scores_per_walk * dk;
    const int walks = 40;  // 40 query tiles: 10.5 M scores
    std::vector<float> scores(block_rows * key_tile), running(2 * query_tile + query_tile * dk);
    for (const Simd simd : available_simd()) {
        if (simd == Simd::baseline) continue;  // the baseline's tile products run at a few GFLOP/s
        const TileKernels kernels = tile_kernels(simd);
        const SoftmaxUpdate update = online_softmax_update(simd);
        double ms[4] = {0, 0, 0, 0};
        for (int steps = 1; steps <= 3; ++steps)
            ms[steps] = least_ms([&] {
                for (int w = 0; w < walks; ++w) walk(head, kernels, update, steps, scores, running);
            }, 7) / walks;
        const double update_ms = ms[2] - ms[1], values_ms = ms[3] - ms[2];
        std::printf("%-10s  scores %6.1f GFLOP/s · update %5.3f ns per score · P·V %6.1f GFLOP/s · "
                    "all three %6.1f GFLOP/s\n",
                    simd_name(simd), flops_per_product / ms[1] / 1e6, update_ms * 1e6 / scores_per_walk,
                    flops_per_product / values_ms / 1e6, 2 * flops_per_product / ms[3] / 1e6);
    }
}
