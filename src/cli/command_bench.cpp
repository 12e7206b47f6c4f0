// `attn bench MODULE`: times the float32 fast path (attn/fast.hpp) on seeded random inputs and
// reports min and median time, GFLOP/s and peak resident memory.
//
// The timed call is the *_into form with its result and workspace allocated by the warm-up call,
// so the loop measures the computation, not the allocator. GFLOP/s = the FLOPs of the matrix
// products the call computed (AttentionWork: projections, Q Kᵀ and weights·V of the tiles
// computed — the causal mask's skipped tiles are not counted —, the output projection, the
// feed-forward network; 2 per multiply-add) divided by the *minimum* time: on a shared machine
// the minimum is the measurement least disturbed by other processes. The attention part (scores,
// softmax, weights·V) is also timed on its own, for its own GFLOP/s. bench/compare_pytorch.py runs
// this with --json next to PyTorch (docs/performance.md).
//
// Above the numbers it says what they were measured on (attn/fast/machine.hpp): the CPU model,
// its physical cores and the threads used, the instruction set of the kernels that ran, and the
// rate of the machine's sgemm measured in the same run, so that a share of the sgemm rate never
// compares two instruction sets or two machines.
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
#include "attn/fast.hpp"
#include "attn/printable.hpp"
#include "attn/rotary.hpp"
#include "cli/bench_support.hpp"
#include "cli/commands.hpp"
#include "tutor/find_by_name.hpp"
#include "tutor/language.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;
using tutor::trn;

