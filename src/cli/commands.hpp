// cli/commands.hpp — the tutor's commands: per command an options struct and a run function.
//
// The CLI11 set-up of each command lives in command_setup.cpp (cli/command_setup.hpp), and main.cpp
// wires each set-up to its run function from one table; the run functions here know nothing of
// the parser. Each returns the exit code:
//   0 success · 1 a check failed · 2 bad input (the message says what and where)
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tutor/compute/compute_options.hpp"

namespace attn::tutor {
struct LessonInfo;
}

namespace attn::cli {

/// Exit codes, as documented in the README.
enum ExitCode { exit_success = 0, exit_check_failed = 1, exit_bad_input = 2, exit_internal_error = 3 };

struct GlobalOptions {
    std::string lessons_dir;  // empty: $ATTN_LESSONS_DIR, else the source tree's lessons/
    std::string language;     // --lang en|es; empty: ATTN_LANG, then the locale (tutor/language.hpp)
};

/// The language of the help, the option descriptions and the usage errors, set before the parser
/// exists (so before --lang is parsed): --lang's value in argv when the tutor speaks it, else
/// ATTN_LANG, else the locale — each skipped when it names an unknown language, whose error
/// apply_language() reports after parsing, in the language chosen here.
void speak_before_parsing(int argc, char** argv);

/// Chooses the language of every command (--lang, ATTN_LANG, the locale) and sets it for the
/// process; InputError for an unknown one; a one-line note on stderr when its catalogue is missing.
void apply_language(const GlobalOptions& global);

/// The lesson as its edition in the chosen language has it (README.es.md) when that exists, else
/// the English one, with a one-line note on stderr saying so.
tutor::LessonInfo lesson_in_language(const tutor::LessonInfo& lesson);

struct ListOptions {};
int run_list(const GlobalOptions& global, const ListOptions& options);

struct LessonOptions {
    std::string lesson;  // number or slug
    bool no_pause = false;                     // --no-pause: one continuous text, as for a pipe
    bool screens = false;                      // --screens: print the pager's screens, separated by form feeds
    std::optional<int> step;                   // --step N: start at step N
    std::optional<std::size_t> width, height;  // --width, --height: the screen's size in columns and rows
    std::optional<bool> light;                 // --light (true) or --dark (false); else detected
    std::string show = "heatmap";              // --show heatmap|tensor|both, for blocks marked heatmap
    bool all_inputs = false;                   // --all-inputs: inputs seen before shown whole too
};
int run_lesson(const GlobalOptions& global, const LessonOptions& options);

struct CheckOptions {
    std::vector<std::string> lessons;  // numbers or slugs; empty: all
    std::optional<std::size_t> width;  // --width: columns every line must fit in
    std::optional<bool> light;         // --light (true) or --dark (false); else detected
};
int run_check(const GlobalOptions& global, const CheckOptions& options);

/// `attn compute`'s options are the compute layer's own struct, filled by CLI11 directly.
using ComputeOptions = tutor::ComputeOptions;
int run_compute(const GlobalOptions& global, const ComputeOptions& options);

/// `attn run mha`: a seed's example at its full size on seeded random inputs (command_run.cpp).
struct RunOptions {
    std::string example;        // mha: seed 000's multi-head attention
    std::size_t batch = 8;      // B
    std::size_t seq = 300;      // T = S
    std::size_t d_model = 768;  // D
    std::size_t heads = 8;      // h; must divide D
    unsigned seed = 0;          // std::mt19937's seed for the inputs and weights
};
int run_seed_example(const GlobalOptions& global, const RunOptions& options);

/// `attn train copy`: the Annotated Transformer's copy task trained with the library (command_train.cpp).
struct TrainOptions {
    std::string task;                 // copy
    std::size_t d_model = 32;         // D
    std::size_t heads = 4;            // h; must divide D
    std::size_t layers = 2;           // N, in the encoder and in the decoder
    std::size_t d_ff = 64;            // F
    std::size_t batch = 32;           // B, sequences per step
    std::size_t steps = 20;           // training steps (batches) per epoch
    std::size_t epochs = 15;
    std::size_t warmup = 100;         // the learning rate's warm-up steps
    double lr_factor = 0.5;           // the learning rate's factor (the Annotated Transformer's Adam lr, 0.5)
    double label_smoothing = 0.1;     // ε of the loss
    double dropout = 0.0;             // p in training, 0 ≤ p < 1; the masks from std::mt19937(seed + 2)
    unsigned seed = 0;                // std::mt19937's seed: weights and batches, and the evaluation's sequences
    std::string init;                 // --init model.npz: the initial weights (a state_dict); empty: drawn from the seed
    std::string data;                 // --data batches.npz: src and tgt (steps, B, L); empty: drawn from the seed
    std::string log;                  // --log FILE.json: each step's loss and learning rate, written after the run
    std::string save;                 // --save FILE.npz: the trained model (state_dict names, attn_config), after the run
    bool no_heatmaps = false;         // --no-heatmaps: no cross-attention pictures before and after training
    std::optional<std::size_t> heatmap_head;  // --heatmap-head: one head's weights; empty: the heads' mean
    std::string size = "class";       // class | annotated: the Annotated Transformer's own run (apply_train_size)
    std::string precision;            // float32 | float64; empty: float32 with --size annotated, float64 otherwise
    std::size_t threads = 0;          // the fast path's worker pool, or OpenBLAS's on the double path; 0: the default
};
int run_train(const GlobalOptions& global, const TrainOptions& options);
/// --size annotated: every setting of the Annotated Transformer's copy run that the command line
/// did not give (`given("--d-model")` true when it did) takes that run's value. Never throws.
void apply_train_size(TrainOptions& options, const std::function<bool(const std::string&)>& given);

struct ExerciseOptions {
    std::string exercise;      // number or slug
    bool watch = false;
    bool reset = false;
    bool hint = false;         // show the next hint and stop
    std::string file;          // check this file instead of lessons/NN-slug/exercise/exercise.cpp
    double time_limit = 5.0;   // seconds per case for the student's program
    bool verbose = false;      // every case in full, not only the first failing one
};
int run_exercise(const GlobalOptions& global, const ExerciseOptions& options);

struct ProgressOptions {};
int run_progress(const GlobalOptions& global, const ProgressOptions& options);

struct BenchOptions {
    std::string module;                                   // mha | encoder-layer | decode | train
    std::optional<long long> batch, seq, d_model, heads;  // absent: the module's default shape
    std::optional<long long> d_ff;                        // encoder-layer and decode
    std::optional<long long> layers, kv_heads, memory, tokens;  // decode only
    std::optional<long long> threads;                     // absent: every core
    std::optional<long long> repeat;                      // timed calls after the warm-up calls (decode: generations)
    std::optional<long long> warmup;                      // untimed calls first (sizing the buffers)
    bool no_weights = false;                              // mha: need_weights = false, the tiled path
    bool backward = false;                                // mha: the forward for training and the backward
    bool causal = false;                                  // the causal mask (top-left)
    std::string rope;                                     // mha: --rope halves|pairs, RoPE on Q and K; empty: none
    bool json = false;
};
int run_bench(const GlobalOptions& global, const BenchOptions& options);
/// `attn bench decode` (command_bench_decode.cpp), called by run_bench.
int run_bench_decode(const BenchOptions& options);
/// The decode module's line of `attn bench --help`.
std::string describe_bench_decode();
/// `attn bench mha --backward` (command_bench_backward.cpp), called by run_bench.
int run_bench_backward(const BenchOptions& options);
/// The --backward line of `attn bench --help`.
std::string describe_bench_backward();
/// `attn bench train` (command_bench_train.cpp), called by run_bench, and its lines of `attn bench --help`.
int run_bench_train(const BenchOptions& options);
std::string describe_bench_train();

/// The text that `attn bench --help` adds after the options: the modules and their default shapes.
std::string describe_bench_modules();

/// The text that `attn compute --help` adds after the options: every module and its tensors.
std::string describe_compute_modules();

/// Where `attn heatmap` and `attn view` get their weights (command_view.cpp): a sentence, run
/// through untrained multi-head self-attention, or a .npy file with optional token files.
struct AttentionSourceOptions {
    std::optional<std::string> sentence;  // --sentence: words split at whitespace (given but empty: an error)
    std::string weights;                  // --weights FILE.npy: (T, S), (B, T, S) or (B, h, T, S)
    std::string tokens;                   // --tokens FILE: one per line; the queries' (and keys' when T = S)
    std::string key_tokens;               // --key-tokens FILE: the keys' tokens when T != S
    std::size_t heads = 8;                // --heads h (sentence); must divide d_model
    std::size_t d_model = 64;             // --d-model D (sentence)
    unsigned long long seed = 0;          // --seed for W_q, W_k, W_v (sentence)
    std::string checkpoint;               // --checkpoint model.npz: a model of attn train copy
    std::string sequence;                 // --sequence "1 2 3 …": the ids it decodes (with --checkpoint)
};

struct HeatmapOptions {
    AttentionSourceOptions source;
};
int run_heatmap(const GlobalOptions& global, const HeatmapOptions& options);

struct ViewOptions {
    AttentionSourceOptions source;
    std::string html;      // --html FILE: the self-contained page
    std::string svg;       // --svg FILE: one head's heatmap
    std::size_t item = 0;  // --item: which sequence of a batch
    std::size_t head = 0;  // --head: the head the page shows first, and the one the SVG draws
};
int run_view(const GlobalOptions& global, const ViewOptions& options);

}  // namespace attn::cli
