// tutor/train/copy_files.hpp — what `attn train copy` reads and writes for a comparison run:
// initial weights (--init), the batches (--data) and each step's loss and learning rate (--log).
//
// Why: a teacher who wants to show that the C++ training is PyTorch's runs both from the same
// weights on the same batches and compares the losses step by step (llm.c's test_gpt2 does the
// same). The files are PyTorch's usual exports: numpy.savez of the state_dict (nn.Transformer's
// names, plus src_embed.weight, tgt_embed.weight, generator.weight, generator.bias), numpy.savez
// of src and tgt as integer arrays (steps, B, L), and a JSON list of the steps.
//
//   auto weights = attn::tutor::read_copy_weights("model.npz", sizes, heads);
//   auto batches = attn::tutor::read_copy_batches("batches.npz", sizes.vocabulary);
//   std::string json = attn::tutor::training_log_json(results);   // {"steps": [{"step": 1, …}, …]}
//   std::string npz = attn::tutor::copy_checkpoint_npz(trainer.weights, trainer.options);  // --save
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tutor/train/copy_task.hpp"
#include "tutor/train/copy_training.hpp"

namespace attn::tutor {

/// The weights of a state_dict archive for a model of these sizes (weights_from_state_dict).
/// InputError naming the file for anything unreadable, missing, misshapen or unknown.
/// An attn_config member (an archive --save wrote) is read and must agree with `heads`.
Seq2SeqWeights read_copy_weights(const std::string& path, const Seq2SeqSizes& sizes, std::size_t heads);

/// A model and its settings, read from a checkpoint.
struct CopyCheckpoint {
    Seq2SeqWeights weights;
    Seq2SeqOptions options;
};

/// A checkpoint --save wrote, or any archive of the same names with an attn_config: the sizes
/// come from the tensors' shapes (src_embed.weight (V, D), the layers numbered under
/// encoder.layers. and decoder.layers., linear1.weight (F, D)), the heads, norm_first and eps from
/// the config. InputError naming the file and what is missing or wrong: no src_embed.weight, no
/// attn_config or no heads in it, an activation other than relu, norm_eps other than eps, and
/// whatever weights_from_state_dict refuses.
CopyCheckpoint read_copy_checkpoint(const std::string& path);

/// The batches of an archive holding src and tgt, integer arrays of one shape (steps, B, L) with
/// L ≥ 2, every value an id 0 … vocabulary − 1. InputError naming the file, the member and the
/// first value that is wrong (with its index) otherwise.
std::vector<CopyBatch> read_copy_batches(const std::string& path, std::size_t vocabulary);

/// The trained model as --save writes it, an archive read_copy_weights and `attn compute
/// transformer` read and PyTorch loads: every parameter under its state_dict name in PyTorch's
/// shape (attn/seq2seq_parameters.hpp), float32 as PyTorch keeps them, and the member attn_config
/// (tutor/compute/model_config.hpp: heads, norm_first, activation relu, eps, norm_eps as UTF-8
/// JSON bytes in a uint8 array).
std::string copy_checkpoint_npz(const Seq2SeqWeights& weights, const Seq2SeqOptions& options);

/// {"steps": [{"step": 1, "loss": …, "learning_rate": …}, …]}, numbers with 17 significant digits.
std::string training_log_json(const std::vector<TrainingStepResult>& steps);

}  // namespace attn::tutor
