// src/cli/bench_support.hpp — what the `attn bench` modules share (command_bench.cpp: mha and
// encoder-layer; command_bench_decode.cpp: decode): checked sizes, seeded random parameters in
// nn.Linear's initialisation range, the process's CPU time and peak memory, the lines saying
// what the numbers were measured on, and JSON and fixed-point formatting.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <random>
#include <string>

#include "attn/fast/machine.hpp"
#include "attn/fast/multi_head_attention.hpp"

namespace attn::cli {

/// The option's value, or `fallback` when it was not given; InputError naming the flag when below 1.
std::size_t size_option(const char* flag, const std::optional<long long>& value, std::size_t fallback);

/// InputError naming --heads and --d-model when h does not divide D.
void check_heads_divide(std::size_t heads, std::size_t d_model);

/// How a bench repeats its timed calls: --threads (default: the physical cores; at most 1024),
/// --repeat (≥ 1) and --warmup (≥ 0), each with the module's default; InputError naming the flag.
struct Repetition {
    std::size_t threads = 0, repeat = 0, warmup = 0;
};
Repetition checked_repetition(const std::optional<long long>& threads, const std::optional<long long>& repeat,
                              const std::optional<long long>& warmup, std::size_t default_threads,
                              long long default_repeat, long long default_warmup);

/// A float32 tensor of `shape`, uniform in [low, high).
template <std::size_t N>
xt::xtensor<float, N> random_tensor(std::mt19937& generator, const std::array<std::size_t, N>& shape, float low,
                                    float high) {
    std::uniform_real_distribution<float> uniform(low, high);
    auto t = xt::xtensor<float, N>::from_shape(shape);
    for (auto& v : t) v = uniform(generator);
    return t;
}

/// Attention parameters with biases and W_o, uniform in ±1/√D (nn.Linear's default range, so that
/// activations stay of order 1): w_q, w_o (D, D), w_k, w_v (kv_width, D).
fast::AttentionParameters random_attention(std::mt19937& generator, std::size_t D, std::size_t kv_width);

double peak_rss_mb();     // the process's peak resident memory so far
double process_cpu_ms();  // CPU time of the whole process (all its threads)

/// A string as a JSON string's contents (the CPU model is printable already; quotes and
/// backslashes remain).
std::string json_escaped(const std::string& text);
std::string fixed(double value, int decimals);

/// The lines under a bench's first line: the CPU, its cores and CPUs, the kernels' instruction
/// set, the BLAS.
void print_machine(const fast::MachineDescription& machine);

/// The JSON members every bench ends with: "cpu_model" … "sgemm_gflops" (no leading comma).
std::string machine_json(const fast::MachineDescription& machine, double sgemm_gflops);

}  // namespace attn::cli
