// tutor/compute/named_weights.hpp — a layer's weights gathered from tensors named as PyTorch names them.
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

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "attn/encoder_layer.hpp"
#include "tutor/lesson/lessons.hpp"

namespace attn::tutor {

/// The shapes of named tensors, by name: what the checks below read.
using NamedShapes = std::map<std::string, std::vector<std::size_t>>;
NamedShapes shapes_of(const NamedTensors& tensors);

/// How an attention's weights are given, found by checking names and shapes alone (so that the
/// fast path, which holds float32 tensors, checks them with the same messages).
struct AttentionLayout {
    bool packed_weight = false;  // in_proj_weight (3D, D), not w_q, w_k, w_v
    bool has_bias = false;       // in-projection biases given; false: nn.MultiheadAttention(bias=False)
    bool packed_bias = false;    // in_proj_bias (3D), not b_q, b_k, b_v
};

/// attention_weights_from's checks: InputError or ShapeError with its messages.
AttentionLayout attention_layout(const NamedShapes& shapes, bool no_output_projection);

/// encoder_layer_weights_from's checks: the attention's (w_o required), then every bias, norm and
/// linear weight by name.
AttentionLayout encoder_layer_layout(const NamedShapes& shapes);

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

/// The checks of encoder_weights_from on the names alone: the number of layers N (layers_0_ …
/// layers_{N-1}_), InputError when there is none or one is skipped, or only one of norm_weight and
/// norm_bias is given.
std::size_t encoder_layer_count(const std::set<std::string>& names);

/// The number of layers N of a stack whose weights are `prefix`0_… to `prefix`{N-1}_…; InputError
/// when there is none or one is skipped (encoder_layer_count's checks, for any stack).
std::size_t stack_layer_count(const std::set<std::string>& names, const std::string& prefix);

/// InputError when only one of `prefix`weight and `prefix`bias (a final norm) is given.
void check_final_norm_pair(const std::set<std::string>& names, const std::string& prefix);

/// The tensors of layer `layer`, without their "layers_N_" prefix (or `prefix`N_).
NamedTensors layer_tensors(const NamedTensors& tensors, std::size_t layer, const std::string& prefix = "layers_");

/// "layers_3_w_q" → 3 and "w_q"; nullopt for a name without the prefix ("layers_", or a
/// transformer's "encoder_layers_" and "decoder_layers_").
std::optional<std::pair<std::size_t, std::string>> split_layer_name(const std::string& name,
                                                                    const std::string& prefix = "layers_");

/// One stack of layers in a layered module's inputs: its names' prefix and the module whose
/// weights each layer has (encoder: "layers_" and encoder-layer; transformer: two stacks).
struct LayerStack {
    std::string prefix;
    std::string layer_module;
};
std::vector<LayerStack> layer_stacks(const std::string& module);

/// A state_dict key as attn names it: dots become underscores and the attention's
/// self_attn.out_proj.weight / out_proj.weight become w_o (bias: b_o), self_attn.in_proj_* become
/// in_proj_*, inside any layers.N., encoder.layers.N. or decoder.layers.N. prefix. Other names are
/// returned with underscores.
///   canonical_weight_name("layers.0.self_attn.out_proj.weight")   // "layers_0_w_o"
std::string canonical_weight_name(const std::string& name);

}  // namespace attn::tutor
