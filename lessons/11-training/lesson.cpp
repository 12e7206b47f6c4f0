// Lesson 11 — training: the Transformer learns to copy (lessons/11-training/README.md).
//
// Examples "small" and "annotated": from the sizes vocabulary [V], d_model [D], d_ff [F],
// heads [h] and layers [N] (encoder and decoder alike), the parameters' sizes in PyTorch's
// named_parameters order (attn/seq2seq_parameters.hpp):
//   encoder_layer (12)   each tensor of one encoder layer: self_attn.in_proj_weight … norm2.bias
//   decoder_layer (18)   each tensor of one decoder layer: self_attn.* … multihead_attn.* … norm3.bias
//   outside_layers (8)   encoder.norm.weight, .bias, decoder.norm.weight, .bias, src_embed.weight,
//                        tgt_embed.weight, generator.weight, generator.bias
//   parts (3)            the sums of the three: one encoder layer, one decoder layer, the rest
//   total (1)            every value the optimiser updates
// Examples "loss" and "smoothing": from logits (N, V), targets (N), padding [p] and, in
// "smoothing", label_smoothing [ε] (attn/cross_entropy.hpp):
//   probabilities (N, V), target_distribution (N, V) q, loss (1), grad_logits (N, V) (p − q) / counted
// Example "forcing": from tgt (B, L): decoder_input tgt[:, :-1] and targets tgt[:, 1:] (B, L − 1).
// Example "adam": from theta (P), gradients (steps, P) and learning_rate [lr], Adam with
// β (0.9, 0.98), ε 1e-9 (attn/adam.hpp), after each step: first_moment, second_moment, theta (steps, P).
// Example "schedule": from d_model [D], factor [f], warmup [w], steps (n) and updates (k):
//   rates (n)          f · D^(−1/2) · min(step^(−1/2), step · w^(−3/2)) (attn/learning_rate.hpp)
//   update_rates (k)   the rate update k uses under LambdaLR: rate(k − 1), 0 read as 1
// Example "step": from the sizes above, seed [s], batch [B], length [L], warmup [w] and
// lr_factor [f], the copy task's first training step (tutor/train/copy_training.hpp) from the
// seeded weights and batch (tutor/train/copy_task.hpp):
//   src (B, L), decoder_input, targets (B, L − 1), logits_first (V): the logits of sequence 0's
//   first position, loss (1), grad_generator_bias (V), grad_tgt_embed_norms (V): the length of
//   each row of tgt_embed.weight's gradient, learning_rate (1),
//   generator_bias_before, generator_bias_after (V): the tensor the update moved
// Example "train": the same inputs plus steps [n] and sequences (n_s, L): n training steps, then
//   first_losses (20)        the losses of the first 20 steps, before each update
//   losses (n / 50)          the loss of every 50th step (steps 50, 100, …)
//   decodes (n_s, L)         greedy decoding of each of the sequences by the trained model
//   attention_before, attention_after (h, L − 1, L)   the last decoder layer's cross-attention
//                            weights on sequences[0] (teacher forcing), before and after training
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <xtensor/xview.hpp>

#include "attn/adam.hpp"
#include "attn/cross_entropy.hpp"
#include "attn/error.hpp"
#include "attn/learning_rate.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/seq2seq_transformer.hpp"
#include "attn/seq2seq_transformer_backward.hpp"
#include "attn/shape.hpp"
#include "tutor/lesson/lesson_registration.hpp"
#include "tutor/train/copy_evaluation.hpp"
#include "tutor/train/copy_task.hpp"
#include "tutor/train/copy_training.hpp"

