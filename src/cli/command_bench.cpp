// `attn bench MODULE`: times the float32 fast path (attn/fast_attention.hpp) on seeded random
// inputs and reports min and median time, GFLOP/s and peak resident memory.
//
// The timed call is the *_into form with its result and workspace allocated by one warm-up call,
// so the loop measures the computation, not the allocator. GFLOP/s = the FLOPs of the matrix
// products (fast_attention_flops / fast_encoder_layer_flops: projections, QKᵀ, weights·V, output
// projection, feed-forward; 2 per multiply-add) divided by the *minimum* time: on a shared machine
// the minimum is the measurement least disturbed by other processes. bench/compare_pytorch.py
// runs this with --json next to PyTorch (docs/performance.md).
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "attn/error.hpp"
#include "attn/fast_attention.hpp"
#include "cli/commands.hpp"

namespace attn::cli {

namespace {

struct BenchModule {
    std::string name;
    std::string summary;
    std::size_t batch, seq, d_model, heads, d_ff;  // defaults; d_ff 0: not used
};

const std::vector<BenchModule>& bench_modules() {
    static const std::vector<BenchModule> modules = {
        {"mha", "multi-head self-attention with W_o, per-head weights kept (seed 000's shape)", 8, 300, 768, 8, 0},
        {"encoder-layer", "nn.TransformerEncoderLayer, post-norm, relu, dropout 0", 8, 128, 512, 8, 2048},
    };
    return modules;
}

const BenchModule& find_bench_module(const std::string& name) {
    for (const auto& module : bench_modules()) {
        if (module.name == name) return module;
    }
    std::string known;
    for (const auto& module : bench_modules()) known += (known.empty() ? "" : ", ") + module.name;
    throw InputError("unknown module '" + name + "'; the modules are: " + known);
}

std::size_t size_option(const char* flag, const std::optional<long long>& value, std::size_t fallback) {
    if (!value) return fallback;
    if (*value < 1) throw InputError(std::string(flag) + " must be at least 1 (got " + std::to_string(*value) + ")");
    return static_cast<std::size_t>(*value);
}

template <std::size_t N>
xt::xtensor<float, N> random_tensor(std::mt19937& generator, const std::array<std::size_t, N>& shape, float low,
                                    float high) {
    std::uniform_real_distribution<float> uniform(low, high);
    auto t = xt::xtensor<float, N>::from_shape(shape);
    for (auto& v : t) v = uniform(generator);
    return t;
}

// nn.Linear's default initialisation range, so that activations stay of order 1.
FastAttentionParameters random_attention(std::mt19937& generator, std::size_t D) {
    const float bound = 1.0f / std::sqrt(float(D));
    FastAttentionParameters p;
    p.w_q = random_tensor<2>(generator, {D, D}, -bound, bound);
    p.w_k = random_tensor<2>(generator, {D, D}, -bound, bound);
    p.w_v = random_tensor<2>(generator, {D, D}, -bound, bound);
    p.b_q = random_tensor<1>(generator, {D}, -bound, bound);
    p.b_k = random_tensor<1>(generator, {D}, -bound, bound);
    p.b_v = random_tensor<1>(generator, {D}, -bound, bound);
    p.w_o = random_tensor<2>(generator, {D, D}, -bound, bound);
    p.b_o = random_tensor<1>(generator, {D}, -bound, bound);
    return p;
}

double peak_rss_mb() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

struct Timing {
    double min_ms = 0, median_ms = 0;
    double min_cpu_ms = 0;  // the least CPU time of the whole process (all its threads) for one call
};

double process_cpu_ms() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

template <class Call>
Timing time_calls(std::size_t repeat, const Call& call) {
    call();  // warm-up: sizes the result and the workspace, wakes OpenBLAS's threads
    std::vector<std::pair<double, double>> calls;  // wall ms, CPU ms
    for (std::size_t i = 0; i < repeat; ++i) {
        const double cpu = process_cpu_ms();
        const auto start = std::chrono::steady_clock::now();
        call();
        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        calls.emplace_back(wall, process_cpu_ms() - cpu);
    }
    std::sort(calls.begin(), calls.end());
    const std::size_t n = calls.size();
    const double median = n % 2 ? calls[n / 2].first : (calls[n / 2 - 1].first + calls[n / 2].first) / 2;
    double least_cpu = calls.front().second;
    for (const auto& c : calls) least_cpu = std::min(least_cpu, c.second);
    return {calls.front().first, median, least_cpu};
}

std::string fixed(double value, int decimals) {
    std::ostringstream text;
    text << std::fixed << std::setprecision(decimals) << value;
    return text.str();
}

}  // namespace

std::string describe_bench_modules() {
    std::string text = "Modules (default shape):\n";
    for (const auto& m : bench_modules()) {
        text += "  " + m.name + "  " + m.summary + "\n    --batch " + std::to_string(m.batch) + " --seq " +
                std::to_string(m.seq) + " --d-model " + std::to_string(m.d_model) + " --heads " +
                std::to_string(m.heads) + (m.d_ff ? " --d-ff " + std::to_string(m.d_ff) : std::string()) + "\n";
    }
    return text;
}

int run_bench(const GlobalOptions&, const BenchOptions& options) {
    const BenchModule& module = find_bench_module(options.module);
    const bool encoder = module.name == "encoder-layer";
    const std::size_t B = size_option("--batch", options.batch, module.batch);
    const std::size_t T = size_option("--seq", options.seq, module.seq);
    const std::size_t D = size_option("--d-model", options.d_model, module.d_model);
    const std::size_t h = size_option("--heads", options.heads, module.heads);
    if (!encoder && options.d_ff) throw InputError("--d-ff applies to encoder-layer only, not to " + module.name);
    const std::size_t F = encoder ? size_option("--d-ff", options.d_ff, module.d_ff) : 0;
    if (D % h != 0) {
        throw InputError("--heads " + std::to_string(h) + " does not divide --d-model " + std::to_string(D) +
                         " (each head has d_model / heads columns)");
    }
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads = size_option("--threads", options.threads, cores);
    if (options.repeat < 1) throw InputError("--repeat must be at least 1 (got " + std::to_string(options.repeat) + ")");
    if (threads > 1024) throw InputError("--threads must be at most 1024 (got " + std::to_string(threads) + ")");
    // The memory the tensors and parameters need, counted in double arithmetic before anything is
    // allocated (so no product of the options can wrap); the limit is attn run's, 8 GiB.
    const double needed_bytes =
        4.0 * (encoder ? double(B) * T * D * 8 + double(B) * T * F + double(threads) * T * T + 4.0 * D * D + 2.0 * D * F
                       : double(B) * T * D * 6 + double(B) * h * T * T + 4.0 * D * D);
    if (needed_bytes > 8.0 * 1024 * 1024 * 1024) {
        throw InputError("bench " + module.name + ": --batch " + std::to_string(B) + " --seq " + std::to_string(T) +
                         " --d-model " + std::to_string(D) + " --heads " + std::to_string(h) +
                         (encoder ? " --d-ff " + std::to_string(F) : std::string()) + " would need " +
                         fixed(needed_bytes / (1024.0 * 1024 * 1024), 1) + " GiB of memory; the limit is 8 GiB");
    }
    const auto repeat = static_cast<std::size_t>(options.repeat);
    set_fast_threads(static_cast<int>(threads));

    std::mt19937 generator(0);
    const FloatTensor3 x = random_tensor<3>(generator, {B, T, D}, 0.0f, 1.0f);  // torch.rand, as seed 000
    double flop = 0, tensor_floats = 0, parameter_floats = 0;
    Timing timing;
    if (!encoder) {
        const FastAttentionParameters p = random_attention(generator, D);
        FastAttentionOptions fast_options;
        fast_options.heads = h;
        FastAttentionResult result;
        FastAttentionWorkspace workspace;
        timing = time_calls(repeat, [&] { fast_multi_head_attention_into(x, x, x, p, fast_options, result, workspace); });
        flop = fast_attention_flops(B, T, T, D, true);
        // What the computation must hold: input, Q, K, V, weights, context, output.
        tensor_floats = double(B * T * D) * 6 + double(B * h * T * T);
        parameter_floats = 4.0 * D * D + 4.0 * D;
    } else {
        FastEncoderLayerParameters p;
        p.attention = random_attention(generator, D);
        const float bound1 = 1.0f / std::sqrt(float(D)), bound2 = 1.0f / std::sqrt(float(F));
        p.linear1_weight = random_tensor<2>(generator, {F, D}, -bound1, bound1);
        p.linear1_bias = random_tensor<1>(generator, {F}, -bound1, bound1);
        p.linear2_weight = random_tensor<2>(generator, {D, F}, -bound2, bound2);
        p.linear2_bias = random_tensor<1>(generator, {D}, -bound2, bound2);
        p.norm1_weight = p.norm2_weight = xt::ones<float>({D});
        p.norm1_bias = p.norm2_bias = xt::zeros<float>({D});
        FastEncoderLayerOptions fast_options;
        fast_options.heads = h;
        FloatTensor3 output;
        FastEncoderLayerWorkspace workspace;
        timing = time_calls(repeat, [&] { fast_transformer_encoder_layer_into(x, p, fast_options, output, workspace); });
        flop = fast_encoder_layer_flops(B, T, D, F);
        // input, Q, K, V, context, attention output, hidden, inner (B·T·F), output, one (T, T) block per thread.
        tensor_floats = double(B * T * D) * 8 + double(B * T * F) + double(threads * T * T);
        parameter_floats = 4.0 * D * D + 2.0 * D * F + 10.0 * D + F;
    }
    const double gflops = flop / (timing.min_ms * 1e-3) / 1e9;
    const double tensor_mb = tensor_floats * 4 / (1024.0 * 1024.0);
    const double parameter_mb = parameter_floats * 4 / (1024.0 * 1024.0);
    const double rss_mb = peak_rss_mb();

    if (options.json) {
        std::cout << "{\"module\": \"" << module.name << "\", \"shape\": {\"batch\": " << B << ", \"seq\": " << T
                  << ", \"d_model\": " << D << ", \"heads\": " << h << ", \"d_ff\": " << (encoder ? std::to_string(F) : "null")
                  << "}, \"dtype\": \"float32\", \"threads\": " << threads << ", \"repeat\": " << repeat
                  << ", \"min_ms\": " << fixed(timing.min_ms, 3) << ", \"median_ms\": " << fixed(timing.median_ms, 3)
                  << ", \"min_cpu_ms\": " << fixed(timing.min_cpu_ms, 3)
                  << ", \"gflop\": " << fixed(flop / 1e9, 4) << ", \"gflops\": " << fixed(gflops, 2)
                  << ", \"peak_rss_mb\": " << fixed(rss_mb, 1) << ", \"tensor_mb\": " << fixed(tensor_mb, 1)
                  << ", \"parameter_mb\": " << fixed(parameter_mb, 1) << "}\n";
        return exit_success;
    }
    std::cout << "attn bench " << module.name << " · float32 · B " << B << ", T " << T << ", D " << D << ", h " << h
              << (encoder ? ", F " + std::to_string(F) : std::string()) << " · " << threads
              << (threads == 1 ? " thread" : " threads") << " · " << repeat << " timed calls after one warm-up\n"
              << "  min       " << fixed(timing.min_ms, 2) << " ms\n"
              << "  median    " << fixed(timing.median_ms, 2) << " ms\n"
              << "  GFLOP/s   " << fixed(gflops, 1) << "  (" << fixed(flop / 1e9, 3)
              << " GFLOP of matrix products per call, at the min time)\n"
              << "  peak RSS  " << fixed(rss_mb, 1) << " MB  (tensors held: " << fixed(tensor_mb, 1)
              << " MB, parameters: " << fixed(parameter_mb, 1) << " MB)\n";
    return exit_success;
}

}  // namespace attn::cli
