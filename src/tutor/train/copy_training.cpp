// One training step of the copy-task model (tutor/train/copy_training.hpp).
#include "tutor/train/copy_training.hpp"

#include <utility>
#include <vector>

#include "attn/cross_entropy.hpp"
#include "attn/error.hpp"
#include "attn/fast/seq2seq_training.hpp"
#include "attn/learning_rate.hpp"
#include "attn/seq2seq_parameters.hpp"
#include "attn/seq2seq_transformer_backward.hpp"
#include "attn/shape.hpp"

namespace attn::tutor {

namespace {

fast::Seq2SeqTrainingOptions float32_options(const TrainingSettings& settings) {
    fast::Seq2SeqTrainingOptions options;
    options.heads = settings.heads;
    options.warmup = settings.warmup;
    options.lr_factor = settings.lr_factor;
    options.label_smoothing = settings.label_smoothing;
    options.padding_index = copy_padding;
    options.dropout = settings.dropout;  // masks from the trainer's dropout_generator, as the double path's
    return options;
}

}  // namespace

CopyTrainer::CopyTrainer(Seq2SeqWeights initial, const TrainingSettings& settings)
    : weights(std::move(initial)), options(settings.heads), settings(settings), dropout_generator(settings.dropout_seed) {
    options.dropout = settings.dropout;
    if (settings.float32) float32 = std::make_unique<fast::Seq2SeqTrainer>(weights, float32_options(settings));
}

CopyTrainer::~CopyTrainer() = default;
CopyTrainer::CopyTrainer(CopyTrainer&&) noexcept = default;

Seq2SeqWeights current_weights(const CopyTrainer& trainer) {
    return trainer.float32 ? trainer.float32->weights() : trainer.weights;
}

TeacherForcing teacher_forcing(const IdTensor& tgt) {
    if (tgt.shape(0) == 0 || tgt.shape(1) < 2) {
        throw InputError("teacher_forcing: tgt has shape " + shape_string(tgt.shape()) +
                         "; it needs at least one sequence of at least 2 symbols (one to read, one to predict)");
    }
    const std::size_t B = tgt.shape(0), T = tgt.shape(1) - 1;
    TeacherForcing split{IdTensor::from_shape({B, T}), IdTensor::from_shape({B, T})};
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            split.decoder_input(b, t) = tgt(b, t);  // what the decoder reads at position t …
            split.targets(b, t) = tgt(b, t + 1);    // … is scored on the symbol after it
        }
    }
    return split;
}

TrainingStepResult train_step(CopyTrainer& trainer, const CopyBatch& batch) {
    const TeacherForcing split = teacher_forcing(batch.tgt);
    if (trainer.float32) {
        const fast::Seq2SeqStepResult step =
            trainer.float32->train_step(batch.src, split.decoder_input, split.targets, &trainer.dropout_generator);
        return {step.loss, step.learning_rate};
    }
    // Training: the forward draws its dropout masks (none when settings.dropout is 0).
    const Seq2SeqStep forward =
        seq2seq_forward(batch.src, split.decoder_input, trainer.weights, trainer.options, &trainer.dropout_generator);
    const std::size_t B = forward.logits.shape(0), T = forward.logits.shape(1);

    CrossEntropyOptions loss_options;
    loss_options.padding_index = copy_padding;
    loss_options.label_smoothing = trainer.settings.label_smoothing;
    const std::vector<std::int64_t> targets(split.targets.begin(), split.targets.end());
    const CrossEntropyResult loss = cross_entropy(rows_of(forward.logits), targets, loss_options);

    const Tensor3 grad_logits = positions_of(cross_entropy_backward(loss), B, T);
    const Seq2SeqWeights gradients =
        seq2seq_backward(batch.src, split.decoder_input, trainer.weights, trainer.options, forward, grad_logits);

    AdamOptions adam;
    adam.learning_rate = noam_learning_rate(trainer.adam.step, trainer.weights.src_embedding.shape(1),
                                            trainer.settings.lr_factor, trainer.settings.warmup);
    adam.beta1 = 0.9;
    adam.beta2 = 0.98;
    adam.eps = 1e-9;
    std::vector<double> parameters = flatten_parameters(trainer.weights);
    adam_step(parameters, flatten_parameters(gradients), trainer.adam, adam);
    unflatten_parameters(parameters, trainer.weights);
    return {loss.loss, adam.learning_rate};
}

}  // namespace attn::tutor
