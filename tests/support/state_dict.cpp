#include "support/state_dict.hpp"

#include <algorithm>
#include <tuple>

#include "attn/npy_tensor.hpp"
#include "attn/npz.hpp"
#include "support/fixtures.hpp"

namespace attn::testing {
namespace {

const std::filesystem::path decoder_data = ATTN_SOURCE_DIR "/tests/data/decoder";

// What nn.TransformerEncoderLayer and nn.TransformerDecoderLayer name alike: norm1, norm2 and the
// feed-forward network's linear1, linear2.
template <class LayerWeights>
void read_shared_layer_tensors(LayerWeights& w, const StateDict& tensors, const std::string& prefix) {
    std::tie(w.norm1_weight, w.norm1_bias) = layer_norm_at(tensors, prefix + "norm1.");
    std::tie(w.norm2_weight, w.norm2_bias) = layer_norm_at(tensors, prefix + "norm2.");
    w.linear1_weight = tensors.at(prefix + "linear1.weight");
    w.linear1_bias = tensors.at(prefix + "linear1.bias");
    w.linear2_weight = tensors.at(prefix + "linear2.weight");
    w.linear2_bias = tensors.at(prefix + "linear2.bias");
}

}  // namespace

StateDict read_state_dict(const std::string& name) {
    StateDict tensors;
    for (const auto& [key, array] : read_npz((decoder_data / (name + ".npz")).string())) tensors[key] = to_tensor(array);
    return tensors;
}

std::map<std::string, std::string> read_case_settings(const std::string& name) {
    return read_key_values(decoder_data / (name + ".txt"));
}

std::vector<std::string> decoder_cases(const std::string& prefix) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(decoder_data)) {
        const std::string name = entry.path().stem().string();
        if (entry.path().extension() == ".npz" && name.rfind(prefix, 0) == 0) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

MultiHeadAttentionWeights attention_weights_at(const StateDict& tensors, const std::string& prefix) {
    MultiHeadAttentionWeights w =
        split_in_proj(Matrix(tensors.at(prefix + "in_proj_weight")), Vector(tensors.at(prefix + "in_proj_bias")));
    w.w_o = Matrix(tensors.at(prefix + "out_proj.weight"));
    w.b_o = Vector(tensors.at(prefix + "out_proj.bias"));
    return w;
}

DecoderLayerWeights decoder_layer_weights_at(const StateDict& tensors, const std::string& prefix) {
    DecoderLayerWeights w;
    read_shared_layer_tensors(w, tensors, prefix);
    w.self_attention = attention_weights_at(tensors, prefix + "self_attn.");
    w.cross_attention = attention_weights_at(tensors, prefix + "multihead_attn.");
    std::tie(w.norm3_weight, w.norm3_bias) = layer_norm_at(tensors, prefix + "norm3.");
    return w;
}

EncoderLayerWeights encoder_layer_weights_at(const StateDict& tensors, const std::string& prefix) {
    EncoderLayerWeights w;
    read_shared_layer_tensors(w, tensors, prefix);
    w.attention = attention_weights_at(tensors, prefix + "self_attn.");
    return w;
}

DecoderLayerOptions decoder_options_of(const std::string& name, const StateDict& tensors) {
    const auto settings = read_case_settings(name);
    DecoderLayerOptions options(std::stoul(settings.at("heads")));
    options.norm_first = settings.at("norm_first") == "1";
    options.activation = parse_activation(settings.at("activation"));
    options.eps = std::stod(settings.at("eps"));
    options.causal = settings.at("causal") == "1";
    if (tensors.count("tgt_mask")) options.tgt_mask = Tensor3(tensors.at("tgt_mask"));
    if (tensors.count("memory_mask")) options.memory_mask = Tensor3(tensors.at("memory_mask"));
    if (tensors.count("tgt_attention_mask")) options.tgt_attention_mask = Matrix(tensors.at("tgt_attention_mask"));
    if (tensors.count("memory_attention_mask")) options.memory_attention_mask = Matrix(tensors.at("memory_attention_mask"));
    return options;
}

std::pair<Vector, Vector> layer_norm_at(const StateDict& tensors, const std::string& prefix) {
    return {Vector(tensors.at(prefix + "weight")), Vector(tensors.at(prefix + "bias"))};
}

}  // namespace attn::testing