namespace attn::tutor {

namespace {

std::size_t size_input(const LessonInputs& inputs, const char* name, std::size_t max) {
    return std::size_t(inputs.get_counts(name, 1, "(1)", 1, max)(0));
}

// The annotated model's sizes are the largest a document may ask for: its one layer per stack
// is about 60 MB of doubles, and nothing larger is allocated for a count.
Seq2SeqSizes model_sizes(const LessonInputs& inputs) {
    Seq2SeqSizes sizes;
    sizes.vocabulary = size_input(inputs, "vocabulary", 1000);
    sizes.d_model = size_input(inputs, "d_model", 512);
    sizes.d_ff = size_input(inputs, "d_ff", 2048);
    sizes.encoder_layers = sizes.decoder_layers = size_input(inputs, "layers", 6);
    return sizes;
}

std::size_t heads_input(const LessonInputs& inputs, const Seq2SeqSizes& sizes) {
    const std::size_t heads = size_input(inputs, "heads", 64);
    if (sizes.d_model % heads != 0) {
        throw InputError("input 'heads' [" + std::to_string(heads) + "] must divide d_model [" +
                         std::to_string(sizes.d_model) + "]");
    }
    return heads;
}

Vector counts_of(const std::vector<std::size_t>& counts) {
    Vector out = Vector::from_shape({counts.size()});
    std::copy(counts.begin(), counts.end(), out.begin());
    return out;
}

Vector one_value(double value) { return Vector{value}; }

// The library's own table of the model's parameters, grouped as the document shows them. Every
// layer of a stack has the same tensors: the table of a model with one layer per stack, with
// its layers counted N times, is the whole model's.
NamedTensors parameter_counts(const LessonInputs& inputs) {
    const Seq2SeqSizes sizes = model_sizes(inputs);
    heads_input(inputs, sizes);
    Seq2SeqSizes one_layer = sizes;
    one_layer.encoder_layers = one_layer.decoder_layers = 1;
    std::vector<std::size_t> encoder_layer, decoder_layer, outside_layers;
    std::size_t total = 0;
    for (const ParameterSlot& slot : seq2seq_parameter_slots(zero_seq2seq_weights(one_layer))) {
        std::size_t count = 1;
        for (std::size_t size : slot.shape) count *= size;
        const bool in_a_layer = slot.name.find(".layers.") != std::string::npos;
        total += in_a_layer ? count * sizes.encoder_layers : count;
        if (slot.name.rfind("encoder.layers.0.", 0) == 0) {
            encoder_layer.push_back(count);
        } else if (slot.name.rfind("decoder.layers.0.", 0) == 0) {
            decoder_layer.push_back(count);
        } else if (!in_a_layer) {
            outside_layers.push_back(count);
        }
    }
    const auto sum = [](const std::vector<std::size_t>& counts) { return std::accumulate(counts.begin(), counts.end(), std::size_t(0)); };
    return {{"encoder_layer", counts_of(encoder_layer)},
            {"decoder_layer", counts_of(decoder_layer)},
            {"outside_layers", counts_of(outside_layers)},
            {"parts", counts_of({sum(encoder_layer), sum(decoder_layer), sum(outside_layers)})},
            {"total", counts_of({total})}};
}

std::vector<std::int64_t> class_ids(const DynamicTensor& values) {
    std::vector<std::int64_t> ids(values.size());
    std::transform(values.begin(), values.end(), ids.begin(), [](double v) { return std::int64_t(v); });
    return ids;
}

NamedTensors loss_of_rows(const LessonInputs& inputs) {
    const Matrix logits = inputs.get("logits", 2, "(N, V)");
    const std::size_t V = logits.shape(1);
    CrossEntropyOptions options;
    options.padding_index = std::int64_t(inputs.get_counts("padding", 1, "(1)", 0, V - 1)(0));
    if (inputs.has("label_smoothing")) options.label_smoothing = inputs.get("label_smoothing", 1, "(1)")(0);
    const CrossEntropyResult result =
        cross_entropy(logits, class_ids(inputs.get_counts("targets", 1, "(N)", 0, V - 1)), options);
    return {{"probabilities", Matrix(xt::exp(result.log_probabilities))},
            {"target_distribution", result.target_distribution},
            {"loss", one_value(result.loss)},
            {"grad_logits", cross_entropy_backward(result)}};
}

DynamicTensor as_values(const IdTensor& ids) { return xt::cast<double>(ids); }

IdTensor as_ids(const DynamicTensor& values) {
    IdTensor ids = IdTensor::from_shape({values.shape(0), values.shape(1)});
    std::transform(values.begin(), values.end(), ids.begin(), [](double v) { return std::int64_t(v); });
    return ids;
}

NamedTensors shifted_for_teacher_forcing(const LessonInputs& inputs) {
    inputs.get("tgt", 2, "(B, L)");
    const TeacherForcing split = teacher_forcing(as_ids(inputs.get_counts("tgt", 2, "(B, L)", 0, 1000000)));
    return {{"decoder_input", as_values(split.decoder_input)}, {"targets", as_values(split.targets)}};
}

AdamOptions copy_task_adam(double learning_rate) {
    AdamOptions adam;
    adam.learning_rate = learning_rate;
    adam.beta1 = 0.9;
    adam.beta2 = 0.98;
    adam.eps = 1e-9;
    return adam;
}

NamedTensors adam_by_hand(const LessonInputs& inputs) {
    const DynamicTensor theta0 = inputs.get("theta", 1, "(P)");
    const Matrix gradients = inputs.get("gradients", 2, "(steps, P)");
    if (gradients.shape(1) != theta0.size()) {
        throw InputError("input 'gradients' " + shape_string(gradients.shape()) + " must have one column per value of 'theta' " +
                         shape_string(theta0.shape()));
    }
    const AdamOptions adam = copy_task_adam(inputs.get("learning_rate", 1, "(1)")(0));
    std::vector<double> theta(theta0.begin(), theta0.end());
    AdamState state;
    Matrix m = Matrix::from_shape(gradients.shape()), v = m, after = m;
    for (std::size_t t = 0; t < gradients.shape(0); ++t) {
        const std::vector<double> g(&gradients(t, 0), &gradients(t, 0) + gradients.shape(1));
        adam_step(theta, g, state, adam);
        std::copy(state.first_moment.begin(), state.first_moment.end(), &m(t, 0));
        std::copy(state.second_moment.begin(), state.second_moment.end(), &v(t, 0));
        std::copy(theta.begin(), theta.end(), &after(t, 0));
    }
    return {{"first_moment", m}, {"second_moment", v}, {"theta", after}};
}

NamedTensors schedule(const LessonInputs& inputs) {
    const std::size_t d_model = size_input(inputs, "d_model", 1 << 20), warmup = size_input(inputs, "warmup", 1 << 30);
    const double factor = inputs.get("factor", 1, "(1)")(0);
    const DynamicTensor steps = inputs.get_counts("steps", 1, "(n)", 0, 1u << 30);
    const DynamicTensor updates = inputs.get_counts("updates", 1, "(k)", 1, 1u << 30);
    Vector rates = Vector::from_shape({steps.size()}), update_rates = Vector::from_shape({updates.size()});
    for (std::size_t i = 0; i < steps.size(); ++i) rates(i) = noam_learning_rate(std::size_t(steps(i)), d_model, factor, warmup);
    // LambdaLR: the k-th optimizer.step() runs at the rate of scheduler.step() called k − 1 times.
    for (std::size_t i = 0; i < updates.size(); ++i)
        update_rates(i) = noam_learning_rate(std::size_t(updates(i)) - 1, d_model, factor, warmup);
    return {{"rates", rates}, {"update_rates", update_rates}};
}

// The model, the optimiser and the generator of one seeded run, as `attn train copy` draws them.
struct SeededRun {
    std::mt19937 generator;
    CopyTrainer trainer;
    std::size_t batch, length;
};

// A document's run must stay a lesson's: about 3e10 multiply-adds is half a minute or so on
// one core (the document's 300 steps are about 1e9, a second); `attn train copy` is the program for longer runs. Per sequence position and step, the
// forward and backward cost about 6 multiply-adds per parameter of the layers.
void require_lesson_sized(const Seq2SeqSizes& sizes, std::size_t batch, std::size_t length, std::size_t steps) {
    const double D = double(sizes.d_model), F = double(sizes.d_ff), N = double(sizes.encoder_layers);
    const double per_position = 6.0 * N * (D * (8.0 * D + 4.0 * F) + 2.0 * D * double(length)) + 6.0 * D * double(sizes.vocabulary);
    if (per_position * double(batch) * double(length) * double(steps) > 3e10) {
        throw InputError("a training run of " + std::to_string(steps) + " steps on batches (" + std::to_string(batch) + ", " +
                         std::to_string(length) + ") with d_model " + std::to_string(sizes.d_model) + " and d_ff " +
                         std::to_string(sizes.d_ff) + " is too long for a lesson; run it with `attn train copy`");
    }
}

SeededRun seeded_run(const LessonInputs& inputs, std::size_t steps) {
    const Seq2SeqSizes sizes = model_sizes(inputs);
    if (sizes.vocabulary < 3) {
        throw InputError("input 'vocabulary' [" + std::to_string(sizes.vocabulary) +
                         "] is too small for the copy task: it needs the padding 0, the start 1 and one more symbol");
    }
    require_lesson_sized(sizes, size_input(inputs, "batch", 256), size_input(inputs, "length", 64), steps);
    TrainingSettings settings;
    settings.heads = heads_input(inputs, sizes);
    settings.warmup = size_input(inputs, "warmup", 1000000);
    settings.lr_factor = inputs.get("lr_factor", 1, "(1)")(0);
    std::mt19937 generator(std::uint32_t(inputs.get_counts("seed", 1, "(1)", 0, 4294967295u)(0)));
    Seq2SeqWeights initial = initial_copy_weights(sizes, generator);
    return {generator, CopyTrainer(std::move(initial), settings), size_input(inputs, "batch", 256),
            size_input(inputs, "length", 64)};
}

// One step shown whole: the pieces train_step chains, then train_step itself for the update.
NamedTensors one_training_step(const LessonInputs& inputs) {
    SeededRun run = seeded_run(inputs, 1);
    const CopyBatch batch = copy_batch(run.generator, run.batch, run.length, run.trainer.weights.src_embedding.shape(0));
    const TeacherForcing split = teacher_forcing(batch.tgt);
    const Seq2SeqStep forward = seq2seq_forward(batch.src, split.decoder_input, run.trainer.weights, run.trainer.options);
    CrossEntropyOptions loss_options;
    loss_options.padding_index = copy_padding;
    const CrossEntropyResult loss = cross_entropy(rows_of(forward.logits), class_ids(as_values(split.targets)), loss_options);
    const Tensor3 grad_logits = positions_of(cross_entropy_backward(loss), forward.logits.shape(0), forward.logits.shape(1));
    const Seq2SeqWeights grad =
        seq2seq_backward(batch.src, split.decoder_input, run.trainer.weights, run.trainer.options, forward, grad_logits);

    NamedTensors out{{"src", as_values(batch.src)},
                     {"decoder_input", as_values(split.decoder_input)},
                     {"targets", as_values(split.targets)},
                     {"logits_first", Vector(xt::view(forward.logits, 0, 0, xt::all()))},
                     {"loss", one_value(loss.loss)},
                     {"grad_generator_bias", grad.generator_bias},
                     {"grad_tgt_embed_norms", Vector(xt::sqrt(xt::sum(grad.tgt_embedding * grad.tgt_embedding, {1})))},
                     {"generator_bias_before", run.trainer.weights.generator_bias}};
    const TrainingStepResult step = train_step(run.trainer, batch);
    if (std::abs(step.loss - loss.loss) > 1e-12 * std::max(1.0, std::abs(loss.loss))) {
        throw InputError("the training step's loss " + std::to_string(step.loss) + " differs from the loss shown, " +
                         std::to_string(loss.loss));
    }
    out["learning_rate"] = one_value(step.learning_rate);
    out["generator_bias_after"] = run.trainer.weights.generator_bias;
    return out;
}

// The last decoder layer's cross-attention weights (h, T, S) on one sequence (1, L) read by
// teacher forcing.
Tensor3 last_cross_attention(const CopyTrainer& trainer, const IdTensor& sequence) {
    const TeacherForcing split = teacher_forcing(sequence);
    const Seq2SeqStep step = seq2seq_forward(sequence, split.decoder_input, trainer.weights, trainer.options);
    return xt::view(step.transformer.decoder_layers.back().cross_attention.weights, 0);
}

NamedTensors training_run(const LessonInputs& inputs) {
    const std::size_t steps = size_input(inputs, "steps", 100000);
    SeededRun run = seeded_run(inputs, steps);
    const IdTensor sequences = as_ids(inputs.get_counts("sequences", 2, "(n_s, L)", 1, run.trainer.weights.src_embedding.shape(0) - 1));
    if (sequences.shape(0) > 64 || sequences.shape(1) > 64 || sequences.shape(1) < 2) {
        throw InputError("input 'sequences' has shape " + shape_string(sequences.shape()) +
                         "; the lesson decodes at most 64 sequences of 2 to 64 symbols");
    }
    const IdTensor first = xt::view(sequences, xt::range(0, 1), xt::all());
    const std::size_t V = run.trainer.weights.src_embedding.shape(0);
    NamedTensors out{{"attention_before", last_cross_attention(run.trainer, first)}};
    std::vector<double> losses;
    for (std::size_t s = 0; s < steps; ++s) {
        losses.push_back(train_step(run.trainer, copy_batch(run.generator, run.batch, run.length, V)).loss);
    }
    Vector first_losses = Vector::from_shape({std::min<std::size_t>(20, steps)});
    std::copy_n(losses.begin(), first_losses.size(), first_losses.begin());
    Vector every_50 = Vector::from_shape({steps / 50});
    for (std::size_t i = 0; i < every_50.size(); ++i) every_50(i) = losses[50 * (i + 1) - 1];
    Matrix decodes = Matrix::from_shape(sequences.shape());
    for (std::size_t n = 0; n < sequences.shape(0); ++n) {
        const IdTensor row = xt::view(sequences, xt::range(n, n + 1), xt::all());
        const std::vector<std::int64_t> decoded = greedy_copy(run.trainer.weights, run.trainer.options, row);
        std::copy(decoded.begin(), decoded.end(), &decodes(n, 0));
    }
    out["first_losses"] = first_losses;
    out["losses"] = every_50;
    out["decodes"] = decodes;
    out["attention_after"] = last_cross_attention(run.trainer, first);
    return out;
}

NamedTensors compute(const std::string& example, const LessonInputs& inputs) {
    if (example == "small" || example == "annotated") return parameter_counts(inputs);
    if (example == "loss" || example == "smoothing") return loss_of_rows(inputs);
    if (example == "forcing") return shifted_for_teacher_forcing(inputs);
    if (example == "adam") return adam_by_hand(inputs);
    if (example == "schedule") return schedule(inputs);
    if (example == "step") return one_training_step(inputs);
    return training_run(inputs);
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