namespace {

struct BenchModule {
    std::string name;
    std::string summary;
    std::size_t batch, seq, d_model, heads, d_ff;  // defaults; d_ff 0: not used
};

const std::vector<BenchModule>& bench_modules() {
    static const std::vector<BenchModule> modules = {
        {"mha", N_("multi-head self-attention with W_o, per-head weights kept (seed 000's shape); --no-weights: tiled"), 8,
         300, 768, 8, 0},
        {"encoder-layer", N_("nn.TransformerEncoderLayer, post-norm, relu, dropout 0 (its attention always tiled)"), 8, 128,
         512, 8, 2048},
        {"decode", N_("nn.TransformerDecoder generating tokens with a K/V cache (post-norm, relu); --kv-heads: grouped-query"),
         1, 0, 512, 8, 2048},
        {"train", N_("the copy-task model's training step on the float32 path (attn train copy --size annotated)"), 80, 10,
         512, 8, 2048},
    };
    return modules;
}

const BenchModule& find_bench_module(const std::string& name) {
    return tutor::find_by_name(bench_modules(), name, "module");
}

struct Timing {
    double min_ms = 0, median_ms = 0;
    double min_cpu_ms = 0;         // the least CPU time of the whole process (all its threads) for one call
    fast::AttentionWork work;      // what the fastest call's attention computed, and its parts' times
};

// call() returns the AttentionWork of the call it made.
template <class Call>
Timing time_calls(std::size_t warmup, std::size_t repeat, const Call& call) {
    for (std::size_t i = 0; i < warmup; ++i) call();  // sizes the result and the workspace
    struct Measured {
        double wall_ms, cpu_ms;
        fast::AttentionWork work;
    };
    std::vector<Measured> calls;
    for (std::size_t i = 0; i < repeat; ++i) {
        const double cpu = process_cpu_ms();
        const auto start = std::chrono::steady_clock::now();
        const fast::AttentionWork work = call();
        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        calls.push_back({wall, process_cpu_ms() - cpu, work});
    }
    std::sort(calls.begin(), calls.end(), [](const Measured& a, const Measured& b) { return a.wall_ms < b.wall_ms; });
    const std::size_t n = calls.size();
    const double median = n % 2 ? calls[n / 2].wall_ms : (calls[n / 2 - 1].wall_ms + calls[n / 2].wall_ms) / 2;
    double least_cpu = calls.front().cpu_ms;
    for (const auto& c : calls) least_cpu = std::min(least_cpu, c.cpu_ms);
    return {calls.front().wall_ms, median, least_cpu, calls.front().work};
}

// The run's shape and settings, every option checked.
struct BenchRun {
    bool encoder = false;  // encoder-layer (else mha)
    bool weights = false;  // mha keeps its (B, h, T, S) weights
    bool causal = false;
    std::optional<RopeLayout> rope;  // mha: RoPE on Q and K
    std::size_t B = 0, T = 0, D = 0, h = 0, F = 0;  // F: encoder-layer only
    std::size_t threads = 0, repeat = 0, warmup = 0;
};

// --rope: absent when not given; mha only, with an even d_k.
std::optional<RopeLayout> checked_rope(const BenchOptions& options, const BenchRun& run) {
    if (options.rope.empty()) return std::nullopt;
    if (run.encoder) throw InputError(tr("--rope applies to mha only"));
    if (options.rope != "halves" && options.rope != "pairs") {
        throw InputError(trf("--rope {1}: expected halves (features i and i + d_k/2, Hugging Face's rotate_half) or "
                             "pairs (features 2i and 2i + 1, GPT-J's rotate_every_two)",
                             {printable_text(options.rope)}));
    }
    if ((run.D / run.h) % 2 != 0) {
        throw InputError(trf("--rope needs an even d_k = d_model / heads: RoPE turns pairs of features (got d_k = {1})",
                             {std::to_string(run.D / run.h)}));
    }
    return options.rope == "halves" ? RopeLayout::halves : RopeLayout::pairs;
}

BenchRun checked_run(const BenchOptions& options, const BenchModule& module, const fast::MachineDescription& machine) {
    BenchRun run;
    run.encoder = module.name == "encoder-layer";
    run.B = size_option("--batch", options.batch, module.batch);
    run.T = size_option("--seq", options.seq, module.seq);
    run.D = size_option("--d-model", options.d_model, module.d_model);
    run.h = size_option("--heads", options.heads, module.heads);
    if (!run.encoder && options.d_ff) throw InputError(trf("--d-ff applies to encoder-layer and decode only, not to {1}", {module.name}));
    if (run.encoder && options.no_weights) {
        throw InputError(tr("--no-weights applies to mha only: encoder-layer never keeps its attention weights"));
    }
    run.F = run.encoder ? size_option("--d-ff", options.d_ff, module.d_ff) : 0;
    check_heads_divide(run.h, run.D);
    const Repetition repetition = checked_repetition(options.threads, options.repeat, options.warmup,
                                                     static_cast<std::size_t>(machine.physical_cores), 10, 1);
    run.threads = repetition.threads;
    run.weights = !run.encoder && !options.no_weights;
    run.causal = options.causal;
    run.rope = checked_rope(options, run);
    run.repeat = repetition.repeat;
    run.warmup = repetition.warmup;
    return run;
}

// What the computation must hold, in floats, counted in double arithmetic before anything is
// allocated (so no product of the options can wrap). The context overwrites q.
//   mha: x, q, k, v, output (B·T·D each), and the (B, h, T, S) weights when kept
//   encoder-layer: x, q, k, v, the projection, hidden, output, pre-norm's normalized (B·T·D
//   each) and the feed-forward's inner activations (B·T·F)
//   tiled attention: per thread one (64, 512) tile of scores and a (64, d_k) accumulator
struct Footprint {
    double tensor_floats = 0, parameter_floats = 0;
};

Footprint footprint(const BenchRun& run) {
    const double B = double(run.B), T = double(run.T), D = double(run.D), h = double(run.h), F = double(run.F);
    const double BTD = B * T * D;
    const double tiles = run.weights ? 0.0 : double(run.threads) * (64.0 * 512 + 64.0 * (D / h + 3));
    Footprint counted;
    counted.tensor_floats = run.encoder ? BTD * 8 + B * T * F + tiles : BTD * 5 + (run.weights ? B * h * T * T : 0.0) + tiles;
    counted.parameter_floats = run.encoder ? 4.0 * D * D + 2.0 * D * F + 10.0 * D + F : 4.0 * D * D + 4.0 * D;
    return counted;
}

// The limit is attn run's, 8 GiB.
void refuse_over_memory_limit(const std::string& module, const BenchRun& run, const Footprint& counted) {
    const double needed_bytes = 4.0 * (counted.tensor_floats + counted.parameter_floats);
    if (needed_bytes <= 8.0 * 1024 * 1024 * 1024) return;
    const std::string options_given = "--batch " + std::to_string(run.B) + " --seq " + std::to_string(run.T) + " --d-model " +
                                      std::to_string(run.D) + " --heads " + std::to_string(run.h) +
                                      (run.encoder ? " --d-ff " + std::to_string(run.F) : std::string()) +
                                      (run.weights ? "" : " --no-weights");
    const std::string gib = fixed(needed_bytes / (1024.0 * 1024 * 1024), 1);
    throw InputError(run.weights ? trf("bench {1}: {2} would need {3} GiB of memory; the limit is 8 GiB (--no-weights does not "
                                       "hold the (B, h, T, S) weights)",
                                       {module, options_given, gib})
                                 : trf("bench {1}: {2} would need {3} GiB of memory; the limit is 8 GiB", {module, options_given, gib}));
}

Timing time_multi_head_attention(const BenchRun& run, std::mt19937& generator, const fast::Tensor3& x) {
    const fast::AttentionParameters p = random_attention(generator, run.D, run.D);
    fast::AttentionOptions fast_options;
    fast_options.heads = run.h;
    fast_options.need_weights = run.weights;
    fast_options.causal = run.causal;
    if (run.rope) {
        fast_options.rope.emplace();
        fast_options.rope->layout = *run.rope;
    }
    fast::AttentionResult result;
    fast::AttentionWorkspace workspace;
    return time_calls(run.warmup, run.repeat, [&] {
        fast::multi_head_attention_into(x, x, x, p, fast_options, result, workspace);
        return result.work;
    });
}

Timing time_encoder_layer(const BenchRun& run, std::mt19937& generator, const fast::Tensor3& x) {
    const std::size_t D = run.D, F = run.F;
    fast::EncoderLayerParameters p;
    p.attention = random_attention(generator, D, D);
    const float bound1 = 1.0f / std::sqrt(float(D)), bound2 = 1.0f / std::sqrt(float(F));
    p.linear1_weight = random_tensor<2>(generator, {F, D}, -bound1, bound1);
    p.linear1_bias = random_tensor<1>(generator, {F}, -bound1, bound1);
    p.linear2_weight = random_tensor<2>(generator, {D, F}, -bound2, bound2);
    p.linear2_bias = random_tensor<1>(generator, {D}, -bound2, bound2);
    p.norm1_weight = p.norm2_weight = xt::ones<float>({D});
    p.norm1_bias = p.norm2_bias = xt::zeros<float>({D});
    fast::EncoderLayerOptions fast_options;
    fast_options.heads = run.h;
    fast_options.causal = run.causal;
    fast::Tensor3 output;
    fast::EncoderLayerWorkspace workspace;
    return time_calls(run.warmup, run.repeat, [&] {
        fast::transformer_encoder_layer_into(x, p, fast_options, output, workspace);
        return workspace.attention_work;
    });
}

// The numbers reported, from the fastest call.
struct Rates {
    double flop = 0, gflops = 0, attention_gflops = 0;
    double tensor_mb = 0, parameter_mb = 0, rss_mb = 0;
    double sgemm = 0, attention_share = 0;
};

Rates rates_of(const BenchRun& run, const Timing& timing, const Footprint& counted) {
    const fast::AttentionWork& work = timing.work;
    // The encoder layer's feed-forward network: two products of B·T·D·F multiply-adds.
    const double other_flops = run.encoder ? 2.0 * 2.0 * double(run.B) * double(run.T) * double(run.D) * double(run.F) : 0.0;
    Rates rates;
    rates.flop = work.flops() + other_flops;
    rates.gflops = rates.flop / (timing.min_ms * 1e-3) / 1e9;
    rates.attention_gflops = work.attention_seconds > 0 ? work.attention_flops / work.attention_seconds / 1e9 : 0.0;
    rates.tensor_mb = counted.tensor_floats * 4 / (1024.0 * 1024.0);
    rates.parameter_mb = counted.parameter_floats * 4 / (1024.0 * 1024.0);
    rates.rss_mb = peak_rss_mb();
    rates.sgemm = fast::sgemm_gflops();  // after the timed calls: the peak RSS is theirs
    rates.attention_share = rates.sgemm > 0 ? 100.0 * rates.attention_gflops / rates.sgemm : 0.0;
    return rates;
}

void print_json(const std::string& module, const BenchRun& run, const fast::MachineDescription& machine, const Timing& timing,
                const Rates& rates) {
    const fast::AttentionWork& work = timing.work;
    std::cout << "{\"module\": \"" << module << "\", \"shape\": {\"batch\": " << run.B << ", \"seq\": " << run.T
              << ", \"d_model\": " << run.D << ", \"heads\": " << run.h << ", \"d_ff\": " << (run.encoder ? std::to_string(run.F) : "null")
              << "}, \"dtype\": \"float32\", \"need_weights\": " << (run.weights ? "true" : "false")
              << ", \"causal\": " << (run.causal ? "true" : "false") << ", \"rope\": "
              << (run.rope ? std::string("\"") + rope_layout_name(*run.rope) + "\"" : std::string("null")) << ", \"threads\": " << run.threads
              << ", \"repeat\": " << run.repeat << ", \"warmup\": " << run.warmup << ", \"min_ms\": " << fixed(timing.min_ms, 3)
              << ", \"median_ms\": " << fixed(timing.median_ms, 3) << ", \"min_cpu_ms\": " << fixed(timing.min_cpu_ms, 3)
              << ", \"gflop\": " << fixed(rates.flop / 1e9, 4) << ", \"gflops\": " << fixed(rates.gflops, 2)
              << ", \"attention_gflop\": " << fixed(work.attention_flops / 1e9, 4)
              << ", \"attention_ms\": " << fixed(work.attention_seconds * 1e3, 3)
              << ", \"attention_gflops\": " << fixed(rates.attention_gflops, 2)
              << ", \"projection_ms\": " << fixed(work.projection_seconds * 1e3, 3)
              << ", \"output_ms\": " << fixed(work.output_seconds * 1e3, 3)
              << ", \"tiles_computed\": " << work.tiles_computed << ", \"tiles_skipped\": " << work.tiles_skipped
              << ", \"peak_rss_mb\": " << fixed(rates.rss_mb, 1) << ", \"tensor_mb\": " << fixed(rates.tensor_mb, 1)
              << ", \"parameter_mb\": " << fixed(rates.parameter_mb, 1) << ", " << machine_json(machine, rates.sgemm) << "}\n";
}

// The first two lines: what was run, and on what machine.
void print_run_and_machine(const std::string& module, const BenchRun& run, const fast::MachineDescription& machine) {
    std::cout << "attn bench " << module << " · float32 · B " << run.B << ", T " << run.T << ", D " << run.D << ", h " << run.h
              << (run.encoder ? ", F " + std::to_string(run.F) : std::string()) << " · "
              << trn("{1} thread", "{1} threads", run.threads, {std::to_string(run.threads)}) << " · "
              << (run.weights ? tr("weights kept") : tr("tiled")) << (run.causal ? " · " + tr("causal") : "")
              << (run.rope ? " · " + trf("RoPE {1}", {rope_layout_name(*run.rope)}) : std::string()) << " · "
              << trn("{1} timed call", "{1} timed calls", static_cast<unsigned long>(run.repeat), {std::to_string(run.repeat)}) << " "
              << trn("after {1} warm-up call", "after {1} warm-up calls", static_cast<unsigned long>(run.warmup),
                     {std::to_string(run.warmup)})
              << "\n";
    print_machine(machine);
}

void print_text(const std::string& module, const BenchRun& run, const fast::MachineDescription& machine, const Timing& timing,
                const Rates& rates) {
    const fast::AttentionWork& work = timing.work;
    print_run_and_machine(module, run, machine);
    std::cout << "  " << trf("sgemm     {1} GFLOP/s  (this run: 1024³ float32, one product per thread)", {fixed(rates.sgemm, 1)})
              << "\n"
              << "  " << trf("min       {1} ms", {fixed(timing.min_ms, 2)}) << "\n"
              << "  " << trf("median    {1} ms", {fixed(timing.median_ms, 2)}) << "\n"
              << "  "
              << trf("GFLOP/s   {1}  ({2} GFLOP of matrix products in the fastest call)",
                     {fixed(rates.gflops, 1), fixed(rates.flop / 1e9, 3)})
              << "\n  "
              // xgettext:no-c-format
              << trf("attention {1} ms, {2} GFLOP/s = {3} % of sgemm  (scores, softmax, weights·V: {4} GFLOP",
                     {fixed(work.attention_seconds * 1e3, 2), fixed(rates.attention_gflops, 1), fixed(rates.attention_share, 1),
                      fixed(work.attention_flops / 1e9, 3)});
    if (!run.weights) {
        std::cout << "; " << trf("tiles computed {1}, skipped {2}", {std::to_string(work.tiles_computed), std::to_string(work.tiles_skipped)});
    }
    std::cout << ")\n  "
              << trf("peak RSS  {1} MB  (tensors held: {2} MB, parameters: {3} MB)",
                     {fixed(rates.rss_mb, 1), fixed(rates.tensor_mb, 1), fixed(rates.parameter_mb, 1)})
              << "\n";
}

}  // namespace

