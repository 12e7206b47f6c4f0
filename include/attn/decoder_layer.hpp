// attn/decoder_layer.hpp — lessons/09: a Transformer decoder layer, and a stack of them.
//
// Why: the decoder is the encoder layer (lessons/06-encoder-layer) with one sub-layer more. Its
// self-attention is masked (a position must not read the tokens after it, which it is about to
// produce), and between self-attention and the feed-forward network sits cross-attention: the
// queries come from the decoder, the keys and values from the encoder's output, the "memory".
// Three sub-layers, each wrapped in a residual connection and a layer norm:
//
//   post-norm (PyTorch's default):  x = norm1(x + self_attention(x))
//                                   x = norm2(x + cross_attention(x, memory))
//                                   x = norm3(x + ffn(x))
//   pre-norm (norm_first):          x = x + self_attention(norm1(x))
//                                   x = x + cross_attention(norm2(x), memory)
//                                   x = x + ffn(norm3(x))
//
// The memory is used as it is, never normed by the decoder. Cross-attention has T queries and S
// keys (T ≠ S in general) and no causal mask: every decoder position may read the whole source.
// With T = 1 it is lessons 1–3's decoder state attending over the encoder outputs.
//
// With the same weights it computes what torch.nn.TransformerDecoderLayer(D, h, F, dropout=0.0,
// batch_first=True, norm_first=…, activation=…) computes: self_attn.* is self_attention,
// multihead_attn.* is cross_attention (in_proj_weight (3D, D) split row-wise by split_in_proj).
// For training, options.dropout drops out where that layer's dropout=p does (attn/dropout.hpp):
// both attentions' weights, the feed-forward network's hidden layer after the activation, and
// each sub-layer's output before its residual add (dropout1, dropout2, dropout3).
//
// Shapes: B batch · T target positions · S memory positions · D model width · h heads ·
// F feed-forward width
//   tgt (B, T, D) · memory (B, S, D) · attention weights (D, D), biases (D) · norm weights and
//   biases (D) · linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) · linear2_bias (D)
//   tgt_mask (1 or B·h, T, T) · memory_mask (1 or B·h, T, S): added to the scores (PyTorch's float masks)
//   tgt_attention_mask (B, T) · memory_attention_mask (B, S): 1 = attend, 0 = padding
//
//   attn::DecoderLayerOptions options(2);   // 2 heads: required, as nn.TransformerDecoderLayer's nhead
//   options.causal = true;                  // tgt_mask = nn.Transformer.generate_square_subsequent_mask(T)
//   auto step = attn::transformer_decoder_layer(tgt, memory, weights, options);
//   step.output;                      // (B, T, D)
//   step.cross_attention.weights;     // (B, h, T, S): which memory positions each target position read
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "attn/feed_forward.hpp"
#include "attn/layer_norm.hpp"
#include "attn/multi_head_attention.hpp"

namespace attn {

struct DecoderLayerWeights {
    MultiHeadAttentionWeights self_attention;   // PyTorch's self_attn.*
    MultiHeadAttentionWeights cross_attention;  // PyTorch's multihead_attn.*
    Vector norm1_weight, norm1_bias;            // (D) around self-attention
    Vector norm2_weight, norm2_bias;            // (D) around cross-attention
    Vector norm3_weight, norm3_bias;            // (D) around the feed-forward network
    Matrix linear1_weight;                      // (F, D)
    Vector linear1_bias;                        // (F)
    Matrix linear2_weight;                      // (D, F)
    Vector linear2_bias;                        // (D)
};

struct DecoderLayerOptions {
    DecoderLayerOptions() = default;
    explicit DecoderLayerOptions(std::size_t heads) : heads(heads) {}

