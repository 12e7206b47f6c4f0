// attn/fast/machine.hpp — what the fast path runs on, so that a measurement says where it was
// taken: the CPU, its cores, the instruction set of the kernels that ran, and the rate of the
// machine's own sgemm measured in the same run (attn bench prints them above its numbers).
//
// Why the sgemm rate of the same run: a share of "the sgemm rate" compares two programs only when
// both ran on the same CPU, at the same clock, with the same instruction set. OpenBLAS picks its
// kernels by CPU model (0.3.21 runs its AVX2 kernels on an AMD Zen 5, a family it does not know,
// and its AVX-512 ones on a Zen 4), so a number from another machine can mislead by a factor of two.
//
//   attn::fast::describe_machine().physical_cores;   // 2 on a laptop with 2 cores, 4 threads
//   attn::fast::sgemm_gflops();                        // e.g. 104.8 on one core of an AMD EPYC
#pragma once

#include <string>

namespace attn::fast {

struct MachineDescription {
    std::string cpu_model;  // /proc/cpuinfo's "model name" (made printable), "unknown" where there is none
    int logical_cpus = 1;   // the CPUs this process may run on (its affinity mask)
    int physical_cores = 1; // the cores among them: the hardware threads of one core count once
    std::string kernels;    // the fast path's kernels that run: "AVX-512", "AVX2 + FMA" or "baseline"
    std::string blas;       // OpenBLAS's own configuration and the core type whose kernels it chose,
                            // e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64 · core Haswell";
                            // "a BLAS other than OpenBLAS" when the build linked another
};

MachineDescription describe_machine();

/// describe_machine().physical_cores alone: the fast path's default thread count.
int physical_cores();

/// The GFLOP/s of this machine's sgemm as the fast path uses it: each of the pool's threads
/// (attn/fast/threads.hpp) multiplies two 1024 × 1024 float32 matrices with a single-threaded
/// cblas_sgemm, all at once; 2·1024³ FLOPs per product over the slowest thread's time, the best
/// of `rounds` rounds after one warm-up. Allocates 12 MiB per thread while it runs.
double sgemm_gflops(int rounds = 5);

}  // namespace attn::fast
