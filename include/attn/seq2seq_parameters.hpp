// attn/seq2seq_parameters.hpp — lesson 11: the parameters of the encoder-decoder model
// (attn/seq2seq_transformer.hpp) as one flat buffer, each under its PyTorch name.
//
// Why: an optimiser such as Adam (attn/adam.hpp) treats every parameter the same way, value by
// value, so it works on one buffer holding them all, and on the gradients flattened the same way.
// The order is PyTorch's: nn.Transformer's named_parameters (encoder.layers.0.self_attn.
// in_proj_weight, …, encoder.norm.*, decoder.layers.0.…, decoder.norm.*), then src_embed.weight,
// tgt_embed.weight, generator.weight and generator.bias, each row-major. The library keeps an
// attention's projections apart (w_q, w_k, w_v); PyTorch packs them into in_proj_weight (3D, D),
// rows q, k, v — the same values in the same order, so a slot covers the three.
//
// Shapes: D model width · F feed-forward width · V vocabulary; a slot's shape is PyTorch's
//   in_proj_weight (3D, D) · in_proj_bias (3D) · out_proj.weight (D, D) · linear1.weight (F, D) · …
//
//   std::vector<double> flat = attn::flatten_parameters(weights);
//   attn::unflatten_parameters(flat, weights);          // back into the same shapes
//   for (const auto& slot : attn::seq2seq_parameter_slots(weights)) slot.name;   // "generator.bias"
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attn/seq2seq_transformer.hpp"

namespace attn {

/// One parameter: its state_dict name, PyTorch's shape of it and where its values are in the
/// flat buffer (offset … offset + the product of the shape).
struct ParameterSlot {
    std::string name;
    std::vector<std::size_t> shape;
    std::size_t offset = 0;
};

/// Every parameter in the order above. InputError when an attention has no output projection.
std::vector<ParameterSlot> seq2seq_parameter_slots(const Seq2SeqWeights& weights);

/// Every value of every parameter, in the order of the slots.
std::vector<double> flatten_parameters(const Seq2SeqWeights& weights);

/// The flat buffer back into `weights`, whose shapes it keeps. ShapeError when the buffer's size
/// is not the number of parameters.
void unflatten_parameters(const std::vector<double>& flat, Seq2SeqWeights& weights);

}  // namespace attn
