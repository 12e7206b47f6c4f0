// attn/seq2seq_transformer.hpp — lesson 11: the whole encoder-decoder model, from token ids to
// the logits of the next token (the Annotated Transformer's EncoderDecoder, on nn.Transformer).
//
// Why: training needs one function from the ids to the loss's input, and one back from the loss's
// gradient to every parameter. The model is what lessons 6–9 built, put end to end:
//
//   src_x  = src_embedding[src] · √D + PE            (B, S) ids → (B, S, D)   attn/embedding.hpp,
//   tgt_x  = tgt_embedding[tgt] · √D + PE            (B, T) ids → (B, T, D)   attn/positions.hpp
//   output = transformer(src_x, tgt_x), causal       (B, T, D)                attn/transformer.hpp
//   logits = output generator_weightᵀ + generator_bias   (B, T, V)            attn/linear.hpp
//
// The Annotated Transformer's layers are pre-norm with a final norm after each stack: norm_first
// is the default here. Its LayerNorm (unbiased std, eps added to the std) is replaced by
// nn.LayerNorm, so that the model is exactly PyTorch's nn.Transformer(norm_first=True) plus two
// nn.Embedding and an nn.Linear. The decoder's self-attention is causal; there are no padding
// masks (the copy task never pads its sequences).
//
// Dropout, for training (attn/dropout.hpp), goes where nn.Transformer(dropout=p) and the Annotated
// Transformer's PositionalEncoding put it: on both embedded sequences after the positions are
// added, on every attention's weights, on the feed-forward networks' hidden layers after the
// activation, and on every sub-layer's output before its residual add. options.dropout is p; the
// masks are drawn only when the forward is given a generator (training), from it, in the order
// the model runs them (src's embedding, tgt's, then the layers), and kept in the step for the
// backward. Without a generator, or with p = 0, nothing is drawn and the forward is PyTorch's with
// dropout=0 or in eval mode, bit for bit what it was without dropout.
//
// The backward (attn/seq2seq_transformer_backward.hpp) runs the same chain the other way; the
// parameters flatten into one buffer for the optimiser (attn/seq2seq_parameters.hpp).
//
// Shapes: B batch · S source positions · T target positions · D model width · V vocabulary
//   src (B, S) · tgt (B, T) ids in 0 … V − 1 · embeddings, generator_weight (V, D) ·
//   generator_bias (V) → logits (B, T, V)
//
//   attn::Seq2SeqOptions options(2);                       // 2 heads
//   auto step = attn::seq2seq_forward(src, tgt_in, weights, options);
//   step.logits;                                            // (B, T, V)
//   step.transformer.decoder_layers[0].cross_attention.weights;   // (B, h, T, S)
//
//   options.dropout = 0.1;   std::mt19937 generator(seed);          // training
//   auto training = attn::seq2seq_forward(src, tgt_in, weights, options, &generator);
#pragma once

#include <cstddef>
#include <random>
#include <string>

#include "attn/dropout.hpp"
#include "attn/embedding.hpp"
#include "attn/layer_norm.hpp"
#include "attn/tensor.hpp"
#include "attn/transformer.hpp"
#include "attn/transformer_backward.hpp"

namespace attn {

struct Seq2SeqWeights {
    Matrix src_embedding;            // (V, D) src_embed.weight
    Matrix tgt_embedding;            // (V, D) tgt_embed.weight
    TransformerWeights transformer;  // nn.Transformer's encoder.* and decoder.*
    Matrix generator_weight;         // (V, D) generator.weight
    Vector generator_bias;           // (V) generator.bias
};

/// The sizes of a model: everything its weights' shapes are made of.
struct Seq2SeqSizes {
    std::size_t vocabulary = 0;      // V
    std::size_t d_model = 0;         // D
    std::size_t encoder_layers = 0;  // N
    std::size_t decoder_layers = 0;
    std::size_t d_ff = 0;            // F
};

struct Seq2SeqOptions {
    Seq2SeqOptions() = default;
    explicit Seq2SeqOptions(std::size_t heads) : heads(heads) {}

    std::size_t heads = 0;                 // h: required, as nn.Transformer's nhead
    bool norm_first = true;                // the Annotated Transformer's pre-norm layers
    double eps = default_layer_norm_eps;   // every nn.LayerNorm's eps
    /// Training's dropout probability p, 0 ≤ p ≤ 1 (nn.Transformer's dropout); used only when the
    /// forward is given a generator.
    double dropout = 0.0;
};

/// Every intermediate of the forward, what the backward reads.
struct Seq2SeqStep {
    Tensor3 src_embedded;          // (B, S, D) dropout(src_embedding[src] · √D + PE): the encoder's input
    Tensor3 tgt_embedded;          // (B, T, D) dropout(tgt_embedding[tgt] · √D + PE): the decoder's input
    DropoutMask<Tensor3> src_dropout;  // (B, S, D) the masks of those two dropouts; identity when nothing
    DropoutMask<Tensor3> tgt_dropout;  // (B, T, D) was drawn (the layers' masks are in .transformer)
    TransformerSteps transformer;  // every layer's intermediates; .output (B, T, D)
    Tensor3 logits;                // (B, T, V)
};

/// Weights of these sizes, every value zero: the shapes to fill (from a file, an initialiser).
/// InputError when a size is 0 or the model would hold more than max_tensor_values values in one
/// tensor.
Seq2SeqWeights zero_seq2seq_weights(const Seq2SeqSizes& sizes);

/// The sizes the weights have. ShapeError naming the first tensor that disagrees with them
/// (src_embedding fixes V and D; the first encoder layer's linear1_weight fixes F).
Seq2SeqSizes seq2seq_sizes(const Seq2SeqWeights& weights);

/// The ids (with a position each) embedded, scaled by √D and added to the sinusoidal positions.
/// InputError naming `ids_name` and the first id outside 0 … V − 1.
Tensor3 embed_with_positions(const Matrix& table, const IdTensor& ids, const std::string& ids_name);

/// The forward above; with a dropout_generator (training) and options.dropout > 0, every dropout's
/// mask drawn from it. Throws ShapeError naming src or tgt when their batch sizes differ,
/// InputError naming options.dropout when it is not in [0, 1], and what seq2seq_sizes and
/// transformer throw for the weights and options.
Seq2SeqStep seq2seq_forward(const IdTensor& src, const IdTensor& tgt, const Seq2SeqWeights& weights,
                            const Seq2SeqOptions& options, std::mt19937* dropout_generator = nullptr);

/// The options of the nn.Transformer inside: heads, norm_first, eps, and the causal decoder; its
/// dropout is `dropout` (off by default: the backward reads the masks from the step).
TransformerOptions transformer_options_of(const Seq2SeqOptions& options, const Dropout& dropout = {});

}  // namespace attn
