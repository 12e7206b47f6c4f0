// tutor/train/copy_training.hpp — one training step of the copy-task model, as the Annotated
// Transformer's run_epoch takes it, and the state it carries from step to step.
//
// Why these steps in this order: they are PyTorch's, so that the losses can be compared with
// PyTorch's run on the same weights and batches (tests/test_copy_training.cpp):
//
//   1. teacher forcing: the decoder reads tgt[:, :-1] and is scored on tgt[:, 1:] (Batch);
//   2. the forward (attn/seq2seq_transformer.hpp), with dropout when settings.dropout > 0 (its masks
//      from the trainer's own generator, so that the weights' and batches' draws stay the same with
//      and without it; PyTorch's masks differ, so comparisons run with dropout 0), and the loss:
//      LabelSmoothing's KL form over the vocabulary, padding 0 skipped, divided by the number of
//      scored tokens (attn/cross_entropy.hpp);
//   3. loss.backward(): the gradients of this step alone (zero_grad after every step, so nothing
//      is carried over), attn/seq2seq_transformer_backward.hpp;
//   4. optimizer.step(): Adam with β = (0.9, 0.98), ε = 1e-9 on every parameter (attn/adam.hpp),
//      at the rate of LambdaLR(rate): update k uses noam_learning_rate(k − 1, …), so updates 1 and 2
//      both use rate(1) (attn/learning_rate.hpp).
//
// Two paths compute these steps: the lesson path in double (the default, exact against PyTorch),
// or, with settings.float32, the fast path's float32 model (attn/fast/seq2seq_training.hpp), for
// the Annotated Transformer's own sizes. On the float32 path trainer.weights stays the initial
// model: current_weights(trainer) gives the trained one.
//
//   attn::tutor::CopyTrainer trainer(weights, settings);
//   auto result = attn::tutor::train_step(trainer, batch);   // result.loss, result.learning_rate
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <memory>

#include "attn/adam.hpp"
#include "attn/seq2seq_transformer.hpp"
#include "tutor/train/copy_task.hpp"

namespace attn::fast {
class Seq2SeqTrainer;
}

namespace attn::tutor {

/// What a training run is set to, besides the model's sizes.
struct TrainingSettings {
    std::size_t heads = 0;         // h
    std::size_t warmup = 400;      // the schedule's warm-up steps
    double lr_factor = 1.0;        // the schedule's factor (Adam's own lr is 1)
    double label_smoothing = 0.0;  // ε of the loss
    double dropout = 0.0;          // p of every dropout in training, 0 ≤ p < 1 (never in evaluation)
    std::uint32_t dropout_seed = 0;  // the seed of the dropout masks' std::mt19937
    bool float32 = false;          // the fast path's float32 model instead of the lesson path's double one
};

/// The model and the optimiser's memory: everything that changes from one step to the next.
struct CopyTrainer {
    CopyTrainer(Seq2SeqWeights initial, const TrainingSettings& settings);
    ~CopyTrainer();
    CopyTrainer(CopyTrainer&&) noexcept;

    Seq2SeqWeights weights;   // the double path's model (on the float32 path: the initial one)
    Seq2SeqOptions options;
    TrainingSettings settings;
    AdamState adam;           // adam.step: the updates made so far (double path)
    std::mt19937 dropout_generator;  // the dropout masks' draws, seeded with settings.dropout_seed
    std::unique_ptr<fast::Seq2SeqTrainer> float32;  // the float32 path's model and Adam, when settings.float32
};

/// The model as trained so far, in double: trainer.weights, or the float32 model's parameters.
Seq2SeqWeights current_weights(const CopyTrainer& trainer);

/// What one step measured.
struct TrainingStepResult {
    double loss = 0;           // before the update
    double learning_rate = 0;  // the rate the update used
};

/// Steps 1–4 above on one batch: the trainer's weights updated in place. InputError when the
/// batch's src and tgt differ in B, tgt has fewer than 2 positions, or an id is outside the vocabulary.
TrainingStepResult train_step(CopyTrainer& trainer, const CopyBatch& batch);

/// The decoder's input and the targets of teacher forcing: tgt[:, :-1] and tgt[:, 1:].
struct TeacherForcing {
    IdTensor decoder_input;  // (B, L − 1)
    IdTensor targets;        // (B, L − 1)
};
TeacherForcing teacher_forcing(const IdTensor& tgt);

}  // namespace attn::tutor
