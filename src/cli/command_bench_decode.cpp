// `attn bench decode`: times attn::fast::IncrementalDecoder (attn/fast/decoder.hpp) generating
// --tokens tokens over a seeded random --memory, and reports tokens per second.
//
// One generation = reset() and N steps, each step's output fed back as the next token (as a
// generating loop feeds its last token's embedding back; the outputs are LayerNorm'ed, so the
// values stay of order 1). The memory's K/V projections are made once, before the generations,
// and reported apart (memory_ms): a model makes them once per source, whatever it generates.
// tokens/s = N / the *minimum* generation time, the measurement least disturbed on a shared
// machine. "weights GB/s" is the parameters' bytes read per token times tokens/s: at batch 1 a
// step reads every weight once (all but the cross-attention's w_k and w_v, used on the memory), so this is the memory bandwidth the decoder achieved, the figure
// to hold against the machine's (docs/performance.md). bench/compare_pytorch.py runs it with --json.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <vector>

#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "cli/bench_support.hpp"
#include "cli/commands.hpp"
#include "tutor/language.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;
using tutor::trn;

namespace {

struct DecodeRun {
    std::size_t B = 0, L = 0, D = 0, h = 0, g = 0, F = 0, S = 0, N = 0;
    std::size_t threads = 0, repeat = 0, warmup = 0;
};

DecodeRun checked_decode_run(const BenchOptions& options, const fast::MachineDescription& machine) {
    for (const auto& [flag, given] : {std::pair<const char*, bool>{"--seq", options.seq.has_value()},
                                      {"--no-weights", options.no_weights}, {"--causal", options.causal},
                                      {"--rope", !options.rope.empty()}}) {
        if (given) throw InputError(trf("{1} does not apply to decode (its self-attention is causal over the cache)", {flag}));
    }
    DecodeRun run;
    run.B = size_option("--batch", options.batch, 1);
    run.L = size_option("--layers", options.layers, 6);
    run.D = size_option("--d-model", options.d_model, 512);
    run.h = size_option("--heads", options.heads, 8);
    run.g = size_option("--kv-heads", options.kv_heads, run.h);
    run.F = size_option("--d-ff", options.d_ff, 2048);
    run.S = size_option("--memory", options.memory, 512);
    run.N = size_option("--tokens", options.tokens, 512);
    if (run.D % run.h != 0) {
        throw InputError(trf("--heads {1} does not divide --d-model {2} (each head has d_model / heads columns)",
                             {std::to_string(run.h), std::to_string(run.D)}));
    }
    if (run.h % run.g != 0) {
        throw InputError(trf("--kv-heads {1} does not divide --heads {2} (each K/V head serves heads / kv-heads query heads)",
                             {std::to_string(run.g), std::to_string(run.h)}));
    }
    const Repetition repetition = checked_repetition(options.threads, options.repeat, options.warmup,
                                                     static_cast<std::size_t>(machine.physical_cores), 3, 1);
    run.threads = repetition.threads;
    run.repeat = repetition.repeat;
    run.warmup = repetition.warmup;
    return run;
}

// Floats held, counted in double before anything is allocated: the parameters, and the memory,
// its K/V projections and the caches; and the parameters a step reads (all but the
// cross-attention's w_k, w_v, b_k, b_v, used once on the memory).
struct DecodeFootprint {
    double parameter_floats = 0, cache_floats = 0, memory_floats = 0, step_parameter_floats = 0;
};

DecodeFootprint decode_footprint(const DecodeRun& r) {
    const double B = double(r.B), L = double(r.L), D = double(r.D), F = double(r.F), E = double(r.g) * D / double(r.h);
    DecodeFootprint counted;
    const double attention = 2.0 * D * D + 2.0 * E * D + 2.0 * D + 2.0 * E;  // w_q, w_o, w_k, w_v and biases
    counted.parameter_floats = L * (2.0 * attention + 2.0 * D * F + F + D + 6.0 * D);
    counted.step_parameter_floats = counted.parameter_floats - L * (2.0 * E * D + 2.0 * E);
    counted.cache_floats = L * 2.0 * B * double(r.N) * E;
    counted.memory_floats = B * double(r.S) * D + L * 2.0 * B * double(r.S) * E;
    return counted;
}

void refuse_over_memory_limit(const DecodeRun& r, const DecodeFootprint& counted) {
    const double bytes = 4.0 * (counted.parameter_floats + counted.cache_floats + counted.memory_floats);
    if (bytes <= 8.0 * 1024 * 1024 * 1024) return;
    throw InputError(trf("bench decode: --batch {1} --layers {2} --d-model {3} --d-ff {4} --memory {5} --tokens {6} would need "
                         "{7} GiB of memory; the limit is 8 GiB",
                         {std::to_string(r.B), std::to_string(r.L), std::to_string(r.D), std::to_string(r.F),
                          std::to_string(r.S), std::to_string(r.N), fixed(bytes / (1024.0 * 1024 * 1024), 1)}));
}

std::vector<fast::DecoderLayerParameters> random_layers(const DecodeRun& r, std::mt19937& generator) {
    const std::size_t kv_width = r.g * (r.D / r.h);
    const float bound1 = 1.0f / std::sqrt(float(r.D)), bound2 = 1.0f / std::sqrt(float(r.F));
    std::vector<fast::DecoderLayerParameters> layers(r.L);
    for (auto& p : layers) {
        p.self_attention = random_attention(generator, r.D, kv_width);
        p.cross_attention = random_attention(generator, r.D, kv_width);
        p.linear1_weight = random_tensor<2>(generator, {r.F, r.D}, -bound1, bound1);
        p.linear1_bias = random_tensor<1>(generator, {r.F}, -bound1, bound1);
        p.linear2_weight = random_tensor<2>(generator, {r.D, r.F}, -bound2, bound2);
        p.linear2_bias = random_tensor<1>(generator, {r.D}, -bound2, bound2);
        p.norm1_weight = p.norm2_weight = p.norm3_weight = xt::ones<float>({r.D});
        p.norm1_bias = p.norm2_bias = p.norm3_bias = xt::zeros<float>({r.D});
    }
    return layers;
}

struct DecodeTiming {
    double memory_ms = 0, min_ms = 0, median_ms = 0, min_cpu_ms = 0;
    double flops = 0, projection_ms = 0, attention_ms = 0;  // of one generation
};

DecodeTiming time_generations(const DecodeRun& r, std::mt19937& generator) {
    const fast::Tensor3 memory = random_tensor<3>(generator, {r.B, r.S, r.D}, 0.0f, 1.0f);
    const fast::Matrix first = random_tensor<2>(generator, {r.B, r.D}, 0.0f, 1.0f);
    fast::DecoderOptions options(r.h);
    options.kv_heads = r.g;
    fast::IncrementalDecoder decoder(random_layers(r, generator), options, memory, r.N);
    DecodeTiming timing;
    timing.memory_ms = decoder.work().memory_seconds * 1e3;
    std::vector<double> wall;
    double least_cpu = 0;
    fast::Matrix token, output;
    for (std::size_t generation = 0; generation < r.warmup + r.repeat; ++generation) {
        decoder.reset();
        token = first;
        const fast::DecodeWork before = decoder.work();
        const double cpu = process_cpu_ms();
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t t = 0; t < r.N; ++t) {
            decoder.step_into(token, output);
            std::swap(token, output);
        }
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        const double cpu_ms = process_cpu_ms() - cpu;
        if (generation < r.warmup) continue;
        const fast::DecodeWork& after = decoder.work();
        if (wall.empty() || ms < *std::min_element(wall.begin(), wall.end())) {
            timing.flops = (after.projection_flops - before.projection_flops) + (after.attention_flops - before.attention_flops);
            timing.projection_ms = (after.projection_seconds - before.projection_seconds) * 1e3;
            timing.attention_ms = (after.attention_seconds - before.attention_seconds) * 1e3;
        }
        least_cpu = wall.empty() ? cpu_ms : std::min(least_cpu, cpu_ms);
        wall.push_back(ms);
    }
    std::sort(wall.begin(), wall.end());
    const std::size_t n = wall.size();
    timing.min_ms = wall.front();
    timing.median_ms = n % 2 ? wall[n / 2] : (wall[n / 2 - 1] + wall[n / 2]) / 2;
    timing.min_cpu_ms = least_cpu;
    return timing;
}

