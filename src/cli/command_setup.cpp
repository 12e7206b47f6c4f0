// cli/command_setup.cpp — each command's CLI11 set-up: its arguments, options, checks and help.
//
// Why its own file: main.cpp only wires the commands from one table (command_setup.hpp); the
// options of every command, and the checks that refuse a bad value before any command runs, are
// here. It and main.cpp are the only files that compile CLI11's header, which is slow.
#include "cli/command_setup.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "attn/printable.hpp"
#include "tutor/language.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;

namespace {

// A size, a count, an index or a seed: a whole number written in digits only, from `min` to `max`.
// No sign, fraction or exponent gets through, so nothing wraps: CLI11 converts with strtoull,
// which reads "-1" as 18446744073709551615. (CLI::PositiveNumber's message quotes a range up to
// 1.8e308, which helps nobody.)
CLI::Validator whole_number(unsigned long long min, unsigned long long max = ULLONG_MAX) {
    return CLI::Validator(
        [min, max](std::string& input) -> std::string {
            if (!input.empty() && input.size() <= 20 && input.find_first_not_of("0123456789") == std::string::npos) {
                errno = 0;
                const unsigned long long value = std::strtoull(input.c_str(), nullptr, 10);
                if (errno == 0 && value >= min && value <= max) return {};
            }
            if (max == ULLONG_MAX || max == SIZE_MAX) {
                return trf("must be a whole number of at least {1}, not '{2}'", {std::to_string(min), printable_text(input)});
            }
            return trf("must be a whole number from {1} to {2}, not '{3}'",
                       {std::to_string(min), std::to_string(max), printable_text(input)});
        },
        min == 0 ? "N>=0" : "N>=" + std::to_string(min));
}

const CLI::Validator at_least_one = whole_number(1, SIZE_MAX);

// A real number, finite, checked by `accept`, with `refusal` (input → message) otherwise. CLI::Range
// lets NaN through (every comparison with NaN is false) and reads "inf" as infinity; here both
// are refused with the value as it was typed.
CLI::Validator finite_number_where(bool (*accept)(double, double, double), double min, double max,
                                   std::string (*refusal)(double, double, const std::string&)) {
    return CLI::Validator(
        [=](std::string& input) -> std::string {
            char* end = nullptr;
            errno = 0;
            const double value = input.empty() ? 0.0 : std::strtod(input.c_str(), &end);
            const bool whole = !input.empty() && end == input.c_str() + input.size() && errno == 0;
            if (whole && std::isfinite(value) && accept(value, min, max)) return {};
            return refusal(min, max, printable_text(input));
        },
        "");
}

std::string number_text(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

// A finite number from `min` to `max`: --time-limit.
CLI::Validator finite_number(double min, double max) {
    return finite_number_where([](double value, double low, double high) { return value >= low && value <= high; }, min, max,
                               [](double low, double high, const std::string& input) {
                                   return trf("must be a finite number from {1} to {2}, not '{3}'",
                                              {number_text(low), number_text(high), input});
                               });
}

// A probability p with 0 ≤ p < 1: a dropout's (p = 1 would drop everything).
const CLI::Validator probability_below_one = finite_number_where(
    [](double value, double, double) { return value >= 0.0 && value < 1.0; }, 0.0, 1.0,
    [](double, double, const std::string& input) { return trf("must be a number p with 0 ≤ p < 1, not '{1}'", {input}); });

// A finite number greater than 0: an eps.
const CLI::Validator positive_finite = finite_number_where(
    [](double value, double, double) { return value > 0.0; }, 0.0, 0.0,
    [](double, double, const std::string& input) { return trf("must be a finite number greater than 0, not '{1}'", {input}); });

// A screen size: a whole number in [low, 1000].
CLI::Validator screen_size(long long low) {
    return CLI::Validator(
        [low](std::string& input) -> std::string {
            std::size_t used = 0;
            try {
                const long long value = std::stoll(input, &used);
                if (used == input.size() && value >= low && value <= 1000) return {};
            } catch (const std::exception&) {
            }
            return trf("must be a whole number from {1} to {2}, not '{3}'",
                       {std::to_string(low), "1000", printable_text(input)});
        },
        "N in [" + std::to_string(low) + ", 1000]");
}

// --light and --dark: the palette for the terminal's background (otherwise detected).
void add_background_flags(CLI::App* command, std::optional<bool>& light) {
    auto* light_flag = command->add_flag_callback("--light", [&light]() { light = true; },
                                                  tr("Colours for a light background (black on white); default: detected from "
                                                  "COLORFGBG or by asking the terminal, else dark"));
    auto* dark_flag = command->add_flag_callback("--dark", [&light]() { light = false; }, tr("Colours for a dark background"));
    light_flag->excludes(dark_flag);
}

// The options `attn heatmap` and `attn view` share: where the weights come from.
void add_attention_source(CLI::App* command, AttentionSourceOptions& options) {
    // A function option, so that --sentence "" is told apart from no --sentence (and refused).
    auto* sentence = command->add_option_function<std::string>(
        "--sentence", [&options](const std::string& text) { options.sentence = text; },
        tr("Words to run through untrained multi-head self-attention (split at spaces)"));
    auto* weights = command->add_option("--weights", options.weights,
                                        tr("A .npy file of attention weights: (T, S), (B, T, S) or (B, h, T, S), as "
                                        "'attn compute mha' writes them; rows must sum to 1"));
    sentence->excludes(weights);
    command->add_option("--tokens", options.tokens, tr("With --weights: a text file, one token per line (the queries'; also the keys' when T = S)"))
        ->needs(weights);
    command->add_option("--key-tokens", options.key_tokens, tr("With --weights and T != S: the keys' tokens, one per line"))
        ->needs(weights);
    auto* checkpoint = command->add_option(
        "--checkpoint", options.checkpoint,
        tr("A model saved by 'attn train copy --save': draw its decoder's cross-attention while it decodes --sequence"));
    auto* sequence = command->add_option("--sequence", options.sequence,
                                         tr("With --checkpoint: the symbol ids to decode, e.g. \"1 2 3 4 5 6 7 8 9 10\""));
    checkpoint->needs(sequence);
    sequence->needs(checkpoint);
    checkpoint->excludes(sentence);
    checkpoint->excludes(weights);
    for (auto* model_option :
         {command->add_option("--heads", options.heads, tr("With --sentence: h, the number of heads; must divide D"))
              ->check(at_least_one)
              ->capture_default_str(),
          command->add_option("--d-model", options.d_model, tr("With --sentence: D, the embedding width"))
              ->check(at_least_one)
              ->capture_default_str(),
          command->add_option("--seed", options.seed, tr("With --sentence: the seed of W_q, W_k and W_v"))
              ->check(whole_number(0))
              ->capture_default_str()}) {
        model_option->excludes(weights);
        model_option->excludes(checkpoint);
    }
}

}  // namespace

CLI::App* setup_list(CLI::App& app, ListOptions&) {
    return app.add_subcommand("list", tr("List the lessons, numbered, with their titles"));
}

CLI::App* setup_lesson(CLI::App& app, LessonOptions& options) {
    auto* command = app.add_subcommand("lesson", tr("Walk through a lesson: prose, every intermediate tensor, and a check of each"));
    command->add_option("lesson", options.lesson, tr("Lesson number or slug, e.g. 1 or dot-product"))->required();
    command->add_flag("--no-pause", options.no_pause,
                      tr("One continuous text without pauses (always so when the output is not a terminal)"));
    command->add_option_function<int>(
               "--step", [&options](const int& value) { options.step = value; }, tr("Start at step N (0 is the introduction)"))
        ->check(CLI::Range(0, 9999));
    command->add_option_function<std::size_t>(
               "--width", [&options](const std::size_t& value) { options.width = value; },
               tr("Columns every line must fit in (default: the terminal's, at most 100; off a terminal $COLUMNS, else 80)"))
        ->check(screen_size(40));
    command->add_option_function<std::size_t>(
               "--height", [&options](const std::size_t& value) { options.height = value; },
               tr("Rows of one screen (default: the terminal's; off a terminal $LINES, else 24)"))
        ->check(screen_size(10));
    add_background_flags(command, options.light);
    command->add_option("--show", options.show,
                        tr("For tensors drawn as heat maps: heatmap (the shaded grid, with its values), tensor (PyTorch's print) or both"))
        ->check(CLI::IsMember({"heatmap", "tensor", "both"}))
        ->capture_default_str();
    command->add_flag("--screens", options.screens,
                      tr("Print the screens the pager would show at --width x --height, each followed by a line holding a form feed"));
    command->add_flag("--all-inputs", options.all_inputs,
                      tr("Show every input whole, also those seen before (by default one line: name, shape, where)"));
    command->footer(tr("Keys on a terminal: Enter or space next screen · b back · s end of step · n/p next/previous step ·\n"
                       "g N Enter go to step N · q quit.\n"
                       "Ctrl-D stops as q does. The terminal is restored on exit, on Ctrl-C and on SIGTERM.\n"
                       "Exit code 0 when every check passes, 1 when one fails, 2 on bad input."));
    return command;
}

CLI::App* setup_check(CLI::App& app, CheckOptions& options) {
    auto* command = app.add_subcommand("check", tr("Check every expected value of the lessons, one line per check"));
    command->add_option("lessons", options.lessons, tr("Lesson numbers or slugs (default: all lessons)"));
    command->add_option_function<std::size_t>(
               "--width", [&options](const std::size_t& value) { options.width = value; },
               tr("Columns every line must fit in (default: the terminal's, at most 100; off a terminal $COLUMNS, else 80)"))
        ->check(screen_size(40));
    add_background_flags(command, options.light);
    command->footer(tr("Ends with a line 'N passed, N failed'. Exit code 0 when all pass, 1 otherwise, 2 on bad input."));
    return command;
}

CLI::App* setup_compute(CLI::App& app, ComputeOptions& options) {
    auto* command = app.add_subcommand("compute", tr("Run a lesson's computation on your own tensors (.npy files)"));
    command->add_option("module", options.module, tr("The computation, e.g. dot (listed below)"))->required();
    command->add_option("--in", options.in_dir, tr("Folder holding one <name>.npy per input (float32 or float64, C order)"))
        ->required();
    command->add_option("--out", options.out_dir, tr("Folder to write one <name>.npy per output (created if missing)"))
        ->required();
    command->add_option("--heads", options.heads, tr("Number of heads h (mha, encoder-layer, encoder, decoder-layer, decoder, transformer; required there unless the --weights config gives it; must divide D)"))
        ->check(whole_number(1, INT_MAX));
    command->add_flag("--causal", options.causal,
                      tr("Hide from query t every key in its future (self-attention and mha)"));
    command->add_option("--causal-alignment", options.causal_alignment,
                        tr("Needs --causal; matters when T != S. top-left (default, PyTorch's): query t sees keys 0..t. "
                        "bottom-right: query t sees keys 0..t+S-T, the last query sees every key (KV-cache decoding)"));
    command->add_flag("--norm-first", options.norm_first, tr("Pre-norm: x + sublayer(norm(x)) (encoder-layer, encoder, decoder-layer, decoder, transformer)"));
    command->add_option_function<double>(
        "--eps", [&options](const double& value) { options.eps = value; },
        tr("Layer norm eps, > 0, PyTorch's layer_norm_eps (encoder-layer, encoder, decoder-layer, decoder, transformer; default 1e-5)"))
        ->check(positive_finite);
    command->add_option_function<double>(
        "--norm-eps", [&options](const double& value) { options.norm_eps = value; },
        tr("The final norm's eps, > 0, when nn.LayerNorm(D, eps=...) differs from the layers' (encoder, decoder, transformer; default: --eps)"))
        ->check(positive_finite);
    command->add_option("--activation", options.activation,
                        tr("relu, gelu (the exact erf form) or gelu-tanh (PyTorch's approximate=\"tanh\") "
                           "(encoder-layer, encoder, decoder-layer, decoder, transformer; default relu)"));
    command->add_flag("--no-output-projection", options.no_output_projection,
                      tr("mha without w_o: the output is the heads side by side (seed 000); without this flag w_o is required"));
    command->add_option("--weights", options.weights,
                        tr("An .npz archive of weights, as numpy.savez(path, **state_dict) writes it: keys are the "
                        "state_dict names with dots (layers.0.self_attn.in_proj_weight); inputs still come from --in"));
    command->add_option("--prefix", options.prefix,
                        tr("Strip this prefix from the --weights keys, for a state_dict saved inside a bigger model "
                           "(module., model.encoder.); without it, the one prefix that fits the module is found"));
    command->add_flag("--seq-first", options.seq_first,
                      tr("Sequence-first tensors (T, B, D) in and out, PyTorch's batch_first=False default "
                      "(mha, encoder-layer, encoder)"));
    // Lesson 8's options; which module takes which is checked with the module (check_position_options).
    command->add_option("--rope-layout", options.rope_layout,
                        tr("halves (default; features i and i + d_k/2, Hugging Face's rotate_half) or pairs "
                           "(features 2i and 2i + 1, GPT-J's rotate_every_two) (rope)"));
    command->add_option_function<double>(
        "--rope-base", [&options](const double& value) { options.rope_base = value; },
        tr("The base of RoPE's frequencies, theta_i = base^(-2i/d_k), > 0 (rope; default 10000)"))
        ->check(positive_finite);
    command->add_option_function<std::int64_t>(
        "--padding-idx", [&options](const std::int64_t& value) { options.padding_idx = value; },
        tr("nn.Embedding's padding_idx, in [-V, V) (embedding). Accepted and checked only: the forward copies the "
           "row whatever it holds (nn.Embedding zeroes it when created), so it does not change the output"));
    command->add_option_function<double>(
        "--scale", [&options](const double& value) { options.scale = value; },
        tr("Multiplies the looked-up rows, e.g. sqrt(D) as the Transformer does (embedding; default 1)"))
        ->check(finite_number(-1e300, 1e300));
    command->add_flag("--grad", options.grad,
                      tr("Also write grad_NAME.npy for every floating-point input NAME (masks get none): its gradient, "
                         "given IN/grad_output.npy, the gradient of output, as output.backward(grad_output) takes it "
                         "(self-attention, mha, encoder-layer; computed in double)"));
    // --precision's and --threads' values are checked once, with the module's other options
    // (tutor::check_compute_options).
    command->add_option("--precision", options.precision,
                        tr("float32: the fast path (attn::fast); float64: the lesson path, in double "
                           "(mha, encoder-layer, encoder; default: float32 when every input is float32)"));
    command->add_option_function<int>(
        "--threads", [&options](const int& value) { options.threads = value; },
        tr("Threads of the float32 fast path (default: the physical cores)"));
    // Built when the help is shown: the modules' lesson numbers come from the lessons folder.
    command->footer([] {
        return describe_compute_modules() +
               tr("\nOutputs are float32 when every input is float32, float64 otherwise. Either all outputs are\n"
                  "written or none. Exit code 0 on success, 2 on bad input.");
    });
    return command;
}

CLI::App* setup_run(CLI::App& app, RunOptions& options) {
    auto* command = app.add_subcommand("run", tr("Run a seed's example at full size on seeded random inputs: shapes and time"));
    command->add_option("example", options.example, tr("mha: seed 000's multi-head attention"))->required();
    command->add_option("--batch", options.batch, tr("B, sequences in the batch"))->check(at_least_one)->capture_default_str();
    command->add_option("--seq", options.seq, tr("T = S, tokens per sequence"))->check(at_least_one)->capture_default_str();
    command->add_option("--d-model", options.d_model, tr("D, the model width"))->check(at_least_one)->capture_default_str();
    command->add_option("--heads", options.heads, tr("h, the number of heads; must divide D"))
        ->check(at_least_one)
        ->capture_default_str();
    command->add_option("--seed", options.seed, tr("Seed of std::mt19937 for the inputs and weights"))
        ->check(whole_number(0, UINT_MAX))
        ->capture_default_str();
    command->footer(tr("Inputs: x uniform in [0, 1), an attention_mask of ones, weights and biases uniform in\n"
                    "[-1/sqrt(D), 1/sqrt(D)] (nn.Linear's initialisation); no output projection, as in seed 000.\n"
                    "Exit code 0 on success, 2 on bad options."));
    return command;
}

namespace {

// attn train copy's pictures of the cross-attention before and after training.
void add_heatmap_options(CLI::App* command, TrainOptions& options) {
    auto* head = command->add_option_function<std::size_t>(
        "--heatmap-head", [&options](const std::size_t& value) { options.heatmap_head = value; },
        tr("The head whose cross-attention the heat maps draw (from 0); default: the mean of the heads"));
    head->check(whole_number(0, 1023));
    command->add_flag("--no-heatmaps", options.no_heatmaps,
                      tr("Draw no cross-attention heat maps before and after training (for scripts)"))
        ->excludes(head);
}

}  // namespace

CLI::App* setup_train(CLI::App& app, TrainOptions& options) {
    auto* command = app.add_subcommand("train", tr("Train a model with the library: the Annotated Transformer's copy task"));
    command->add_option("task", options.task, tr("copy: learn to write back sequences of symbols 1 to 10"))->required();
    command->add_option("--d-model", options.d_model, tr("D, the model width"))->check(whole_number(1, 1024))->capture_default_str();
    command->add_option("--heads", options.heads, tr("h, the number of heads; must divide D"))
        ->check(whole_number(1, 1024))
        ->capture_default_str();
    command->add_option("--layers", options.layers, tr("N, the layers of the encoder and of the decoder"))
        ->check(whole_number(1, 16))
        ->capture_default_str();
    command->add_option("--d-ff", options.d_ff, tr("F, the feed-forward width"))->check(whole_number(1, 4096))->capture_default_str();
    command->add_option("--batch", options.batch, tr("B, sequences per training step"))
        ->check(whole_number(1, 4096))
        ->capture_default_str();
    command->add_option("--steps", options.steps, tr("Training steps per epoch"))->check(whole_number(1, 100000))->capture_default_str();
    command->add_option("--epochs", options.epochs, tr("Epochs"))->check(whole_number(1, 10000))->capture_default_str();
    command->add_option("--warmup", options.warmup, tr("Warm-up steps of the learning rate"))
        ->check(whole_number(1, 1000000))
        ->capture_default_str();
    command->add_option("--lr-factor", options.lr_factor, tr("Factor of the learning rate"))
        ->check(finite_number(1e-6, 100))
        ->capture_default_str();
    command->add_option("--label-smoothing", options.label_smoothing, tr("ε, the probability the loss spreads over the other symbols"))
        ->check(finite_number(0, 0.99))
        ->capture_default_str();
    command->add_option("--dropout", options.dropout,
                        tr("p, the dropout in training (0 ≤ p < 1), its masks from std::mt19937(--seed + 2); the "
                           "accuracy and the decodes never drop"))
        ->check(probability_below_one)
        ->capture_default_str();
    command->add_option("--seed", options.seed, tr("Seed of std::mt19937 for the initial weights and the sequences"))
        ->check(whole_number(0, UINT_MAX))
        ->capture_default_str();
    command->add_option("--init", options.init,
                        tr("Initial weights instead of the seed's: an .npz of nn.Transformer's state_dict plus "
                           "src_embed.weight, tgt_embed.weight, generator.weight and generator.bias"));
    command->add_option("--data", options.data,
                        tr("Batches instead of the seed's: an .npz of src and tgt, integer arrays (steps, B, L); every "
                           "epoch runs them all, and --batch and --steps are not used"));
    command->add_option("--log", options.log,
                        tr("Write each step's loss and learning rate to this JSON file at the end of every epoch and "
                           "when the run is stopped"));
    command->add_option("--save", options.save,
                        tr("Write the model to this .npz at the end of every epoch and when the run is stopped: "
                           "nn.Transformer's state_dict names plus src_embed.weight, tgt_embed.weight, "
                           "generator.weight and generator.bias (float32), and its attn_config"));
    add_heatmap_options(command, options);
    command->add_option("--size", options.size,
                        tr("class: the class-sized model above (the default); annotated: the Annotated Transformer's "
                           "copy run, D 512, h 8, 2 + 2 layers, F 2048, batch 80, 20 steps per epoch, 20 epochs, warm-up "
                           "400, lr factor 0.5, label smoothing 0, dropout 0.1, in float32 (an option given as well "
                           "overrides its setting)"));
    command->add_option("--precision", options.precision,
                        tr("float32: the fast path's float32 model (attn::fast); float64: the lesson path, in double "
                           "(default: float32 with --size annotated, float64 otherwise)"));
    command->add_option("--threads", options.threads,
                        tr("Threads: the float32 path's worker pool (default: the physical cores), or OpenBLAS's on "
                           "the float64 path (default: OpenBLAS's own); a run is reproducible for a given seed and "
                           "thread count"))
        ->check(whole_number(1, 1024));
    // --size's values fill the settings the command line left out, whatever the options' order.
    command->parse_complete_callback([command, &options] {
        apply_train_size(options, [command](const std::string& name) { return command->count(name) > 0; });
    });
    command->footer(tr("The model is nn.Transformer with pre-norm layers, two embeddings scaled by sqrt(D) plus the\n"
                    "sinusoidal positions and a linear generator, over 11 symbols (0 the padding, 1 the start) and\n"
                    "sequences of 10. Each step: the decoder reads tgt[:, :-1] and is scored on tgt[:, 1:], the\n"
                    "Annotated Transformer's loss, the backward pass, Adam (0.9, 0.98, 1e-9) at the rate\n"
                    "factor * D^-0.5 * min(step^-0.5, step * warmup^-1.5). After each epoch, greedy decoding of 100\n"
                    "fresh sequences measures the copy accuracy, and 1000 after the last. Exit code 0 on success,\n"
                    "2 on bad options.") +
                    "\n" +
                    tr("Ctrl-C or SIGTERM stops the run after the step in progress and writes --save and --log as they\n"
                       "are then (exit code 130 or 143); a second Ctrl-C stops at once. On a terminal a progress line\n"
                       "is redrawn on standard error while an epoch runs."));
    return command;
}

CLI::App* setup_exercise(CLI::App& app, ExerciseOptions& options) {
    auto* command = app.add_subcommand("exercise", tr("Build and check your implementation of a lesson (lessons/NN-slug/exercise/exercise.cpp)"));
    command->add_option("exercise", options.exercise, tr("Exercise number or slug, e.g. 1 or dot-product"))->required();
    command->add_flag("--watch", options.watch, tr("Check again whenever the file changes (Ctrl-C to stop)"));
    command->add_flag("--reset", options.reset, tr("Restore the stub, after saving your file as a timestamped backup beside it"));
    command->add_flag("--hint", options.hint, tr("Show the next hint (about the step that failed last) and stop"));
    command->add_option("--file", options.file, tr("Check this file instead of lessons/NN-slug/exercise/exercise.cpp"))->check(CLI::ExistingFile);
    command->add_flag("--verbose", options.verbose,
                      tr("Print every case in full (by default: the first failing case in full, the others one line each)"));
    command->add_option("--time-limit", options.time_limit, tr("Seconds your code may take per case before it is stopped"))
        ->check(finite_number(0.1, 3600.0))
        ->capture_default_str();
    command->footer(tr("Your code runs in its own process with a time limit per case, a memory limit, and bounds checks:\n"
                    "an endless loop, a crash or exit() fails the run and says in which case. Only the results your\n"
                    "code reports for every case make a pass. A new hint is shown when your numbers change and still\n"
                    "fail (never for a compile error or an unchanged file); --hint shows the next one on demand.\n"
                    "Exit code 0 when every check passes, 1 when one fails or the code does not compile, 2 on bad input."));
    return command;
}

CLI::App* setup_progress(CLI::App& app, ProgressOptions&) {
    return app.add_subcommand("progress", tr("Which exercises pass"));
}

CLI::App* setup_bench(CLI::App& app, BenchOptions& options) {
    auto* command = app.add_subcommand("bench", tr("Time the float32 fast path (multi-head attention, encoder layer, decoding, a training step) on random inputs"));
    command->add_option("module", options.module, tr("mha, encoder-layer, decode or train (listed below)"))->required();
    // Sizes are only recorded when given, so that each module keeps its own default shape.
    auto size = [command](const char* flag, std::optional<long long>& field, const std::string& help) {
        command->add_option_function<long long>(flag, [&field](const long long& value) { field = value; }, help);
    };
    size("--batch", options.batch, tr("B, sequences per call"));
    size("--seq", options.seq, tr("T, tokens per sequence (self-attention: S = T)"));
    size("--d-model", options.d_model, tr("D, the model width"));
    size("--heads", options.heads, tr("h, the number of heads; must divide D"));
    size("--d-ff", options.d_ff, tr("F, the feed-forward width (encoder-layer, decode)"));
    size("--threads", options.threads, tr("Worker threads (default: every core)"));
    size("--layers", options.layers, tr("L, decoder layers (decode)"));
    size("--kv-heads", options.kv_heads, tr("g, K/V heads, each shared by h / g query heads; must divide h (decode; default h)"));
    size("--memory", options.memory, tr("S, positions of the encoder's output attended by cross-attention (decode)"));
    size("--tokens", options.tokens, tr("N, tokens generated, one step each (decode)"));
    size("--repeat", options.repeat, tr("Timed calls after the warm-up calls (default 10; decode: timed generations, default 3)"));
    size("--warmup", options.warmup, tr("Untimed calls first (they size the buffers); 0 for one cold call (default 1)"));
    command->add_flag("--no-weights", options.no_weights,
                      tr("mha: need_weights = false, the tiled online softmax: no (B, h, T, S) weights are held"));
    command->add_flag("--backward", options.backward,
                      tr("mha: time the forward for training and the backward (FlashAttention-2's, tiled) together"));
    command->add_flag("--causal", options.causal, tr("The causal mask: query t sees keys 0 ... t; skipped tiles are not counted"));
    command->add_option("--rope", options.rope,
                        tr("mha: RoPE on each head's Q and K, layout halves (Hugging Face's rotate_half) or pairs "
                           "(GPT-J's rotate_every_two), base 10000"));
    command->add_flag("--json", options.json,
                      tr("Print one JSON object: module, shape, threads, min_ms, median_ms, gflops, attention_gflops, peak_rss_mb, ... "
                         "(decode: tokens_per_s, ms_per_token, memory_ms, weights_gb_per_s)"));
    command->footer(describe_bench_modules() +
                    tr("GFLOP/s counts the matrix products computed (2 per multiply-add; causal: the tiles computed), at the min time.\n"
                       "Exit code 0 on success, 2 on bad options."));
    return command;
}

CLI::App* setup_heatmap(CLI::App& app, HeatmapOptions& options) {
    auto* command = app.add_subcommand("heatmap", tr("Show attention weights as shaded grids in the terminal, one per head"));
    add_attention_source(command, options.source);
    command->footer(tr("Cells are shaded from the grid's smallest to its largest value, with a legend under each grid:\n"
                    "256-colour on a terminal, block characters ' ░▒▓█' when NO_COLOR is set or the output is not a\n"
                    "terminal. A weights file must hold values in [0, 1] whose rows sum to 1\n"
                    "(within 0.01; a row of zeros, a fully masked query, is allowed).\n"
                    "Exit code 0 on success, 2 on bad input (a malformed weights file, tokens that do not match it)."));
    return command;
}

CLI::App* setup_view(CLI::App& app, ViewOptions& options) {
    auto* command = app.add_subcommand("view", tr("Write attention weights as a self-contained HTML page (head view, a heatmap per head) or an SVG heatmap"));
    add_attention_source(command, options.source);
    command->add_option("--html", options.html, tr("Write the page here: one file, no network needed, open it in any browser"));
    command->add_option("--svg", options.svg, tr("Write one head's heatmap here as SVG, for slides and papers"));
    command->add_option("--head", options.head, tr("The head the page shows first and the SVG draws (from 0)"))
        ->check(whole_number(0, SIZE_MAX))
        ->capture_default_str();
    command->add_option("--item", options.item, tr("Which sequence of a batch of weights to draw (from 0)"))
        ->check(whole_number(0, SIZE_MAX))
        ->capture_default_str();
    command->footer(tr("Example: attn view --sentence \"El perro va caminando sobre el pasto\" --seed 1 --html out.html\n"
                    "A weights file must hold values in [0, 1] whose rows sum to 1 (within 0.01; a row of zeros is allowed);\n"
                    "at most 128 queries and keys are drawn. Files are written all or none.\n"
                    "Exit code 0 on success, 2 on bad input."));
    return command;
}

}  // namespace attn::cli
