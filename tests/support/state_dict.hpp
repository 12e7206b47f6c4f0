// tests/support/state_dict.hpp — the recorded PyTorch modules of tests/data/decoder.
//
// Each case is CASE.npz, a state_dict under PyTorch's names plus the inputs and "expected_…"
// outputs, and CASE.txt, the settings (heads=2, norm_first=0, …); tools/make_decoder_fixtures.py
// writes them. These functions turn PyTorch's names into the library's weights.
//
//   const auto archive = attn::testing::read_state_dict("layer-post-relu");
//   const auto weights = attn::testing::decoder_layer_weights_at(archive, "");        // a bare layer
//   const auto second = attn::testing::decoder_layer_weights_at(archive, "layers.1."); // in a stack
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attn/decoder_layer.hpp"
#include "attn/encoder_layer.hpp"

namespace attn::testing {

/// Every member of tests/data/decoder/<name>.npz, by key (masks included, as float64).
using StateDict = std::map<std::string, DynamicTensor>;
StateDict read_state_dict(const std::string& name);

/// tests/data/decoder/<name>.txt, "key=value" lines.
std::map<std::string, std::string> read_case_settings(const std::string& name);

/// The case names "<prefix>…" of tests/data/decoder, sorted.
std::vector<std::string> decoder_cases(const std::string& prefix);

/// `prefix`in_proj_weight / in_proj_bias / out_proj.weight / out_proj.bias of an nn.MultiheadAttention.
MultiHeadAttentionWeights attention_weights_at(const StateDict& tensors, const std::string& prefix);

/// An nn.TransformerDecoderLayer's tensors under `prefix` ("", "layers.0.", "decoder.layers.1.").
DecoderLayerWeights decoder_layer_weights_at(const StateDict& tensors, const std::string& prefix);

/// An nn.TransformerEncoderLayer's tensors under `prefix`.
EncoderLayerWeights encoder_layer_weights_at(const StateDict& tensors, const std::string& prefix);

/// The case's settings (CASE.txt) and masks (tgt_mask, tgt_attention_mask, memory_mask,
/// memory_attention_mask when the archive holds them) as decoder options.
DecoderLayerOptions decoder_options_of(const std::string& name, const StateDict& tensors);

/// `prefix`weight and `prefix`bias of an nn.LayerNorm ("norm.", "encoder.norm.").
std::pair<Vector, Vector> layer_norm_at(const StateDict& tensors, const std::string& prefix);

}  // namespace attn::testing
