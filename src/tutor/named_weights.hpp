// tutor/named_weights.hpp — a layer's weights gathered from tensors named as PyTorch names them.
//
// Why: `attn compute`, the lesson programs, the exercises and the tests all receive weights as a
// map of named tensors (files w_q.npy, norm1_weight.npy, … or a document's input blocks). The
// names are the state_dict keys of nn.MultiheadAttention / nn.TransformerEncoderLayer /
// nn.TransformerEncoder with dots turned into underscores (docs/bring-your-own-weights.md); the
// attention's projections come split (w_q, w_k, w_v, b_q, b_k, b_v) or packed as PyTorch stores
// them (in_proj_weight (3D, D), in_proj_bias (3D), split here row-wise: q, then k, then v). This
// is the one place that maps them onto the library's structs.
//
//   NamedTensors files = …;   // {"in_proj_weight": …, "in_proj_bias": …, "w_o": …, …, "linear2_bias": …}
//   attn::EncoderLayerWeights w = encoder_layer_weights_from(files);
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/encoder_layer.hpp"
#include "tutor/lesson/lessons.hpp"

namespace attn::tutor {

/// w_q, w_k, w_v (D, D), b_q, b_k, b_v (D) — or in_proj_weight (3D, D), in_proj_bias (3D) — and
/// w_o, b_o. No in-projection bias and no b_o: nn.MultiheadAttention(bias=False), zero biases.
/// w_o is required unless no_output_projection (then w_o and b_o must be absent). InputError
/// naming a missing tensor, a weight given both packed and split, or b_o without the other biases.
MultiHeadAttentionWeights attention_weights_from(const NamedTensors& tensors, bool no_output_projection = false);

/// The attention's weights (w_o and b_o required), norm1_/norm2_ weight and bias,
/// linear1_/linear2_ weight and bias.
EncoderLayerWeights encoder_layer_weights_from(const NamedTensors& tensors);

/// nn.TransformerEncoder's state_dict: layers_0_… to layers_{N-1}_… (each an encoder layer's
/// names after the prefix), and the final norm_weight, norm_bias when present.
struct EncoderWeights {
    std::vector<EncoderLayerWeights> layers;
    std::optional<std::pair<Vector, Vector>> final_norm;
};

/// InputError when no layer is given, a layer number is skipped, or only one of norm_weight and
/// norm_bias is given; messages name the layer ("layers_1_: missing weight 'w_o'").
EncoderWeights encoder_weights_from(const NamedTensors& tensors);

/// The tensors of layer `layer`, without their "layers_N_" prefix.
NamedTensors layer_tensors(const NamedTensors& tensors, std::size_t layer);

/// "layers_3_w_q" → 3 and "w_q"; nullopt for a name without the prefix.
std::optional<std::pair<std::size_t, std::string>> split_layer_name(const std::string& name);

/// A state_dict key as attn names it: dots become underscores and the attention's
/// self_attn.out_proj.weight / out_proj.weight become w_o (bias: b_o), self_attn.in_proj_* become
/// in_proj_*, inside any layers.N. prefix. Other names are returned with underscores.
///   canonical_weight_name("layers.0.self_attn.out_proj.weight")   // "layers_0_w_o"
std::string canonical_weight_name(const std::string& name);

}  // namespace attn::tutor
