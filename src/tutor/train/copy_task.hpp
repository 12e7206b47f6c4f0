// tutor/train/copy_task.hpp — the Annotated Transformer's copy task: its data and its model's
// initial weights, drawn from one seed the way tools/make_copy_training_fixtures.py draws them.
//
// Why a recipe of our own instead of std::uniform_real_distribution: a run must be reproducible
// from its seed on every standard library and in PyTorch, and the distributions of <random> are
// not specified bit for bit. Every draw is a raw 32-bit output r of std::mt19937 (numpy's
// RandomState gives the same), read as u = (r + 0.5) / 2³² (tutor/lesson/seeded_uniform.hpp):
//
//   weights, in PyTorch's named_parameters order (attn/seq2seq_parameters.hpp):
//     every matrix Xavier-uniform, bound √(6 / (fan_in + fan_out)) — the Annotated Transformer's
//       make_model; in_proj_weight drawn as the (3D, D) matrix PyTorch holds;
//     the feed-forward and generator biases uniform in ±1/√fan_in, nn.Linear's default;
//     attention biases 0, norms 1 and 0, nothing drawn (nn.MultiheadAttention's, nn.LayerNorm's);
//   then each batch, (B, L) row-major: symbol 1 + ⌊u · (V − 1)⌋, so 1 … V − 1 (0 is padding,
//     never drawn); column 0 then set to 1, the start symbol (data_gen; its draw is still made).
//
// The copy task's source is its target: the model learns to read a sequence and write it back.
//
//   std::mt19937 generator(30);
//   auto weights = attn::tutor::initial_copy_weights(sizes, generator);
//   auto batch = attn::tutor::copy_batch(generator, 8, 10, sizes.vocabulary);   // batch.tgt (8, 10)
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attn/embedding.hpp"
#include "attn/npz.hpp"
#include "attn/seq2seq_transformer.hpp"

namespace attn::tutor {

constexpr std::int64_t copy_padding = 0;  // the padding id: never drawn, never scored
constexpr std::int64_t copy_start = 1;    // every sequence's first symbol

/// A batch of sequences: src, what the encoder reads, and tgt, what the decoder must produce, (B, L).
struct CopyBatch {
    IdTensor src;
    IdTensor tgt;
};

/// A model of these sizes with the weights of the recipe above, drawn from `generator`.
Seq2SeqWeights initial_copy_weights(const Seq2SeqSizes& sizes, std::mt19937& generator);

/// The next batch of the recipe above: B sequences of L symbols, src = tgt. InputError when
/// B or L is 0, or V < 3 (symbols besides the padding and the start are needed).
CopyBatch copy_batch(std::mt19937& generator, std::size_t batch, std::size_t length, std::size_t vocabulary);

/// A model of these sizes with the tensors of a state_dict archive (nn.Transformer's names plus
/// src_embed.weight, tgt_embed.weight, generator.weight, generator.bias). InputError naming
/// `archive` and the tensor that is missing, has another shape or is not a parameter of the model.
Seq2SeqWeights weights_from_state_dict(const std::vector<NpzMember>& members, const Seq2SeqSizes& sizes,
                                       const std::string& archive);

}  // namespace attn::tutor
