// tutor/compute/model_config.hpp — a model's settings that travel with its weights: the member
// attn_config of the --weights archive, UTF-8 JSON bytes in a uint8 array.
//
// Why: a state_dict holds tensors, not the constructor's arguments. A forgotten --heads, --eps,
// --activation or --norm-first runs and gives wrong numbers with exit 0. Written once next to the
// weights (docs/bring-your-own-weights.md), the settings cannot be forgotten: a config must give
// every setting its module reads, and a flag may repeat a setting but never contradict it.
//
//   numpy.savez("model.npz", attn_config=numpy.frombuffer(json.dumps(
//       {"heads": 8, "norm_first": False, "activation": "gelu", "eps": 1e-5, "norm_eps": 1e-5}).encode(), numpy.uint8), **weights)
#pragma once

#include <optional>
#include <string>

#include "attn/npy.hpp"
#include "tutor/compute/compute_modules.hpp"

namespace attn::tutor {

/// The archive member that holds the config: "attn_config" (attn_config.npy inside the .npz).
inline const std::string model_config_member = "attn_config";

/// The most bytes a config may have.
constexpr std::size_t max_model_config_bytes = 65536;

struct ModelConfig {
    std::optional<int> heads;                // nhead
    std::optional<bool> norm_first;          // norm_first
    std::optional<std::string> activation;   // "relu", "gelu" or "gelu-tanh"
    std::optional<double> eps;               // layer_norm_eps
    std::optional<double> norm_eps;          // the final norms' eps
};

/// The config in `member` (a 1-D uint8 array read with integers accepted), `where` naming it in
/// messages. InputError for another dtype or rank, more than max_model_config_bytes, text that is
/// not a flat JSON object (tutor/compute/flat_json.hpp), an unknown key or a value of the wrong
/// type or range, each naming the key.
ModelConfig read_model_config(const NpyArray& member, const std::string& where);

/// Fills `options` from the config for the settings `module` reads: heads (uses_heads);
/// norm_first, activation, eps (uses_layer_options); norm_eps (uses_final_norm, when the model has
/// a final norm: `has_final_norm`). InputError naming both values when a flag contradicts the
/// config, and naming the key when the config leaves out a setting the module reads.
void apply_model_config(const ComputeModule& module, const ModelConfig& config, const std::string& where,
                        bool has_final_norm, ComputeOptions& options);

}  // namespace attn::tutor
