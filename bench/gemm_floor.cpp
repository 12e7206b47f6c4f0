// The GEMM floor of `attn bench mha` at seed 000's shape: exactly the cblas_sgemm calls that
// attn::fast_multi_head_attention makes (same shapes, transposes, leading dimensions and betas),
// single-threaded, with nothing between them — no softmax, no bias, no threads. No implementation
// built on OpenBLAS's sgemm can be faster than this; docs/performance.md compares it with attn's
// and PyTorch's times.
//
//   g++ -O2 bench/gemm_floor.cpp -o gemm_floor -lopenblas && ./gemm_floor
//
// Times are the least CPU time of 8 repetitions (CLOCK_PROCESS_CPUTIME_ID): other processes on a
// shared machine disturb it less than wall time.
#include <cblas.h>

#include <cstdio>
#include <vector>

#include "cpu_time.hpp"

extern "C" void openblas_set_num_threads(int);

int main() {
    openblas_set_num_threads(1);
    const int B = 8, T = 300, D = 768, h = 8, dk = D / h;
    std::vector<float> x(B * T * D, 0.5f), w(D * D, 0.01f), q(B * T * D), k(B * T * D), v(B * T * D),
        weights(std::size_t(B) * h * T * T), context(B * T * D), out(B * T * D), a(1024 * 1024, 0.5f),
        b(1024 * 1024, 0.25f), c(1024 * 1024);

    const double square = least_ms([&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 1024, 1, a.data(), 1024, b.data(), 1024, 0,
                    c.data(), 1024);
    }, 8);
    // Q, K, V and the output projection: (B·T, D) × (D, D)ᵀ, the bias already in C (beta 1).
    const double projections = least_ms([&] {
        for (float* y : {q.data(), k.data(), v.data(), out.data()}) {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B * T, D, D, 1, x.data(), D, w.data(), D, 1, y, D);
        }
    }, 8);
    // scores = Q_h K_hᵀ / √d_k per (batch, head), written into the (B, h, T, S) weights.
    const double scores = least_ms([&] {
        for (int i = 0; i < B * h; ++i) {
            const int bb = i / h, hh = i % h;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, T, dk, 0.1f, q.data() + bb * T * D + hh * dk, D,
                        k.data() + bb * T * D + hh * dk, D, 0, weights.data() + std::size_t(i) * T * T, T);
        }
    }, 8);
    // context_h = weights (T, S) V_h, into the (B·T, D) context.
    const double contexts = least_ms([&] {
        for (int i = 0; i < B * h; ++i) {
            const int bb = i / h, hh = i % h;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, T, dk, T, 1, weights.data() + std::size_t(i) * T * T,
                        T, v.data() + bb * T * D + hh * dk, D, 0, context.data() + bb * T * D + hh * dk, D);
        }
    }, 8);
    const double attention_flop = 2.0 * B * T * T * D;
    std::printf("sgemm 1024^3                 %7.1f ms  %5.1f GFLOP/s\n", square, 2.0 * 1024 * 1024 * 1024 / square / 1e6);
    std::printf("4 projections (2400x768x768) %7.1f ms  %5.1f GFLOP/s\n", projections,
                4 * 2.0 * B * T * D * D / projections / 1e6);
    std::printf("64 x QK^T (300x300x96)       %7.1f ms  %5.1f GFLOP/s\n", scores, attention_flop / scores / 1e6);
    std::printf("64 x weights.V (300x96x300)  %7.1f ms  %5.1f GFLOP/s\n", contexts, attention_flop / contexts / 1e6);
    std::printf("GEMM floor of the MHA        %7.1f ms  (1 thread)\n", projections + scores + contexts);
    return 0;
}