    /// h, nn.TransformerDecoderLayer's nhead: required (0 = not set, an InputError).
    std::size_t heads = 0;
    bool norm_first = false;                  // pre-norm when true
    double eps = default_layer_norm_eps;      // layer norm eps, > 0 (PyTorch's layer_norm_eps)
    Activation activation = Activation::relu;
    /// Self-attention hides the future: query t sees keys 0 … t, as PyTorch's
    /// tgt_mask = generate_square_subsequent_mask(T). Never applied to cross-attention.
    bool causal = false;
    std::optional<Tensor3> tgt_mask;                // (1 or B·h, T, T) added to the self-attention scores
    std::optional<Matrix> tgt_attention_mask;       // (B, T) 1 = attend: tgt_key_padding_mask negated
    std::optional<Tensor3> memory_mask;             // (1 or B·h, T, S) added to the cross-attention scores
    std::optional<Matrix> memory_attention_mask;    // (B, S) 1 = attend: memory_key_padding_mask negated
    Dropout dropout;                                // training's dropout (nn.TransformerDecoderLayer's); off by default
};

/// Every intermediate of one layer, in the order they are computed. The dropout masks are the
/// identity (nothing drawn) when options.dropout is off.
struct DecoderLayerStep {
    Tensor3 self_attention_input;         // (B, T, D) tgt (post-norm) or norm1(tgt) (pre-norm)
    MultiHeadAttentionResult self_attention;  // its intermediates; weights (B, h, T, T)
    DropoutMask<Tensor3> self_attention_dropout;   // (B, T, D) dropout1's mask on self_attention.output
    Tensor3 self_attention_residual;      // (B, T, D) tgt + dropout1(self_attention.output)
    Tensor3 after_self_attention;         // (B, T, D) norm1(residual) (post-norm) or the residual (pre-norm)
    Tensor3 cross_attention_input;        // (B, T, D) the queries: after_self_attention or its norm2 (pre-norm)
    MultiHeadAttentionResult cross_attention;  // keys and values from the memory; weights (B, h, T, S)
    DropoutMask<Tensor3> cross_attention_dropout;  // (B, T, D) dropout2's mask on cross_attention.output
    Tensor3 cross_attention_residual;     // (B, T, D) after_self_attention + dropout2(cross_attention.output)
    Tensor3 after_cross_attention;        // (B, T, D) norm2(residual) (post-norm) or the residual (pre-norm)
    Tensor3 ffn_input;                    // (B, T, D) after_cross_attention or its norm3 (pre-norm)
    Tensor3 ffn_hidden;                   // (B, T, F) activation(ffn_input W1ᵀ + b1)
    DropoutMask<Matrix> ffn_hidden_dropout;        // (B·T, F) the mask on ffn_hidden's rows
    Tensor3 ffn_output;                   // (B, T, D) dropout(ffn_hidden) W2ᵀ + b2
    DropoutMask<Tensor3> ffn_dropout;              // (B, T, D) dropout3's mask on ffn_output
    Tensor3 ffn_residual;                 // (B, T, D) after_cross_attention + dropout3(ffn_output)
    Tensor3 output;                       // (B, T, D) norm3(ffn_residual) (post-norm) or ffn_residual (pre-norm)
};

/// One decoder layer. Throws ShapeError naming the tensor whose shape does not fit (tgt, memory,
/// a weight, a mask) and the shape it should have, also for T = 0 or S = 0; InputError for heads
/// not set, eps ≤ 0, a padding mask value other than 0 or 1, a missing w_o (see
/// multi_head_attention), and for the first intermediate that is NaN or ±∞.
/// A query whose keys are all hidden gets zero attention weights (PyTorch: NaN).
DecoderLayerStep transformer_decoder_layer(const Tensor3& tgt, const Tensor3& memory, const DecoderLayerWeights& weights,
                                           const DecoderLayerOptions& options);

/// nn.TransformerDecoder: the layers one after the other, each reading the same memory, then a
/// final layer norm when given. final_norm: {weight (D), bias (D)}; final_norm_eps is its eps,
/// absent: options.eps. InputError for final_norm_eps ≤ 0.
Tensor3 transformer_decoder(const Tensor3& tgt, const Tensor3& memory, const std::vector<DecoderLayerWeights>& layers,
                            const DecoderLayerOptions& options,
                            const std::optional<std::pair<Vector, Vector>>& final_norm = std::nullopt,
                            std::optional<double> final_norm_eps = std::nullopt);

}  // namespace attn
