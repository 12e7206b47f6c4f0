// attn/generation.hpp — lesson 9: generating tokens with a Transformer decoder, one at a time,
// with a KV cache in every layer, and greedy decoding.
//
// Why: a decoder generates by feeding its own output back in. Run as nn.TransformerDecoder runs,
// step t re-computes the whole prefix of t tokens through every layer; yet with the causal mask
// the first t − 1 rows come out exactly as they did at step t − 1. The cached step computes only
// the new token's row: its q, k, v in self-attention (k and v appended to the layer's KVCache,
// then attend), its q in cross-attention over the memory's keys and values (projected once, before
// the first token), the feed-forward network and the norms on that one row. Same numbers, a
// fraction of the work: greedy_decode and greedy_decode_without_cache give the same ids and logits.
//
// The model is the Annotated Transformer's decoder side (seed 003): token ids → embedding (V, D)
// scaled by √D → plus the sinusoidal table (attn/positions.hpp) → the decoder layers
// (attn/decoder_layer.hpp, causal self-attention) → the decoder's final norm → the generator,
// nn.Linear(D, V), whose output are the logits; greedy decoding takes the argmax as the next id.
//
// Shapes: B batch · n new tokens · P tokens so far · S memory positions · D model width · V vocabulary
//         h heads · g K/V heads · d_k = D / h
//   x_new (B, n, D)   memory (B, S, D), (1, S, D) for greedy decoding
//   cache: self_attention keys/values (B, g, P, d_k), memory_keys/values (B, g, S, d_k)
//   embedding, generator_weight (V, D)   generator_bias (V)   logits (steps, V)
//
//   attn::DecoderLayerOptions options(2);   options.causal = true;
//   auto cached = attn::greedy_decode(model, options, memory, /*start*/ 1, /*stop*/ 2, /*max*/ 20);
//   auto again = attn::greedy_decode_without_cache(model, options, memory, 1, 2, 20);
//   // cached.ids == again.ids; the logits differ by rounding only (≤ 3.3e-16 on the tests' models)
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "attn/decoder_layer.hpp"
#include "attn/kv_cache.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// What one decoder layer keeps between steps.
struct DecoderLayerCache {
    KVCache self_attention;               // (B, g, P, d_k): the self-attention keys and values so far
    Tensor4 memory_keys, memory_values;   // (B, g, S, d_k): cross-attention's, computed once from the memory
};

/// A layer's cache before the first token: the memory projected by the cross-attention's w_k, b_k
/// and w_v, b_v and split into kv_heads heads (0 = heads), and an empty self-attention cache with
/// as many K/V heads. ShapeError naming the weight or the memory that does not fit, InputError for
/// heads = 0 or kv_heads not dividing heads.
DecoderLayerCache start_decoder_layer_cache(const Tensor3& memory, const DecoderLayerWeights& weights, std::size_t heads,
                                            std::size_t kv_heads = 0);

/// Every intermediate of one cached step of a layer, for the n new tokens only.
struct DecoderLayerCachedStep {
    Tensor3 self_attention_input;           // (B, n, D) x_new (post-norm) or norm1(x_new) (pre-norm)
    CachedAttentionResult self_attention;   // over the P cached positions: weights (B, h, n, P)
    Tensor3 self_attention_output;          // (B, n, D) the heads merged, through W_o
    Tensor3 after_self_attention;           // (B, n, D) norm1(x + self) (post-norm) or x + self (pre-norm)
    Tensor3 cross_attention_input;          // (B, n, D) after_self_attention or norm2(after_self_attention)
    Tensor4 cross_attention_weights;        // (B, h, n, S) over the memory, no causal mask
    Tensor3 cross_attention_output;         // (B, n, D)
    Tensor3 after_cross_attention;          // (B, n, D)
    Tensor3 ffn_output;                     // (B, n, D) the feed-forward network on its input
    Tensor3 output;                         // (B, n, D) what the next layer reads
};

/// One decoder layer on the new token(s) x_new: the matching rows of transformer_decoder_layer
/// with options.causal on the whole prefix (the n new tokens are the prefix's last n). Appends
/// their keys and values to cache.self_attention first (the new tokens see themselves; several
/// at once are masked bottom-right). options.causal must be true (the cache is causal by
/// construction); tgt_mask, tgt_attention_mask and memory_mask are refused (InputError), the
/// memory's padding mask memory_attention_mask (B, S) applies. ShapeError naming the tensor that
/// does not fit (x_new, a weight, the cache), InputError for a value that is not finite.
DecoderLayerCachedStep decoder_layer_step(const Tensor3& x_new, DecoderLayerCache& cache,
                                          const DecoderLayerWeights& weights, const DecoderLayerOptions& options);

/// A decoder-only view of a seq2seq Transformer: what turns the tokens so far into the next
/// token's logits, given the encoder's output (the memory).
struct DecoderModel {
    Matrix embedding;                        // (V, D): nn.Embedding's weight, looked up and scaled by √D
    std::vector<DecoderLayerWeights> layers; // nn.TransformerDecoder's layers
    std::pair<Vector, Vector> final_norm;    // (D), (D): its norm (weight, bias), with options.eps
    Matrix generator_weight;                 // (V, D): nn.Linear(D, V)
    Vector generator_bias;                   // (V)
};

/// The ids a greedy decoding chose and the logits it chose them from.
struct GreedyDecoding {
    std::vector<std::int64_t> ids;  // the generated ids: start_id not included, stop_id included when reached
    Matrix logits;                  // (steps, V): row i is what ids[i] is the argmax of
};

/// Greedy decoding with a KV cache in every layer: feed start_id at position 0, take the argmax of
/// the logits as the next id, feed it, … until stop_id is chosen or max_tokens ids are generated.
/// options as for transformer_decoder (causal must be true; memory_attention_mask (1, S) applies).
/// ShapeError when memory is not (1, S, D) or a weight does not fit (named), InputError when
/// start_id or stop_id is not an id of the vocabulary [0, V).
GreedyDecoding greedy_decode(const DecoderModel& model, const DecoderLayerOptions& options, const Tensor3& memory,
                             std::int64_t start_id, std::int64_t stop_id, std::size_t max_tokens);

/// The same loop without a cache: at every step the whole prefix runs through
/// transformer_decoder, and the last position's logits choose — what nn.TransformerDecoder offers.
GreedyDecoding greedy_decode_without_cache(const DecoderModel& model, const DecoderLayerOptions& options,
                                           const Tensor3& memory, std::int64_t start_id, std::int64_t stop_id,
                                           std::size_t max_tokens);

}  // namespace attn