struct DecodeRates {
    double tokens_per_s = 0, ms_per_token = 0, gflops = 0, weights_gb_per_s = 0;
    double parameter_mb = 0, step_parameter_mb = 0, cache_mb = 0, rss_mb = 0, sgemm = 0;
};

DecodeRates decode_rates(const DecodeRun& r, const DecodeTiming& timing, const DecodeFootprint& counted) {
    DecodeRates rates;
    rates.tokens_per_s = double(r.N) / (timing.min_ms * 1e-3);
    rates.ms_per_token = timing.min_ms / double(r.N);
    rates.gflops = timing.flops / (timing.min_ms * 1e-3) / 1e9;
    rates.weights_gb_per_s = 4.0 * counted.step_parameter_floats * rates.tokens_per_s / 1e9;
    rates.parameter_mb = counted.parameter_floats * 4 / (1024.0 * 1024.0);
    rates.step_parameter_mb = counted.step_parameter_floats * 4 / (1024.0 * 1024.0);
    rates.cache_mb = counted.cache_floats * 4 / (1024.0 * 1024.0);
    rates.rss_mb = peak_rss_mb();
    rates.sgemm = fast::sgemm_gflops();  // after the timed generations: the peak RSS is theirs
    return rates;
}

void print_decode_json(const DecodeRun& r, const fast::MachineDescription& machine, const DecodeTiming& timing,
                       const DecodeRates& rates) {
    std::cout << "{\"module\": \"decode\", \"shape\": {\"batch\": " << r.B << ", \"layers\": " << r.L << ", \"d_model\": " << r.D
              << ", \"heads\": " << r.h << ", \"kv_heads\": " << r.g << ", \"d_ff\": " << r.F << ", \"memory\": " << r.S
              << ", \"tokens\": " << r.N << "}, \"dtype\": \"float32\", \"threads\": " << r.threads << ", \"repeat\": " << r.repeat
              << ", \"warmup\": " << r.warmup << ", \"min_ms\": " << fixed(timing.min_ms, 3) << ", \"median_ms\": "
              << fixed(timing.median_ms, 3) << ", \"min_cpu_ms\": " << fixed(timing.min_cpu_ms, 3)
              << ", \"tokens_per_s\": " << fixed(rates.tokens_per_s, 2) << ", \"ms_per_token\": " << fixed(rates.ms_per_token, 4)
              << ", \"memory_ms\": " << fixed(timing.memory_ms, 3) << ", \"gflop\": " << fixed(timing.flops / 1e9, 4)
              << ", \"gflops\": " << fixed(rates.gflops, 2) << ", \"projection_ms\": " << fixed(timing.projection_ms, 3)
              << ", \"attention_ms\": " << fixed(timing.attention_ms, 3) << ", \"weights_gb_per_s\": "
              << fixed(rates.weights_gb_per_s, 2) << ", \"peak_rss_mb\": " << fixed(rates.rss_mb, 1)
              << ", \"cache_mb\": " << fixed(rates.cache_mb, 1) << ", \"parameter_mb\": " << fixed(rates.parameter_mb, 1)
              << ", \"step_parameter_mb\": " << fixed(rates.step_parameter_mb, 1) << ", "
              << machine_json(machine, rates.sgemm) << "}\n";
}

