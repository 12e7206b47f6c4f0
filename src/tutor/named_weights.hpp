// tutor/named_weights.hpp — a layer's weights gathered from tensors named as PyTorch names them.
//
// Why: `attn compute`, the lesson programs, the exercises and the tests all receive weights as a
// map of named tensors (files w_q.npy, norm1_weight.npy, … or a document's input blocks). The
// names are the state_dict keys of nn.MultiheadAttention / nn.TransformerEncoderLayer with dots
// turned into underscores and in_proj split into q, k, v (docs/bring-your-own-weights.md); this
// is the one place that maps them onto the library's structs.
//
//   NamedTensors files = …;   // {"w_q": …, "b_q": …, …, "linear2_bias": …}
//   attn::EncoderLayerWeights w = encoder_layer_weights_from(files);
#pragma once

#include "attn/encoder_layer.hpp"
#include "tutor/lessons.hpp"

namespace attn::tutor {

/// w_q, w_k, w_v (D, D), b_q, b_k, b_v (D), and w_o, b_o when present. InputError naming a
/// missing tensor.
MultiHeadAttentionWeights attention_weights_from(const NamedTensors& tensors);

/// The attention's weights (w_o and b_o required), norm1_/norm2_ weight and bias,
/// linear1_/linear2_ weight and bias.
EncoderLayerWeights encoder_layer_weights_from(const NamedTensors& tensors);

}  // namespace attn::tutor
