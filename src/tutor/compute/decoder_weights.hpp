// tutor/compute/decoder_weights.hpp — a decoder layer's weights, a decoder's and a whole
// nn.Transformer's, from the tensors named as PyTorch's state_dict names them.
//
// Why apart from named_weights: the decoder layer has two attentions, and PyTorch names them
// self_attn.* and multihead_attn.*; the self-attention reads as the encoder layer's attention
// (in_proj_weight, w_o, …), the cross-attention keeps PyTorch's prefix (multihead_attn_in_proj_weight,
// multihead_attn_out_proj_weight, …) and is packed, as nn.MultiheadAttention stores it.
//
//   DecoderLayerWeights w = decoder_layer_weights_from(tensors);   // tensors["norm3_weight"], …
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "attn/decoder_layer.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::tutor {

/// The self-attention (as encoder_layer_weights_from reads it), the cross-attention from
/// multihead_attn_in_proj_weight, multihead_attn_in_proj_bias, multihead_attn_out_proj_weight and
/// multihead_attn_out_proj_bias, norm1_ to norm3_ weight and bias, linear1_ and linear2_ weight and
/// bias. InputError naming a missing tensor.
DecoderLayerWeights decoder_layer_weights_from(const NamedTensors& tensors);

/// A stack of decoder layers, `prefix`0_… to `prefix`{N-1}_…, and its final norm
/// `norm`weight, `norm`bias when present. Messages name the layer ("layers_1_: missing …").
struct DecoderWeights {
    std::vector<DecoderLayerWeights> layers;
    std::optional<std::pair<Vector, Vector>> final_norm;
};
DecoderWeights decoder_weights_from(const NamedTensors& tensors, const std::string& prefix = "layers_",
                                    const std::string& norm = "norm_");

/// A stack of encoder layers the same way (nn.Transformer's encoder.layers.N.…, encoder.norm).
EncoderWeights encoder_stack_from(const NamedTensors& tensors, const std::string& prefix, const std::string& norm);

}  // namespace attn::tutor
