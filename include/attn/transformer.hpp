// attn/transformer.hpp — lessons/09: the whole Transformer of the paper, torch.nn.Transformer.
//
// Why: the two stacks together. The encoder (lessons/06-encoder-layer) reads the source once and
// its output, the memory, is what every decoder layer's cross-attention reads (attn/decoder_layer.hpp):
//
//   memory = encoder.norm(encoder layers(src))          src (B, S, D) → memory (B, S, D)
//   output = decoder.norm(decoder layers(tgt, memory))  tgt (B, T, D) → output (B, T, D)
//
// nn.Transformer gives both stacks a final layer norm, post-norm and norm_first alike (a post-norm
// nn.TransformerEncoder built alone has none; here both are always there). Its eps is the layers'
// layer_norm_eps; final_norm_eps sets another one for both, as a model built from its parts may have.
//
// With the same weights it computes what torch.nn.Transformer(D, h, N_enc, N_dec, F, dropout=0.0,
// batch_first=True, norm_first=…, activation=…)(src, tgt, src_mask, tgt_mask, memory_mask,
// src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask) computes. As there, the
// source's padding is given twice: src_attention_mask to the encoder's self-attention and
// memory_attention_mask to the decoder's cross-attention (usually the same matrix); one without
// the other leaves the padded source positions visible to that stack. options.dropout, for
// training, is every layer's (attn/encoder_layer.hpp, attn/decoder_layer.hpp); the final norms
// have none, as in nn.Transformer.
//
// Shapes: B batch · S source positions · T target positions · D model width · h heads
//   src (B, S, D) · tgt (B, T, D) · memory, the encoder's output (B, S, D) · output (B, T, D)
//   src_mask (1 or B·h, S, S) · tgt_mask (1 or B·h, T, T) · memory_mask (1 or B·h, T, S): additive
//   src_attention_mask (B, S) · tgt_attention_mask (B, T) · memory_attention_mask (B, S): 1 = attend
//
//   attn::TransformerOptions options(8);
//   options.causal = true;                        // tgt_mask = generate_square_subsequent_mask(T)
//   options.src_attention_mask = options.memory_attention_mask = source_padding;   // (B, S)
//   auto r = attn::transformer(src, tgt, weights, options);   // r.memory (B, S, D), r.output (B, T, D)
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "attn/decoder_layer.hpp"
#include "attn/encoder_layer.hpp"

namespace attn {

struct TransformerWeights {
    std::vector<EncoderLayerWeights> encoder_layers;   // PyTorch's encoder.layers.N.*
    std::pair<Vector, Vector> encoder_norm;            // encoder.norm.weight, encoder.norm.bias (D)
    std::vector<DecoderLayerWeights> decoder_layers;   // decoder.layers.N.*
    std::pair<Vector, Vector> decoder_norm;            // decoder.norm.weight, decoder.norm.bias (D)
};

struct TransformerOptions {
    TransformerOptions() = default;
    explicit TransformerOptions(std::size_t heads) : heads(heads) {}

    /// h, nn.Transformer's nhead, in every layer of both stacks: required (0 = not set, an InputError).
    std::size_t heads = 0;
    bool norm_first = false;                   // pre-norm layers when true
    double eps = default_layer_norm_eps;       // every layer's norms, > 0 (PyTorch's layer_norm_eps)
    Activation activation = Activation::relu;
    std::optional<double> final_norm_eps;      // encoder.norm's and decoder.norm's eps; absent: eps
    std::optional<Tensor3> src_mask;               // (1 or B·h, S, S) added to the encoder's scores
    std::optional<Matrix> src_attention_mask;      // (B, S) 1 = attend: src_key_padding_mask negated
    bool causal = false;                           // the decoder's self-attention hides the future
    std::optional<Tensor3> tgt_mask;               // (1 or B·h, T, T)
    std::optional<Matrix> tgt_attention_mask;      // (B, T): tgt_key_padding_mask negated
    std::optional<Tensor3> memory_mask;            // (1 or B·h, T, S)
    std::optional<Matrix> memory_attention_mask;   // (B, S): memory_key_padding_mask negated
    Dropout dropout;   // training's dropout in every layer (nn.Transformer's dropout=p); off by default
};

struct TransformerResult {
    Tensor3 memory;  // (B, S, D) the encoder stack's output, after encoder.norm
    Tensor3 output;  // (B, T, D) the decoder stack's output, after decoder.norm
};

/// nn.Transformer's forward. Throws ShapeError naming src or tgt when their batch sizes or widths
/// disagree or a size is zero, and whatever transformer_encoder_layer and transformer_decoder_layer
/// throw for the weights and masks; InputError for heads not set or an eps ≤ 0.
TransformerResult transformer(const Tensor3& src, const Tensor3& tgt, const TransformerWeights& weights,
                              const TransformerOptions& options);

}  // namespace attn
