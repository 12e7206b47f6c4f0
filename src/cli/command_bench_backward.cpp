// `attn bench mha --backward`: times one training step of multi-head self-attention on the fast
// path (attn/fast/multi_head_attention_backward.hpp): the forward that keeps what the backward
// needs, then the backward, on seeded random x and grad_output, and reports the time of the pair,
// each half's, GFLOP/s and peak resident memory.
//
// What is timed is what PyTorch's `out = mha(x, x, x, need_weights=False)[0]; out.backward(g)`
// computes, x.grad included: in self-attention x's gradient is the sum of the query's, key's and
// value's, so the sum is made inside the timed step. GFLOP/s = the matrix products' FLOPs
// (forward: projections, Q Kᵀ, P V, output projection; backward: the recomputed Q Kᵀ and the four
// products of the heads, and two products per projection) over the *minimum* time of a step, the
// measurement least disturbed on a shared machine. bench/compare_pytorch.py runs it with --json
// next to PyTorch's backward (docs/performance.md).
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

struct BackwardRun {
    std::size_t B = 0, T = 0, D = 0, h = 0;
    bool causal = false;
    std::size_t threads = 0, repeat = 0, warmup = 0;
};

BackwardRun checked_backward_run(const BenchOptions& options, const fast::MachineDescription& machine) {
    for (const auto& [flag, given] : {std::pair<const char*, bool>{"--no-weights", options.no_weights},
                                      {"--rope", !options.rope.empty()}, {"--d-ff", options.d_ff.has_value()}}) {
        if (given) throw InputError(trf("{1} does not apply to mha --backward (its forward is always tiled, without RoPE)", {flag}));
    }
    BackwardRun run;
    run.B = size_option("--batch", options.batch, 4);
    run.T = size_option("--seq", options.seq, 1024);
    run.D = size_option("--d-model", options.d_model, 512);
    run.h = size_option("--heads", options.heads, 8);
    check_heads_divide(run.h, run.D);
    const Repetition repetition = checked_repetition(options.threads, options.repeat, options.warmup,
                                                     static_cast<std::size_t>(machine.physical_cores), 5, 1);
    // x, grad_output, the forward's five (B, T, D) tensors, the backward's seven at their peak and x's gradient.
    const double gib = 15.0 * 4.0 * double(run.B) * double(run.T) * double(run.D) / (1024.0 * 1024 * 1024);
    if (gib > 8.0) {
        throw InputError(trf("bench mha --backward: --batch {1} --seq {2} --d-model {3} would need {4} GiB of memory; the limit is 8 GiB",
                             {std::to_string(run.B), std::to_string(run.T), std::to_string(run.D), fixed(gib, 1)}));
    }
    run.causal = options.causal;
    run.threads = repetition.threads;
    run.repeat = repetition.repeat;
    run.warmup = repetition.warmup;
    return run;
}

// One timed step: its wall times and what each half computed.
struct Step {
    double total_ms = 0, forward_ms = 0, backward_ms = 0, cpu_ms = 0;
    fast::AttentionWork forward, backward;
};

struct StepTimes {
    Step fastest;
    double median_ms = 0, least_cpu_ms = 0;
};

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

StepTimes time_steps(const BackwardRun& run, std::mt19937& generator) {
    const fast::Tensor3 x = random_tensor<3>(generator, {run.B, run.T, run.D}, 0.0f, 1.0f);  // torch.rand
    const fast::Tensor3 grad_output = random_tensor<3>(generator, {run.B, run.T, run.D}, 0.0f, 1.0f);
    const fast::AttentionParameters p = random_attention(generator, run.D, run.D);
    fast::AttentionOptions options(run.h);
    options.causal = run.causal;
    auto step = [&] {
        Step s;
        const double cpu = process_cpu_ms();
        const auto start = std::chrono::steady_clock::now();
        const fast::AttentionTrainingResult forward = fast::multi_head_attention_for_training(x, x, x, p, options);
        s.forward_ms = ms_since(start);
        const auto middle = std::chrono::steady_clock::now();
        fast::AttentionGradients grad = fast::multi_head_attention_backward(x, x, x, p, options, forward, grad_output);
        grad.query += grad.key;  // x's gradient, as autograd accumulates it
        grad.query += grad.value;
        s.backward_ms = ms_since(middle);
        s.total_ms = ms_since(start);
        s.cpu_ms = process_cpu_ms() - cpu;
        s.forward = forward.work;
        s.backward = grad.work;
        return s;
    };
    for (std::size_t i = 0; i < run.warmup; ++i) step();
    std::vector<Step> steps;
    for (std::size_t i = 0; i < run.repeat; ++i) steps.push_back(step());
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.total_ms < b.total_ms; });
    const std::size_t n = steps.size();
    StepTimes times{steps.front(), n % 2 ? steps[n / 2].total_ms : (steps[n / 2 - 1].total_ms + steps[n / 2].total_ms) / 2,
                    steps.front().cpu_ms};
    for (const Step& s : steps) times.least_cpu_ms = std::min(times.least_cpu_ms, s.cpu_ms);
    return times;
}

