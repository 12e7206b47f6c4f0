// src/lib/transformer_layers.hpp — private to the library: what nn.Transformer's options mean for
// each layer of its two stacks, shared by its forward (transformer.cpp) and its backward
// (transformer_backward.cpp) so that both run the layers with the same options.
#pragma once

#include <string>

#include "attn/transformer.hpp"

namespace attn::detail {

/// The encoder layers': heads, norm order, eps, activation, src_mask and src_attention_mask.
EncoderLayerOptions encoder_layer_options(const TransformerOptions& options);

/// The decoder layers': heads, norm order, eps, activation, causal, the tgt and memory masks.
DecoderLayerOptions decoder_layer_options(const TransformerOptions& options);

/// encoder.norm's and decoder.norm's eps: final_norm_eps, or the layers' eps. InputError
/// "function: final_norm_eps must be a positive number" when it is not.
double final_norm_eps(const std::string& function, const TransformerOptions& options);

}  // namespace attn::detail
