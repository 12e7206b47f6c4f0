// attn/encoder_layer.hpp — lessons/06-encoder-layer: a Transformer encoder layer, and a stack of
// them.
//
// Why: this is where the lessons meet. A layer is two sub-layers — multi-head self-attention
// (lessons/05-multi-head-attention), then the position-wise feed-forward network — each wrapped in
// a residual connection and a layer norm. Read it in two lines:
//
//   post-norm (the paper, PyTorch's default):  x = norm1(x + attention(x));  x = norm2(x + ffn(x))
//   pre-norm  (norm_first, seed 003):          x = x + attention(norm1(x));  x = x + ffn(norm2(x))
//
// With the same weights it computes what torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0,
// batch_first=True, norm_first=…, activation=…) computes. For training, options.dropout drops out
// where that layer's dropout=p does (attn/dropout.hpp): the attention weights, the feed-forward
// network's hidden layer after the activation, and each sub-layer's output before its residual
// add (dropout1, dropout2); the step keeps the masks for the backward. Its in_proj_weight (3D, D) splits
// row-wise into w_q, w_k, w_v; self_attn.out_proj is w_o, b_o (docs/notation.md).
//
// Shapes: B batch · T positions · D model width · h heads · F feed-forward width
//   x (B, T, D) · attention weights (D, D), biases (D) · norm weights and biases (D)
//   linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) · linear2_bias (D)
//   attention_mask (B, T), optional: 1 = attend, 0 = padding
//
//   attn::EncoderLayerOptions options(2);   // 2 heads: required, as nn.TransformerEncoderLayer's nhead
//   auto step = attn::transformer_encoder_layer(x, weights, options);
//   step.output;   // (B, T, D)
#pragma once

#include <optional>
#include <vector>

#include "attn/feed_forward.hpp"
#include "attn/layer_norm.hpp"
#include "attn/multi_head_attention.hpp"

namespace attn {

struct EncoderLayerWeights {
    MultiHeadAttentionWeights attention;  // w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o
    Vector norm1_weight, norm1_bias;      // (D)
    Vector norm2_weight, norm2_bias;      // (D)
    Matrix linear1_weight;                // (F, D)
    Vector linear1_bias;                  // (F)
    Matrix linear2_weight;                // (D, F)
    Vector linear2_bias;                  // (D)
};

struct EncoderLayerOptions {
    EncoderLayerOptions() = default;
    explicit EncoderLayerOptions(std::size_t heads) : heads(heads) {}

    /// h, nn.TransformerEncoderLayer's nhead: required (0 = not set, an InputError), as there is
    /// no number of heads that would be right for most models.
    std::size_t heads = 0;
    bool norm_first = false;                  // pre-norm when true
    double eps = default_layer_norm_eps;      // layer norm eps, > 0 (PyTorch's layer_norm_eps)
    Activation activation = Activation::relu;
    std::optional<Matrix> attention_mask;     // (B, T): 1 = attend, 0 = padding
    std::optional<Tensor3> additive_mask;     // (1 or B·h, T, T) added to the scores: PyTorch's float src_mask
    Dropout dropout;                          // training's dropout (nn.TransformerEncoderLayer's); off by default
};

/// Every intermediate of one layer, in the order they are computed. The dropout masks are the
/// identity (nothing drawn) when options.dropout is off.
struct EncoderLayerStep {
    Tensor3 attention_input;     // (B, T, D) what attention reads: x (post-norm) or norm1(x) (pre-norm)
    MultiHeadAttentionResult attention;  // its intermediates; attention.output is the sub-layer's output
    DropoutMask<Tensor3> attention_dropout;  // (B, T, D) dropout1's mask on attention.output (identity when off)
    Tensor3 attention_residual;  // (B, T, D) x + dropout1(attention.output)
    Tensor3 after_attention;     // (B, T, D) norm1(x + attention) (post-norm) or x + attention (pre-norm)
    Tensor3 ffn_input;           // (B, T, D) after_attention (post-norm) or norm2(after_attention) (pre-norm)
    Tensor3 ffn_hidden;          // (B, T, F) activation(ffn_input W1ᵀ + b1)
    DropoutMask<Matrix> ffn_hidden_dropout;  // (B·T, F) the mask on ffn_hidden's rows (identity when off)
    Tensor3 ffn_output;          // (B, T, D) dropout(ffn_hidden) W2ᵀ + b2
    DropoutMask<Tensor3> ffn_dropout;        // (B, T, D) dropout2's mask on ffn_output (identity when off)
    Tensor3 ffn_residual;        // (B, T, D) after_attention + dropout2(ffn_output)
    Tensor3 output;              // (B, T, D) norm2(ffn_residual) (post-norm) or ffn_residual (pre-norm)
};

/// One encoder layer. Throws ShapeError naming the tensor whose shape does not fit (and the shape
/// it should have), InputError for heads not set, eps ≤ 0 or a mask value other than 0 or 1, a
/// missing w_o (see multi_head_attention), and for the first
/// intermediate that is NaN or ±∞ (named with its index; see multi_head_attention).
EncoderLayerStep transformer_encoder_layer(const Tensor3& x, const EncoderLayerWeights& weights,
                                           const EncoderLayerOptions& options);

/// Seed 003's Encoder: the layers one after the other, then a final layer norm when given.
/// final_norm: {weight (D), bias (D)}; final_norm_eps is its eps, absent: options.eps (PyTorch's
/// nn.TransformerEncoder(layer, N, norm=nn.LayerNorm(D, eps=…)) may differ from the layers'
/// layer_norm_eps). InputError for final_norm_eps ≤ 0.
Tensor3 transformer_encoder(const Tensor3& x, const std::vector<EncoderLayerWeights>& layers,
                            const EncoderLayerOptions& options,
                            const std::optional<std::pair<Vector, Vector>>& final_norm = std::nullopt,
                            std::optional<double> final_norm_eps = std::nullopt);

}  // namespace attn
