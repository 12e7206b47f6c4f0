// attn/fast/seq2seq_training.hpp — lesson 11's encoder-decoder model (attn/seq2seq_transformer.hpp)
// trained in float32: the fast path's training step, for the Annotated Transformer's own sizes.
//
// Why a second training step: the lesson path's (tutor/train/copy_training.hpp) computes in double
// with one readable tensor per intermediate — exact against PyTorch, and fine for a class-sized
// model, but at d_model 512, d_ff 2048 and batch 80 it is far slower than PyTorch's float32 run.
// This one computes the same step in PyTorch's dtype, the way PyTorch's own kernels do:
//
//   parameters   one float32 buffer in nn.Transformer's named_parameters order, then src_embed,
//                tgt_embed, generator (attn/seq2seq_parameters.hpp: the same slots, the same names);
//                the gradients in a buffer of the same layout, zeroed at each step
//   forward      embeddings × √D + PE; per layer LayerNorm, lesson 10's tiled attention for training
//                (attn/fast/multi_head_attention_backward.hpp; causal in the decoder), LayerNorm,
//                nn.Linear (cblas_sgemm) + ReLU + nn.Linear; the final norms; the generator —
//                keeping what the backward reads (normalised rows and their statistics, the ReLU's
//                output, the attention's q, k, v, context and log-sum-exp)
//   loss         the Annotated Transformer's LabelSmoothing KL form (attn/cross_entropy.hpp), padding
//                rows skipped, divided by the scored tokens; its gradient (p − q) / counted
//   backward     the chain the other way, a residual's gradient the sum of its two paths, the memory's
//                the sum of every cross-attention's key and value gradients
//   update       Adam in torch 1.13's form (attn/adam.hpp) over the flat buffer, at the rate of
//                LambdaLR: update k uses noam_learning_rate(k − 1, …) (attn/learning_rate.hpp)
//
// Work is split over the fast path's worker pool (attn/fast/threads.hpp): the products by rows,
// the LayerNorm rows and Adam's values by blocks. The numbers depend on the thread count only
// through float rounding; a run is reproducible for a given thread count. Buffers are kept from
// step to step.
//
// Dropout (options.dropout = p, when a generator is given to the step): where nn.Transformer drops
// (after embeddings + positions, the attention weights, each attention's output, the feed-forward's
// hidden layer and its output), with the double path's masks — drawn from the caller's
// std::mt19937 by the same recipe in the same order (attn/dropout.hpp) — so the two paths trained
// from one seed drop the same values. The attention weights are never stored, so their mask is:
// B·h·T·S floats per attention (the one (T, S)-sized buffer of a step). No generator: no dropout.
//
// Shapes: B batch · S source positions · T target positions · D model width · V vocabulary
//   src (B, S) · decoder_input (B, T) · targets (B, T) ids in 0 … V − 1
//
//   attn::fast::Seq2SeqTrainer trainer(weights, options);            // from double weights
//   auto step = trainer.train_step(src, tgt_in, tgt_out);            // step.loss, step.learning_rate
//   attn::Seq2SeqWeights trained = trainer.weights();                // back to double, for --save
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>

#include "attn/embedding.hpp"
#include "attn/seq2seq_transformer.hpp"

namespace attn::fast {

struct Seq2SeqTrainingOptions {
    std::size_t heads = 0;               // h; must divide D
    double layer_norm_eps = 1e-5;        // every nn.LayerNorm's eps
    std::size_t warmup = 400;            // the rate's warm-up steps
    double lr_factor = 1.0;              // the rate's factor (Adam's own lr is 1)
    double label_smoothing = 0.0;        // ε of the loss, in [0, 1)
    std::int64_t padding_index = 0;      // targets with this id are not scored and get no smoothing
    double beta1 = 0.9, beta2 = 0.98;    // the Annotated Transformer's Adam
    double adam_eps = 1e-9;
    double dropout = 0;                  // p, from 0 to 1; applied when a step is given a generator
};

struct Seq2SeqStepResult {
    double loss = 0;           // before the update
    double learning_rate = 0;  // the rate the update used
};

class Seq2SeqTrainer {
public:
    /// Copies `initial` into float32. InputError when heads is 0 or does not divide D, ε is outside
    /// [0, 1), the padding index outside the vocabulary or dropout outside [0, 1]; what
    /// seq2seq_parameter_slots throws.
    Seq2SeqTrainer(const Seq2SeqWeights& initial, const Seq2SeqTrainingOptions& options);
    ~Seq2SeqTrainer();
    Seq2SeqTrainer(Seq2SeqTrainer&&) noexcept;
    Seq2SeqTrainer& operator=(Seq2SeqTrainer&&) noexcept;

    /// The forward, the loss and the backward on one batch: gradients() holds this batch's
    /// gradients alone. Returns the loss. InputError naming src, decoder_input or targets when an
    /// id is outside the vocabulary, ShapeError when their shapes disagree, InputError when every
    /// target is padding or the loss is not finite. With options.dropout > 0 and a generator, the
    /// step's dropout masks are drawn from it first.
    double loss_and_gradients(const IdTensor& src, const IdTensor& decoder_input, const IdTensor& targets,
                              std::mt19937* dropout_generator = nullptr);

    /// loss_and_gradients, then one Adam update of every parameter.
    Seq2SeqStepResult train_step(const IdTensor& src, const IdTensor& decoder_input, const IdTensor& targets,
                                 std::mt19937* dropout_generator = nullptr);

    /// Greedy decoding of each row of src: (B, length) ids, the first `start`, each next one the
    /// argmax of the generator at the last position. InputError for ids outside the vocabulary.
    IdTensor greedy_decode(const IdTensor& src, std::int64_t start, std::size_t length);

    Seq2SeqWeights weights() const;    // the parameters in double, in the library's structure
    Seq2SeqWeights gradients() const;  // the last loss_and_gradients' gradients, the same way
    std::size_t parameter_count() const;
    std::size_t updates() const;       // Adam steps taken

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace attn::fast