void print_backward_json(const BackwardRun& run, const fast::MachineDescription& machine, const StepTimes& times,
                         double rss_mb, double sgemm) {
    const Step& s = times.fastest;
    const double flop = s.forward.flops() + s.backward.flops();
    std::cout << "{\"module\": \"mha-backward\", \"shape\": {\"batch\": " << run.B << ", \"seq\": " << run.T
              << ", \"d_model\": " << run.D << ", \"heads\": " << run.h << "}, \"dtype\": \"float32\", \"causal\": "
              << (run.causal ? "true" : "false") << ", \"threads\": " << run.threads << ", \"repeat\": " << run.repeat
              << ", \"warmup\": " << run.warmup << ", \"min_ms\": " << fixed(s.total_ms, 3)
              << ", \"median_ms\": " << fixed(times.median_ms, 3) << ", \"min_cpu_ms\": " << fixed(times.least_cpu_ms, 3)
              << ", \"forward_ms\": " << fixed(s.forward_ms, 3) << ", \"backward_ms\": " << fixed(s.backward_ms, 3)
              << ", \"forward_gflop\": " << fixed(s.forward.flops() / 1e9, 4)
              << ", \"backward_gflop\": " << fixed(s.backward.flops() / 1e9, 4) << ", \"gflop\": " << fixed(flop / 1e9, 4)
              << ", \"gflops\": " << fixed(flop / (s.total_ms * 1e-3) / 1e9, 2)
              << ", \"forward_projection_ms\": " << fixed(s.forward.projection_seconds * 1e3, 3)
              << ", \"forward_attention_ms\": " << fixed(s.forward.attention_seconds * 1e3, 3)
              << ", \"forward_output_ms\": " << fixed(s.forward.output_seconds * 1e3, 3)
              << ", \"backward_output_ms\": " << fixed(s.backward.output_seconds * 1e3, 3)
              << ", \"backward_attention_ms\": " << fixed(s.backward.attention_seconds * 1e3, 3)
              << ", \"backward_projection_ms\": " << fixed(s.backward.projection_seconds * 1e3, 3)
              << ", \"tiles_computed\": " << s.backward.tiles_computed << ", \"tiles_skipped\": " << s.backward.tiles_skipped
              << ", \"peak_rss_mb\": " << fixed(rss_mb, 1) << ", " << machine_json(machine, sgemm) << "}\n";
}

void print_backward_text(const BackwardRun& run, const fast::MachineDescription& machine, const StepTimes& times,
                         double rss_mb, double sgemm) {
    const Step& s = times.fastest;
    const double flop = s.forward.flops() + s.backward.flops();
    std::cout << "attn bench mha --backward · float32 · B " << run.B << ", T " << run.T << ", D " << run.D << ", h " << run.h
              << " · " << trn("{1} thread", "{1} threads", run.threads, {std::to_string(run.threads)})
              << (run.causal ? " · " + tr("causal") : "") << " · "
              << trn("{1} timed step", "{1} timed steps", static_cast<unsigned long>(run.repeat), {std::to_string(run.repeat)})
              << " " << trn("after {1} warm-up step", "after {1} warm-up steps", static_cast<unsigned long>(run.warmup),
                            {std::to_string(run.warmup)})
              << "\n";
    print_machine(machine);
    std::cout << "  " << trf("sgemm     {1} GFLOP/s  (this run: 1024³ float32, one product per thread)", {fixed(sgemm, 1)}) << "\n"
              << "  " << trf("min       {1} ms  (forward for training {2} ms + backward {3} ms)",
                             {fixed(s.total_ms, 2), fixed(s.forward_ms, 2), fixed(s.backward_ms, 2)}) << "\n"
              << "  " << trf("median    {1} ms", {fixed(times.median_ms, 2)}) << "\n"
              << "  " << trf("GFLOP/s   {1}  ({2} GFLOP of matrix products: forward {3}, backward {4})",
                             {fixed(flop / (s.total_ms * 1e-3) / 1e9, 1), fixed(flop / 1e9, 3),
                              fixed(s.forward.flops() / 1e9, 3), fixed(s.backward.flops() / 1e9, 3)}) << "\n"
              << "  " << trf("backward  output projection {1} ms · attention {2} ms ({3} GFLOP/s) · Q, K, V projections {4} ms",
                             {fixed(s.backward.output_seconds * 1e3, 2), fixed(s.backward.attention_seconds * 1e3, 2),
                              fixed(s.backward.attention_flops / s.backward.attention_seconds / 1e9, 1),
                              fixed(s.backward.projection_seconds * 1e3, 2)}) << "\n"
              << "  " << trf("peak RSS  {1} MB", {fixed(rss_mb, 1)}) << "\n";
}

}  // namespace

std::string describe_bench_backward() {
    return tr("--backward: mha's forward for training and its backward, x's gradient included (default shape "
              "--batch 4 --seq 1024 --d-model 512 --heads 8; --repeat 5)");
}

int run_bench_backward(const BenchOptions& options) {
    const fast::MachineDescription machine = fast::describe_machine();
    const BackwardRun run = checked_backward_run(options, machine);
    fast::set_threads(static_cast<int>(run.threads));
    std::mt19937 generator(0);
    const StepTimes times = time_steps(run, generator);
    const double rss_mb = peak_rss_mb();
    const double sgemm = fast::sgemm_gflops();  // after the timed steps: the peak RSS is theirs
    if (options.json) {
        print_backward_json(run, machine, times, rss_mb, sgemm);
    } else {
        print_backward_text(run, machine, times, rss_mb, sgemm);
    }
    return exit_success;
}

}  // namespace attn::cli
