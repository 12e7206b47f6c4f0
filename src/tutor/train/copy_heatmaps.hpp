// tutor/train/copy_heatmaps.hpp — where the copy-task model looks: its decoder's cross-attention
// while it copies one sequence, read from the forward pass.
//
// Why: the loss and the accuracy say that the model copies; the cross-attention shows how. Each
// row is one step of greedy decoding: the decoder at target position t, reading the symbol it
// wrote at t (the start symbol at 0), chooses the symbol of position t + 1. Before training the
// rows are spread over the source without a pattern; after training each row looks mostly at the
// source symbol it is about to write, source position t + 1: a diagonal one place right of the
// main one. The rows are the model's own greedy decode, so every row is a step it took; the decode
// runs the sequence's whole length (greedy_copy stops at the padding symbol 0, which stands in for
// a stop symbol; here a 0 written midway is read on like any other symbol, so an untrained model
// still gets a full picture).
//
//   auto seen = attn::tutor::copy_attention(weights, options, src);   // src (1, L)
//   seen.cross_attention.back();     // (1, h, L − 1, L): the last decoder layer
//   std::cout << attn::tutor::render_copy_heatmap(terminal, seen, std::nullopt, caption);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/seq2seq_transformer.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

struct CopyAttention {
    std::vector<std::int64_t> source;      // S ids: what the encoder read
    std::vector<std::int64_t> decoded;     // the greedy decode: S ids, the start symbol first
    std::vector<Tensor4> cross_attention;  // one per decoder layer: (1, h, T, S), T = S − 1
};

/// The ids of `text` (--sequence "1 2 3 …"), split at whitespace, as a (1, S) tensor. InputError
/// naming --sequence and `vocabulary_owner` (the checkpoint) for a word that is not a whole number
/// 0 … vocabulary − 1, and for fewer than 2 or more than `longest` ids.
IdTensor parse_copy_sequence(const std::string& text, std::size_t vocabulary, std::size_t longest,
                             const std::string& vocabulary_owner);

/// Greedy-decodes src (1, S) from the start symbol 1, S − 1 symbols, and keeps every decoder
/// layer's cross-attention weights from the forward on (src, the decode without its last symbol).
/// InputError when src is not (1, S) with S ≥ 2 or holds an id outside the vocabulary (named).
CopyAttention copy_attention(const Seq2SeqWeights& weights, const Seq2SeqOptions& options, const IdTensor& src);

/// The labels of the grid, in order: the rows "read→wrote" ("1→7": at position 0 the decoder read
/// the start symbol and wrote 7), the columns the source's ids.
std::vector<std::string> copy_query_labels(const CopyAttention& seen);
std::vector<std::string> copy_key_labels(const CopyAttention& seen);

/// The (T, S) grid of decoder layer `layer` (below cross_attention.size()): head `head`'s
/// weights, or the mean of the heads' when no head is given. InputError when the head is not below h.
Matrix copy_attention_grid(const CopyAttention& seen, std::size_t layer, std::optional<std::size_t> head);

/// InputError naming --heatmap-head unless `head` is empty or below `heads`.
void check_heatmap_head(std::optional<std::size_t> head, std::size_t heads);

/// The rows of the last layer's grid whose largest weight is on source position t + 1, the
/// symbol a copy writes at step t (the diagonal right of the main one), and the rows in all.
std::pair<std::size_t, std::size_t> rows_reading_next_symbol(const CopyAttention& seen, std::optional<std::size_t> head);

/// What attn train copy prints before (`trained` false) and after training: a caption saying
/// which layer and head (or the heads' mean) and what the axes are, the last layer's grid drawn
/// with render_heatmap, and how many rows look hardest at the symbol they wrote.
std::string render_copy_heatmap(const Terminal& terminal, const CopyAttention& seen, std::optional<std::size_t> head,
                                bool trained);

}  // namespace attn::tutor
