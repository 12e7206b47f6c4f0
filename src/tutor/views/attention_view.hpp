// tutor/views/attention_view.hpp — the attention weights that `attn heatmap` and `attn view` draw:
// read from a .npy file and checked, or computed from a sentence with untrained multi-head
// self-attention; and the tokens that label them.
//
// Why: students understand attention by looking at it, and they look at two kinds of weights —
// the ones of a model they built elsewhere (PyTorch: `np.save("weights.npy", w.numpy())`), and a
// quick picture of a sentence of their own. A weights file is checked before anything is drawn,
// because a picture of the wrong tensor (scores before the softmax, a transposed matrix, PyTorch's
// NaN rows) looks plausible and teaches the wrong thing.
//
// A sentence's weights are deterministic everywhere: each token's embedding is drawn from
// std::mt19937_64 seeded with a stable hash (FNV-1a, 64 bits) of its UTF-8 bytes, so a word has
// the same vector in every run and every build; the sinusoidal positions of attn/positions.hpp
// are added; W_q, W_k, W_v are drawn from a generator seeded with `seed`. The normal values come
// from our own Box–Muller transform, not std::normal_distribution, whose algorithm differs between
// standard libraries.
// None of it is trained: the picture shows how attention is computed, not what a model learned.
//
//   auto tokens = attn::tutor::split_sentence("El perro va caminando sobre el pasto");  // 7 tokens
//   attn::Tensor4 w = attn::tutor::sentence_attention(tokens, {8, 64, 1});            // (1, 8, 7, 7)
//   attn::tutor::AttentionHeads heads = attn::tutor::select_sequence(w, 0);           // (8, 7, 7)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::tutor {

/// A row of weights may miss 1 by this much: float32 and half-precision exports round.
constexpr double row_sum_tolerance = 1e-2;

/// The largest tokens file read (4 MiB): far more than any sequence a picture can show.
constexpr std::size_t max_tokens_file_bytes = std::size_t(4) << 20;
/// The largest untrained model a sentence is run through: --d-model up to 4096, and up to 4096
/// words, checked before anything is allocated.
constexpr std::size_t max_sentence_d_model = 4096;
constexpr std::size_t max_sentence_tokens = 4096;

/// The untrained model that turns a sentence into weights.
struct SentenceModel {
    std::size_t heads = 8;      // h; must divide d_model
    std::size_t d_model = 64;   // D
    std::uint64_t seed = 0;     // seeds W_q, W_k, W_v (the embeddings depend on the tokens only)
};

/// The attention of one sequence: one (T, S) matrix of weights per head, and the labels of the
/// T queries and the S keys.
struct AttentionHeads {
    Tensor3 weights;                        // (h, T, S): head, query, key
    std::vector<std::string> query_tokens;  // T labels
    std::vector<std::string> key_tokens;    // S labels
};

/// The words of a sentence, split at whitespace, through printable_text. InputError when there are none.
std::vector<std::string> split_sentence(const std::string& sentence);

/// The tokens of a file, one per line (a final newline ends the last line; "\r\n" is accepted).
/// Lines are kept verbatim, spaces included, because tokenizers make tokens such as "▁the", but
/// through printable_text (attn/printable.hpp): control characters and invalid UTF-8 become U+FFFD.
/// InputError naming the path when it is not a regular file (a folder, a FIFO, a device), is
/// larger than max_tokens_file_bytes, cannot be read or holds no token.
std::vector<std::string> read_tokens(const std::string& path);

/// The tokens of `text` as read_tokens splits them; `name` ("the tokens file t.txt") for errors.
std::vector<std::string> parse_tokens(const std::string& text, const std::string& name);

/// FNV-1a over the bytes: the same 64-bit number for the same text on every machine
/// (std::hash makes no such promise).
std::uint64_t stable_text_hash(const std::string& text);

/// (T, D): row t is the embedding of tokens[t], D standard normal values seeded from its text.
Matrix token_embeddings(const std::vector<std::string>& tokens, std::size_t d_model);

/// (1, h, T, T): multi-head self-attention of the sentence's embeddings plus positions, with
/// W_q, W_k, W_v normal with standard deviation 1/√D (seeded by model.seed), zero biases and no
/// output projection. ShapeError when heads does not divide d_model; InputError with no tokens,
/// more than max_sentence_tokens or d_model above max_sentence_d_model.
Tensor4 sentence_attention(const std::vector<std::string>& tokens, const SentenceModel& model);

/// "(T, S)", "(B, T, S)" or "(B, h, T, S)": the legend of a weights tensor of rank 2, 3 or 4.
std::string weights_legend(std::size_t rank);

/// Throws InputError, naming `name` and the place, unless `weights` looks like attention weights:
/// rank 2 to 4 with no empty axis, finite values in [0, 1], and every row (the last axis) summing
/// to 1 within row_sum_tolerance — or to 0, a query whose keys were all masked.
void check_attention_weights(const DynamicTensor& weights, const std::string& name);

/// Reads a weights tensor from a .npy file and checks it (check_attention_weights).
DynamicTensor read_attention_weights(const std::string& path);

/// Sequence `item` of a checked weights tensor, as one matrix per head: a rank-2 tensor is one
/// head of one sequence, rank 3 one head per sequence. Labels are 0, 1, 2, … .
/// InputError when `item` is not below B.
AttentionHeads select_sequence(const DynamicTensor& weights, std::size_t item, const std::string& name = "the weights");

/// Labels the queries with `query_tokens` and the keys with `key_tokens`, or with `query_tokens`
/// too when no key tokens are given (self-attention, T = S). The names say where each came from
/// ("tokens.txt", "weights.npy (1, 8, 7, 7) (B, h, T, S)"): a count that does not match is an
/// InputError naming both counts and the shape.
void label_with_tokens(AttentionHeads& heads, const std::string& weights_name, const std::vector<std::string>& query_tokens,
                       const std::string& query_tokens_name, const std::vector<std::string>& key_tokens = {},
                       const std::string& key_tokens_name = "");

}  // namespace attn::tutor
