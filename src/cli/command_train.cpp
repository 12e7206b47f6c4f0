// `attn train copy`: the Annotated Transformer's copy task, trained in front of the class with
// the library's own forward and backward passes (tutor/train/).
//
// Why this task: it needs no data set and learns in seconds, yet uses every piece of lessons
// 1–10 — embeddings and positions, both stacks, cross-attention, the loss, the backward pass and
// Adam. After each epoch the model greedily decodes 100 fresh sequences, so the class sees the
// copy accuracy climb from 0 % while the loss falls; at the end the accuracy on 1000 fresh
// sequences and a few decodes are printed.
//
// Reproducible: the weights and the training batches come from std::mt19937(--seed) by the
// recipe of tutor/train/copy_task.hpp, the evaluation's sequences from std::mt19937(--seed + 1),
// the dropout's masks (--dropout) from std::mt19937(--seed + 2), so that a run without dropout
// draws its weights and batches as before.
// For a comparison with PyTorch, --init and --data give the initial weights and the batches
// (every epoch then runs the file's batches), --save writes the trained model as a state_dict
// archive PyTorch loads (tutor/train/copy_files.hpp), and --log writes each step's loss and learning
// rate; both are rewritten together, all or none, after every epoch and when a signal stops the run
// (tutor/train/run_outputs.hpp).
//
// Two paths: the lesson path in double (the class-sized default, exact against PyTorch) and the
// fast path's float32 model (attn/fast/seq2seq_training.hpp), the default of --size annotated, the
// Annotated Transformer's own run; --precision chooses either for any size. --threads sets the
// float32 path's worker pool, or OpenBLAS's threads on the double path: a run is reproducible for
// a given seed and thread count.
#include <chrono>
#include <cstdio>
#include <unistd.h>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/fast/threads.hpp"
#include "attn/files.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "cli/commands.hpp"
#include "tutor/language.hpp"
#include "tutor/train/copy_evaluation.hpp"
#include "tutor/train/copy_files.hpp"
#include "tutor/train/copy_heatmaps.hpp"
#include "tutor/train/copy_training.hpp"
#include "tutor/train/interrupt.hpp"
#include "tutor/train/progress.hpp"
#include "tutor/train/run_outputs.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;
using tutor::trn;