void print_decode_text(const DecodeRun& r, const fast::MachineDescription& machine, const DecodeTiming& timing,
                       const DecodeRates& rates) {
    std::cout << "attn bench decode · float32 · B " << r.B << ", L " << r.L << ", D " << r.D << ", h " << r.h << ", g " << r.g
              << ", F " << r.F << ", S " << r.S << " · " << trn("{1} token", "{1} tokens", r.N, {std::to_string(r.N)}) << " · "
              << trn("{1} thread", "{1} threads", r.threads, {std::to_string(r.threads)}) << " · "
              << trn("{1} timed generation", "{1} timed generations", r.repeat, {std::to_string(r.repeat)}) << " "
              << trn("after {1} warm-up generation", "after {1} warm-up generations", r.warmup, {std::to_string(r.warmup)})
              << "\n";
    print_machine(machine);
    std::cout << "  " << trf("tokens/s  {1}  ({2} ms per token; generation: min {3} ms, median {4} ms)",
                             {fixed(rates.tokens_per_s, 1), fixed(rates.ms_per_token, 3), fixed(timing.min_ms, 1),
                              fixed(timing.median_ms, 1)})
              << "\n  "
              << trf("weights   {1} MB read per token: {2} GB/s; projections {3} ms, attention {4} ms",
                     {fixed(rates.step_parameter_mb, 1), fixed(rates.weights_gb_per_s, 1), fixed(timing.projection_ms, 1),
                      fixed(timing.attention_ms, 1)})
              << "\n  "
              << trf("memory    K/V projected once in {1} ms; the cache holds {2} MB",
                     {fixed(timing.memory_ms, 2), fixed(rates.cache_mb, 1)})
              << "\n  " << trf("peak RSS  {1} MB", {fixed(rates.rss_mb, 1)}) << "\n";
}

}  // namespace

std::string describe_bench_decode() {
    return "--batch 1 --layers 6 --d-model 512 --heads 8 --d-ff 2048 --memory 512 --tokens 512";
}

int run_bench_decode(const BenchOptions& options) {
    const fast::MachineDescription machine = fast::describe_machine();
    const DecodeRun run = checked_decode_run(options, machine);
    const DecodeFootprint counted = decode_footprint(run);
    refuse_over_memory_limit(run, counted);
    fast::set_threads(static_cast<int>(run.threads));
    std::mt19937 generator(0);
    const DecodeTiming timing = time_generations(run, generator);
    const DecodeRates rates = decode_rates(run, timing, counted);
    if (options.json) {
        print_decode_json(run, machine, timing, rates);
    } else {
        print_decode_text(run, machine, timing, rates);
    }
    return exit_success;
}

}  // namespace attn::cli
