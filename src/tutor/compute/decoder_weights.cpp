// The decoder's weights by PyTorch's names (tutor/compute/decoder_weights.hpp).
#include "tutor/compute/decoder_weights.hpp"

#include <set>

#include "attn/error.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

const std::vector<std::pair<std::string, std::string>> cross_attention_names = {
    {"multihead_attn_in_proj_weight", "in_proj_weight"},
    {"multihead_attn_in_proj_bias", "in_proj_bias"},
    {"multihead_attn_out_proj_weight", "w_o"},
    {"multihead_attn_out_proj_bias", "b_o"},
};

// The layers of one stack, each read by `read`, its messages prefixed with its layer's names
// ("layers_1_: missing weight 'w_o'"), and the stack's final norm when given.
template <class Layer>
std::pair<std::vector<Layer>, std::optional<std::pair<Vector, Vector>>> read_stack(
    const NamedTensors& tensors, const std::string& prefix, const std::string& norm, Layer (*read)(const NamedTensors&)) {
    std::set<std::string> names;
    for (const auto& [name, tensor] : tensors) names.insert(name);
    const std::size_t count = stack_layer_count(names, prefix);
    check_final_norm_pair(names, norm);
    std::vector<Layer> layers;
    for (std::size_t layer = 0; layer < count; ++layer) {
        try {
            layers.push_back(read(layer_tensors(tensors, layer, prefix)));
        } catch (const InputError& e) {
            throw InputError(prefix + std::to_string(layer) + "_: " + e.what());
        }
    }
    std::optional<std::pair<Vector, Vector>> final_norm;
    if (names.count(norm + "weight")) final_norm = std::make_pair(Vector(tensors.at(norm + "weight")), Vector(tensors.at(norm + "bias")));
    return {std::move(layers), std::move(final_norm)};
}

}  // namespace

DecoderLayerWeights decoder_layer_weights_from(const NamedTensors& tensors) {
    encoder_layer_layout(shapes_of(tensors));  // the self-attention, norm1, norm2, linear1, linear2
    NamedTensors cross;
    for (const auto& [pytorch, attention] : cross_attention_names) {
        if (!tensors.count(pytorch)) throw InputError(trf("missing weight '{1}'", {pytorch}));
        cross[attention] = tensors.at(pytorch);
    }
    for (const char* name : {"norm3_weight", "norm3_bias"}) {
        if (!tensors.count(name)) throw InputError(trf("missing weight '{1}'", {name}));
    }
    DecoderLayerWeights w;
    w.self_attention = attention_weights_from(tensors);
    w.cross_attention = attention_weights_from(cross);
    w.norm1_weight = tensors.at("norm1_weight");
    w.norm1_bias = tensors.at("norm1_bias");
    w.norm2_weight = tensors.at("norm2_weight");
    w.norm2_bias = tensors.at("norm2_bias");
    w.norm3_weight = tensors.at("norm3_weight");
    w.norm3_bias = tensors.at("norm3_bias");
    w.linear1_weight = tensors.at("linear1_weight");
    w.linear1_bias = tensors.at("linear1_bias");
    w.linear2_weight = tensors.at("linear2_weight");
    w.linear2_bias = tensors.at("linear2_bias");
    return w;
}

DecoderWeights decoder_weights_from(const NamedTensors& tensors, const std::string& prefix, const std::string& norm) {
    auto [layers, final_norm] = read_stack(tensors, prefix, norm, decoder_layer_weights_from);
    return {std::move(layers), std::move(final_norm)};
}

EncoderWeights encoder_stack_from(const NamedTensors& tensors, const std::string& prefix, const std::string& norm) {
    auto [layers, final_norm] = read_stack(tensors, prefix, norm, encoder_layer_weights_from);
    return {std::move(layers), std::move(final_norm)};
}

}  // namespace attn::tutor