namespace {

constexpr std::size_t copy_vocabulary = 11;  // the Annotated Transformer's: 0 padding, 1 start, 1 … 10
constexpr std::size_t copy_length = 10;
constexpr std::size_t evaluated_sequences = 100;   // after each epoch
constexpr std::size_t final_sequences = 1000;      // after the last
constexpr std::size_t shown_decodes = 5;

std::string fixed(double value, const char* format) {
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string ids_text(const std::vector<std::int64_t>& ids) {
    std::string text;
    for (std::int64_t id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
    return text;
}

// The memory a run needs, estimated before anything is allocated, in double arithmetic so that no
// product of the options can wrap: the parameters four times (values, gradients, Adam's two
// moments) and twice more as flat copies; and per layer the intermediates of the forward and the
// backward, about 20 (B, L, D) tensors, 2 (B, L, F) and 4 (B, h, L, L). Past 8 GiB the options are
// refused by name, rather than failing halfway through with "out of memory".
void check_memory(const TrainOptions& o) {
    const double V = double(copy_vocabulary), L = double(copy_length), D = double(o.d_model), F = double(o.d_ff);
    const double N = double(o.layers), B = double(o.batch), h = double(o.heads);
    const double parameters = 3 * V * D + N * (12 * D * D + 4 * D * F);
    const double intermediates = 2 * N * 2 * B * L * (20 * D + 2 * F + 4 * h * L);
    const double bytes = (6 * parameters + intermediates) * sizeof(double);
    constexpr double limit = 8.0 * 1024 * 1024 * 1024;
    if (bytes > limit) {
        throw InputError(trf("train copy: --d-model {1} --d-ff {2} --layers {3} --batch {4} --heads {5} would need {6} GiB "
                             "of memory (the limit is 8 GiB); choose smaller sizes",
                             {std::to_string(o.d_model), std::to_string(o.d_ff), std::to_string(o.layers),
                              std::to_string(o.batch), std::to_string(o.heads),
                              fixed(bytes / (1024.0 * 1024 * 1024), "%.3g")}));
    }
}

// The files a run writes (--log, --save), with their contents, and the files it reads.
std::vector<OutputFile> train_outputs(const TrainOptions& o, std::string log, std::string model) {
    std::vector<OutputFile> outputs;
    if (!o.log.empty()) outputs.push_back({o.log, std::move(log), "--log"});
    if (!o.save.empty()) outputs.push_back({o.save, std::move(model), "--save"});
    return outputs;
}

std::vector<InputPath> train_inputs(const TrainOptions& o) {
    std::vector<InputPath> inputs;
    for (const InputPath& input : {InputPath{"--init", o.init}, InputPath{"--data", o.data}}) {
        if (!input.path.empty()) inputs.push_back(input);
    }
    return inputs;
}

bool uses_float32(const TrainOptions& o) { return o.precision.empty() ? o.size == "annotated" : o.precision == "float32"; }

void check_path_options(const TrainOptions& o) {
    if (o.size != "class" && o.size != "annotated") {
        throw InputError(trf("train copy: unknown --size '{1}'; the sizes are class (the default) and annotated "
                             "(the Annotated Transformer's copy run)",
                             {o.size}));
    }
    if (!o.precision.empty() && o.precision != "float32" && o.precision != "float64") {
        throw InputError(trf("train copy: unknown --precision '{1}'; the choices are float32 and float64", {o.precision}));
    }
}

// The threads a run computes with: the float32 path's pool, or OpenBLAS's for the double path's dgemm.
void use_threads(const TrainOptions& o) {
    if (o.threads == 0) return;
    if (uses_float32(o)) {
        fast::set_threads(static_cast<int>(o.threads));
    } else {
        fast::set_blas_threads(static_cast<int>(o.threads));
    }
}

void check_train_options(const TrainOptions& o) {
    check_path_options(o);
    if (o.task != "copy") {
        throw InputError(trf("unknown task '{1}'; attn train knows: copy (the Annotated Transformer's copy task)", {o.task}));
    }
    if (o.d_model % o.heads != 0) {
        throw ShapeError(trf("train copy: --d-model {1} is not a multiple of --heads {2}; each head gets d_k = D / h "
                             "features, so h must divide D",
                             {std::to_string(o.d_model), std::to_string(o.heads)}));
    }
    check_memory(o);
    tutor::check_heatmap_head(o.heatmap_head, o.heads);
    // An output that cannot be written is said before the training, not after it.
    check_output_files(train_outputs(o, "", ""), train_inputs(o));
}

// Which path computes the run, and on how many threads.
std::string path_description(const TrainOptions& o) {
    if (uses_float32(o)) {
        const int threads = fast::threads();
        return trn("float32 (the fast path, attn::fast), {1} thread", "float32 (the fast path, attn::fast), {1} threads",
                   static_cast<unsigned long>(threads), {std::to_string(threads)});
    }
    return o.threads == 0 ? tr("float64 (the lesson path)")
                          : trn("float64 (the lesson path), OpenBLAS on {1} thread",
                                "float64 (the lesson path), OpenBLAS on {1} threads", o.threads, {std::to_string(o.threads)});
}

// Where the run's batches and evaluation sequences come from.
struct TrainingInputs {
    std::mt19937 generator;               // the initial weights (without --init), then the batches
    std::mt19937 evaluation;              // the evaluation's fresh sequences
    std::vector<tutor::CopyBatch> given;  // --data's batches; empty: drawn from `generator`
    std::size_t steps = 0, batch = 0;     // per epoch; B
};

// A run stopped by a signal: the files written as they are now, what they hold said on stderr,
// and the shell's code for a program a signal stopped, 128 + its number.
int stop_run(const tutor::StopPoint& point, const tutor::CopyTrainer& trainer,
             const std::vector<tutor::TrainingStepResult>& log, tutor::RunOutputs& outputs) {
    std::cout << std::flush;
    if (!log.empty()) outputs.write(trainer, log);
    std::cerr << "\n" << tutor::stop_report(point, outputs);
    return 128 + point.signal_number;
}

// The last decoder layer's cross-attention on one sequence, before or after training
// (tutor/train/copy_heatmaps.hpp). The sequence has a generator of its own, so that the pictures
// change neither the training nor the evaluation: the same seed gives the same run without them.
void print_cross_attention(const TrainOptions& o, const tutor::CopyTrainer& trainer, bool trained) {
    if (o.no_heatmaps) return;
    std::mt19937 pictured(o.seed + 2u);
    const tutor::CopyBatch sequence = tutor::copy_batch(pictured, 1, copy_length, copy_vocabulary);
    const tutor::CopyAttention seen = tutor::copy_attention(tutor::current_weights(trainer), trainer.options, sequence.src);
    std::cout << (trained ? "\n" : "")
              << tutor::render_copy_heatmap(tutor::detect_terminal(), seen, o.heatmap_head, trained)
              << (trained ? "" : "\n") << std::flush;
}

void print_decodes(const tutor::CopyTrainer& trainer, std::mt19937& evaluation) {
    std::cout << "\n" << tr("Greedy decodes of fresh sequences:") << "\n";
    for (std::size_t i = 0; i < shown_decodes; ++i) {
        const tutor::CopyBatch sequence = tutor::copy_batch(evaluation, 1, copy_length, copy_vocabulary);
        const std::vector<std::int64_t> source(sequence.src.begin(), sequence.src.end());
        const std::vector<std::int64_t> decoded = tutor::greedy_copy(trainer, sequence.src);
        std::cout << "  " << ids_text(source) << "  →  " << ids_text(decoded) << "  "
                  << (decoded == source ? "✓" : "✗") << "\n";
    }
}

// The epochs, each ending with its line and the files rewritten (tutor/train/run_outputs.hpp).
// A stop requested by a signal is honoured before the next step: the point where it stopped.
std::optional<tutor::StopPoint> train_epochs(const TrainOptions& o, tutor::CopyTrainer& trainer, TrainingInputs& inputs,
                                             std::vector<tutor::TrainingStepResult>& log, tutor::RunOutputs& outputs,
                                             const tutor::StopRequests& stops) {
    const auto start = std::chrono::steady_clock::now();
    const auto seconds_since_start = [&start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    tutor::TrainingProgress progress(tutor::redraw_columns(STDERR_FILENO));
    for (std::size_t epoch = 1; epoch <= o.epochs; ++epoch) {
        double loss_sum = 0;
        // One more turn than there are steps: a stop asked for during the last step skips the evaluation.
        for (std::size_t step = 0; step <= inputs.steps; ++step) {
            if (stops.requested()) return tutor::StopPoint{stops.signal_number(), log.size(), epoch, step, inputs.steps};
            if (step == inputs.steps) break;
            const tutor::CopyBatch next = inputs.given.empty()
                                              ? tutor::copy_batch(inputs.generator, inputs.batch, copy_length, copy_vocabulary)
                                              : inputs.given[step];
            log.push_back(tutor::train_step(trainer, next));
            loss_sum += log.back().loss;
            progress.show({epoch, o.epochs, step + 1, inputs.steps, loss_sum / double(step + 1), seconds_since_start()});
        }
        const double accuracy = tutor::copy_accuracy(trainer, inputs.evaluation, evaluated_sequences, copy_length);
        const double seconds = seconds_since_start();
        progress.clear();
        outputs.write(trainer, log);  // before the line: once it is shown, the epoch's files are whole
        std::cout << trf("epoch {1}/{2}  loss {3}  copied {4} of {5} fresh sequences  {6} s",
                         {std::to_string(epoch), std::to_string(o.epochs), fixed(loss_sum / double(inputs.steps), "%.4f"),
                          fixed(100.0 * accuracy, "%.0f %%"), std::to_string(evaluated_sequences), fixed(seconds, "%.1f")})
                  << std::endl;
        if (stops.requested()) return tutor::StopPoint{stops.signal_number(), log.size(), epoch, inputs.steps, inputs.steps};
    }
    return std::nullopt;
}

}  // namespace

void apply_train_size(TrainOptions& o, const std::function<bool(const std::string&)>& given) {
    if (o.size != "annotated") return;
    // The Annotated Transformer's example_simple_model: make_model(V, V, N=2) (d_model 512, d_ff 2048,
    // h 8, dropout 0.1), batches of 80, 20 per epoch, 20 epochs, Adam lr 0.5 × rate(factor 1, warmup
    // 400) — our factor 0.5 —, LabelSmoothing(smoothing=0.0). Without its dropout the run spikes and
    // ends far from copying, in PyTorch as here (docs/performance.md).
    const auto set = [&given](const char* name, auto& setting, auto value) {
        if (!given(name)) setting = value;
    };
    set("--d-model", o.d_model, std::size_t(512));
    set("--heads", o.heads, std::size_t(8));
    set("--layers", o.layers, std::size_t(2));
    set("--d-ff", o.d_ff, std::size_t(2048));
    set("--batch", o.batch, std::size_t(80));
    set("--steps", o.steps, std::size_t(20));
    set("--epochs", o.epochs, std::size_t(20));
    set("--warmup", o.warmup, std::size_t(400));
    set("--lr-factor", o.lr_factor, 0.5);
    set("--label-smoothing", o.label_smoothing, 0.0);
    set("--dropout", o.dropout, 0.1);
}

int run_train(const GlobalOptions&, const TrainOptions& o) {
    check_train_options(o);
    // From here on Ctrl-C and SIGTERM stop the run between two steps, keeping what it learned.
    const tutor::StopRequests stops;
    const Seq2SeqSizes sizes{copy_vocabulary, o.d_model, o.layers, o.layers, o.d_ff};
    tutor::TrainingSettings settings;
    settings.heads = o.heads;
    settings.warmup = o.warmup;
    settings.lr_factor = o.lr_factor;
    settings.label_smoothing = o.label_smoothing;
    settings.dropout = o.dropout;
    settings.dropout_seed = o.seed + 2u;
    settings.float32 = uses_float32(o);
    use_threads(o);
    TrainingInputs inputs{std::mt19937(o.seed), std::mt19937(o.seed + 1u), {}, o.steps, o.batch};
    // Every input is read and checked before the first step: a bad file stops the run at once.
    Seq2SeqWeights initial = o.init.empty() ? tutor::initial_copy_weights(sizes, inputs.generator)
                                            : tutor::read_copy_weights(o.init, sizes, o.heads);
    if (!o.data.empty()) {
        inputs.given = tutor::read_copy_batches(o.data, copy_vocabulary);
        inputs.steps = inputs.given.size();
        inputs.batch = inputs.given.front().tgt.shape(0);
    }
    tutor::CopyTrainer trainer(std::move(initial), settings);

    std::cout << tr("attn train copy: the Annotated Transformer's copy task, 11 symbols, sequences of 10") << "\n  "
              << trf("D = {1}, h = {2}, {3} + {3} layers, F = {4}: {5} parameters; batch {6}, {7} steps per epoch, "
                     "warm-up {8}, lr factor {9}, label smoothing {10}, seed {11}",
                     {std::to_string(o.d_model), std::to_string(o.heads), std::to_string(o.layers),
                      std::to_string(o.d_ff), std::to_string(flatten_parameters(trainer.weights).size()),
                      std::to_string(inputs.batch), std::to_string(inputs.steps), std::to_string(o.warmup),
                      fixed(o.lr_factor, "%g"), fixed(o.label_smoothing, "%g"), std::to_string(o.seed)})
              << "\n  " << path_description(o) << "\n";
    if (o.dropout > 0.0) {
        std::cout << "  " << trf("dropout {1} in training, masks from seed {2}; the accuracy and the decodes never drop",
                                 {fixed(o.dropout, "%g"), std::to_string(settings.dropout_seed)})
                  << "\n";
    }
    std::cout << "\n" << std::flush;
    print_cross_attention(o, trainer, false);
    std::vector<tutor::TrainingStepResult> log;
    tutor::RunOutputs outputs(o.save, o.log, train_inputs(o));
    if (const auto stopped = train_epochs(o, trainer, inputs, log, outputs, stops)) return stop_run(*stopped, trainer, log, outputs);
    const double final_accuracy =
        tutor::copy_accuracy(trainer, inputs.evaluation, final_sequences, copy_length);
    const tutor::StopPoint trained{stops.signal_number(), log.size(), o.epochs, inputs.steps, inputs.steps};
    if (stops.requested()) return stop_run(trained, trainer, log, outputs);  // asked for during the evaluation
    std::cout << "\n"
              << trf("After training: copied {1} of {2} fresh sequences exactly.",
                     {fixed(100.0 * final_accuracy, "%.1f %%"), std::to_string(final_sequences)})
              << "\n";
    print_decodes(trainer, inputs.evaluation);
    print_cross_attention(o, trainer, true);
    // Nothing is left to write: the last epoch's files hold the trained model and every step.
    if (stops.requested()) return stop_run({stops.signal_number(), log.size(), o.epochs, inputs.steps, inputs.steps},
                                           trainer, log, outputs);
    return exit_success;
}

}  // namespace attn::cli