std::string describe_bench_modules() {
    std::string text = tr("Modules (default shape):") + "\n";
    for (const auto& m : bench_modules()) {
        if (m.name == "decode" || m.name == "train") {
            text += "  " + m.name + "  " + tr(m.summary) + "\n    " +
                    (m.name == "decode" ? describe_bench_decode() : describe_bench_train()) + "\n";
            continue;
        }
        text += "  " + m.name + "  " + tr(m.summary) + "\n    --batch " + std::to_string(m.batch) + " --seq " +
                std::to_string(m.seq) + " --d-model " + std::to_string(m.d_model) + " --heads " +
                std::to_string(m.heads) + (m.d_ff ? " --d-ff " + std::to_string(m.d_ff) : std::string()) + "\n";
        if (m.name == "mha") text += "    " + describe_bench_backward() + "\n";
    }
    return text;
}

int run_bench(const GlobalOptions&, const BenchOptions& options) {
    const BenchModule& module = find_bench_module(options.module);
    if (options.backward && module.name != "mha") throw InputError(trf("--backward applies to mha only, not to {1}", {module.name}));
    if (module.name == "decode") return run_bench_decode(options);
    if (module.name == "train") return run_bench_train(options);
    for (const auto& [flag, given] : {std::pair<const char*, bool>{"--layers", options.layers.has_value()},
                                      {"--kv-heads", options.kv_heads.has_value()}, {"--memory", options.memory.has_value()},
                                      {"--tokens", options.tokens.has_value()}}) {
        if (given) throw InputError(trf("{1} applies to decode only, not to {2}", {flag, module.name}));
    }
    if (options.backward) return run_bench_backward(options);
    const fast::MachineDescription machine = fast::describe_machine();
    const BenchRun run = checked_run(options, module, machine);
    const Footprint counted = footprint(run);
    refuse_over_memory_limit(module.name, run, counted);
    fast::set_threads(static_cast<int>(run.threads));

    std::mt19937 generator(0);
    const fast::Tensor3 x = random_tensor<3>(generator, {run.B, run.T, run.D}, 0.0f, 1.0f);  // torch.rand, as seed 000
    const Timing timing = run.encoder ? time_encoder_layer(run, generator, x) : time_multi_head_attention(run, generator, x);
    const Rates rates = rates_of(run, timing, counted);
    if (options.json) {
        print_json(module.name, run, machine, timing, rates);
    } else {
        print_text(module.name, run, machine, timing, rates);
    }
    return exit_success;
}

}  // namespace attn::cli
