// `attn bench train`: times one training step of the copy-task model on the float32 path
// (attn/fast/seq2seq_training.hpp) — the forward, the loss, the backward with its gradients
// zeroed first, and the Adam update — at the Annotated Transformer's size by default (V 11,
// D 512, h 8, 2 + 2 layers, F 2048, batch 80 of sequences of 10), on the copy task's seeded batches.
//
// What is timed is what PyTorch's training loop does per batch: optimizer.zero_grad(); the model;
// the loss; loss.backward(); optimizer.step(); scheduler.step(). bench/compare_pytorch.py
// --cases train-step runs it with --json next to PyTorch's nn.Transformer doing the same
// (docs/performance.md). The median of the timed steps is the number compared (the steps are
// long enough for the median to be stable); the minimum is printed too.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>
#include <vector>

#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "attn/fast/seq2seq_training.hpp"
#include "cli/bench_support.hpp"
#include "cli/commands.hpp"
#include "tutor/language.hpp"
#include "tutor/train/copy_task.hpp"
#include "tutor/train/copy_training.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;
using tutor::trn;

namespace {

constexpr std::size_t vocabulary = 11;  // the copy task's

struct TrainRun {
    std::size_t B = 0, L = 0, D = 0, h = 0, F = 0, N = 0;
    std::size_t threads = 0, repeat = 0, warmup = 0;
};

TrainRun checked_train_run(const BenchOptions& options, const fast::MachineDescription& machine) {
    for (const auto& [flag, given] :
         {std::pair<const char*, bool>{"--no-weights", options.no_weights}, {"--backward", options.backward},
          {"--causal", options.causal}, {"--rope", !options.rope.empty()}, {"--kv-heads", options.kv_heads.has_value()},
          {"--memory", options.memory.has_value()}, {"--tokens", options.tokens.has_value()}}) {
        if (given) throw InputError(trf("{1} does not apply to bench train", {flag}));
    }
    TrainRun run;
    run.B = size_option("--batch", options.batch, 80);
    run.L = size_option("--seq", options.seq, 10);
    run.D = size_option("--d-model", options.d_model, 512);
    run.h = size_option("--heads", options.heads, 8);
    run.F = size_option("--d-ff", options.d_ff, 2048);
    run.N = size_option("--layers", options.layers, 2);
    check_heads_divide(run.h, run.D);
    if (run.L < 2) throw InputError(trf("{1} must be at least {2} (got {3})", {"--seq", "2", std::to_string(run.L)}));
    const Repetition repetition = checked_repetition(options.threads, options.repeat, options.warmup,
                                                     static_cast<std::size_t>(machine.physical_cores), 5, 2);
    // The parameters four times (values, gradients, Adam's moments) plus the attentions' copies, and
    // per layer about 40 (B, L, D) and 2 (B, L, F) float32 tensors, in double arithmetic (no wrap).
    const double D = double(run.D), F = double(run.F), N = double(run.N), tokens = double(run.B) * double(run.L);
    const double parameters = 3 * double(vocabulary) * D + N * (12 * D * D + 4 * D * F);
    const double gib = 4.0 * (6 * parameters + 2 * N * tokens * (40 * D + 2 * F)) / (1024.0 * 1024 * 1024);
    if (gib > 8.0) {
        throw InputError(trf("bench train: --batch {1} --seq {2} --d-model {3} --d-ff {4} --layers {5} would need {6} GiB "
                             "of memory; the limit is 8 GiB",
                             {std::to_string(run.B), std::to_string(run.L), std::to_string(run.D), std::to_string(run.F),
                              std::to_string(run.N), fixed(gib, 1)}));
    }
    run.threads = repetition.threads;
    run.repeat = repetition.repeat;
    run.warmup = repetition.warmup;
    return run;
}

struct TrainTimes {
    double min_ms = 0, median_ms = 0, min_cpu_ms = 0;
    std::size_t parameters = 0;
};

TrainTimes time_train_steps(const TrainRun& run) {
    std::mt19937 generator(0);
    const Seq2SeqSizes sizes{vocabulary, run.D, run.N, run.N, run.F};
    fast::Seq2SeqTrainingOptions options;  // the Annotated Transformer's: warm-up 400, factor 0.5, ε 0
    options.heads = run.h;
    options.warmup = 400;
    options.lr_factor = 0.5;
    fast::Seq2SeqTrainer trainer(tutor::initial_copy_weights(sizes, generator), options);
    std::vector<double> wall, cpu;
    for (std::size_t i = 0; i < run.warmup + run.repeat; ++i) {
        const tutor::CopyBatch batch = tutor::copy_batch(generator, run.B, run.L, vocabulary);
        const tutor::TeacherForcing split = tutor::teacher_forcing(batch.tgt);
        const double cpu_start = process_cpu_ms();
        const auto start = std::chrono::steady_clock::now();
        trainer.train_step(batch.src, split.decoder_input, split.targets);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (i < run.warmup) continue;
        wall.push_back(ms);
        cpu.push_back(process_cpu_ms() - cpu_start);
    }
    std::sort(wall.begin(), wall.end());
    const std::size_t n = wall.size();
    return {wall.front(), n % 2 ? wall[n / 2] : (wall[n / 2 - 1] + wall[n / 2]) / 2,
            *std::min_element(cpu.begin(), cpu.end()), trainer.parameter_count()};
}

void print_train_json(const TrainRun& run, const fast::MachineDescription& machine, const TrainTimes& times,
                      double rss_mb, double sgemm) {
    std::cout << "{\"module\": \"train\", \"shape\": {\"batch\": " << run.B << ", \"seq\": " << run.L
              << ", \"d_model\": " << run.D << ", \"heads\": " << run.h << ", \"d_ff\": " << run.F
              << ", \"layers\": " << run.N << ", \"vocabulary\": " << vocabulary
              << "}, \"dtype\": \"float32\", \"parameters\": " << times.parameters << ", \"threads\": " << run.threads
              << ", \"repeat\": " << run.repeat << ", \"warmup\": " << run.warmup
              << ", \"min_ms\": " << fixed(times.min_ms, 3) << ", \"median_ms\": " << fixed(times.median_ms, 3)
              << ", \"min_cpu_ms\": " << fixed(times.min_cpu_ms, 3) << ", \"peak_rss_mb\": " << fixed(rss_mb, 1) << ", "
              << machine_json(machine, sgemm) << "}\n";
}

void print_train_text(const TrainRun& run, const fast::MachineDescription& machine, const TrainTimes& times,
                      double rss_mb, double sgemm) {
    std::cout << "attn bench train · float32 · V " << vocabulary << ", D " << run.D << ", h " << run.h << ", "
              << run.N << " + " << run.N << " layers, F " << run.F << " · B " << run.B << ", L " << run.L << " · "
              << trn("{1} thread", "{1} threads", run.threads, {std::to_string(run.threads)}) << " · "
              << trn("{1} timed step", "{1} timed steps", static_cast<unsigned long>(run.repeat), {std::to_string(run.repeat)})
              << " " << trn("after {1} warm-up step", "after {1} warm-up steps", static_cast<unsigned long>(run.warmup),
                            {std::to_string(run.warmup)})
              << "\n";
    print_machine(machine);
    std::cout << "  " << trf("sgemm     {1} GFLOP/s  (this run: 1024³ float32, one product per thread)", {fixed(sgemm, 1)}) << "\n"
              << "  " << trf("step      median {1} ms, min {2} ms  (forward, loss, backward, Adam; {3} parameters)",
                             {fixed(times.median_ms, 2), fixed(times.min_ms, 2), std::to_string(times.parameters)}) << "\n"
              << "  " << trf("peak RSS  {1} MB", {fixed(rss_mb, 1)}) << "\n";
}

}  // namespace

std::string describe_bench_train() {
    return tr("one training step of the copy-task model on the float32 path: forward, loss, backward, Adam")
           + "\n    --batch 80 --seq 10 --d-model 512 --heads 8 --d-ff 2048 --layers 2 (--repeat 5 --warmup 2)";
}

int run_bench_train(const BenchOptions& options) {
    const fast::MachineDescription machine = fast::describe_machine();
    const TrainRun run = checked_train_run(options, machine);
    fast::set_threads(static_cast<int>(run.threads));
    const TrainTimes times = time_train_steps(run);
    const double rss_mb = peak_rss_mb();
    const double sgemm = fast::sgemm_gflops();  // after the timed steps: the peak RSS is theirs
    if (options.json) {
        print_train_json(run, machine, times, rss_mb, sgemm);
    } else {
        print_train_text(run, machine, times, rss_mb, sgemm);
    }
    return exit_success;
}

}  // namespace attn::cli
