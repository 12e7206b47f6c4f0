// tutor/train/copy_evaluation.hpp — does the model copy? Greedy decoding of the copy-task model
// and its accuracy on fresh sequences.
//
// Why greedy decoding, not the training loss: during training the decoder reads the right
// previous symbol (teacher forcing); generating, it reads its own, so one early mistake spoils the
// rest. The Annotated Transformer's greedy_decode runs the encoder once and then the decoder one
// symbol at a time from the start symbol, taking the argmax each time (attn/generation.hpp, with
// a KV cache). A sequence counts as copied when every one of its L − 1 generated symbols is right.
//
// A trainer on the float32 path decodes with its float32 model, many sequences at once (the
// decoder rerun on the whole prefix at each symbol, no cache: at the Annotated Transformer's sizes
// one batched pass costs less than a thousand one-sequence passes in double).
//
//   auto decoded = attn::tutor::greedy_copy(weights, options, src_row);   // (L) ids, starting with 1
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "attn/embedding.hpp"
#include "attn/seq2seq_transformer.hpp"
#include "tutor/train/copy_training.hpp"

namespace attn::tutor {

/// The model's greedy decoding of one source sequence src (1, L): the start symbol, then L − 1
/// symbols, each the argmax of the logits given the ones before. InputError when src is not
/// (1, L) with L ≥ 2 or an id is outside the vocabulary.
std::vector<std::int64_t> greedy_copy(const Seq2SeqWeights& weights, const Seq2SeqOptions& options, const IdTensor& src);

/// The share of `count` fresh copy-task sequences of `length` symbols (drawn from `generator`
/// as copy_batch draws them) that greedy_copy copies exactly, in [0, 1].
double copy_accuracy(const Seq2SeqWeights& weights, const Seq2SeqOptions& options, std::mt19937& generator,
                     std::size_t count, std::size_t length);

/// The same on the trainer's model, on its path (the sequences drawn alike on both paths).
std::vector<std::int64_t> greedy_copy(const CopyTrainer& trainer, const IdTensor& src);
double copy_accuracy(const CopyTrainer& trainer, std::mt19937& generator, std::size_t count, std::size_t length);

}  // namespace attn::tutor
