#include "tutor/compute/named_weights.hpp"

#include <algorithm>
#include <cctype>

#include <xtensor/xbuilder.hpp>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

const DynamicTensor& named(const NamedTensors& tensors, const std::string& name, const char* or_packed = nullptr) {
    const auto found = tensors.find(name);
    if (found == tensors.end()) {
        throw InputError(or_packed ? trf("missing weight '{1}' (or PyTorch's packed {2})", {name, or_packed})
                                   : trf("missing weight '{1}'", {name}));
    }
    return found->second;
}

// w_q, w_k, w_v (or b_q, b_k, b_v) from the split names or from the packed one; never both.
std::vector<DynamicTensor> projections(const NamedTensors& tensors, const std::string& packed,
                                       const std::vector<std::string>& split) {
    const auto found = tensors.find(packed);
    if (found == tensors.end()) {
        std::vector<DynamicTensor> parts;
        for (const auto& name : split) {
            if (!tensors.count(name) && packed == "in_proj_bias") {
                throw InputError(trf("missing {1}: give b_q, b_k and b_v (or PyTorch's packed in_proj_bias), or none "
                                     "of them and no b_o for nn.MultiheadAttention(bias=False)", {name}));
            }
            parts.push_back(named(tensors, name, packed.c_str()));
        }
        return parts;
    }
    for (const auto& name : split) {
        if (tensors.count(name)) {
            throw InputError(trf("{1} (PyTorch's packed {2}; {3}; {4}) and {5} are the same weights given twice; give "
                                 "either {1} or the three split ones",
                                 {packed, split[0], split[1], split[2], name}));
        }
    }
    const DynamicTensor& tensor = found->second;
    const std::vector<std::size_t> shape(tensor.shape().begin(), tensor.shape().end());
    const bool matrix = packed == "in_proj_weight";
    if (shape.size() != (matrix ? 2u : 1u) || shape[0] % 3 != 0 || shape[0] == 0 || (matrix && shape[0] != 3 * shape[1])) {
        throw ShapeError(trf("{1} {2} must be {3}: q, k and v stacked row-wise, as nn.MultiheadAttention stores it",
                             {packed, shape_string(shape), matrix ? "(3D, D)" : "(3D)"}));
    }
    if (matrix) {
        const MultiHeadAttentionWeights parts = split_in_proj(Matrix(tensor), std::nullopt);  // the library's split
        return {parts.w_q, parts.w_k, parts.w_v};
    }
    const std::size_t D = shape[0] / 3;
    std::vector<DynamicTensor> parts;
    for (std::size_t part = 0; part < 3; ++part) {
        DynamicTensor slice = DynamicTensor::from_shape({D});
        for (std::size_t i = 0; i < D; ++i) slice(i) = tensor(part * D + i);
        parts.push_back(slice);
    }
    return parts;
}

bool has_in_projection_bias(const NamedTensors& tensors) {
    for (const char* name : {"in_proj_bias", "b_q", "b_k", "b_v"}) {
        if (tensors.count(name)) return true;
    }
    return false;
}

}  // namespace

MultiHeadAttentionWeights attention_weights_from(const NamedTensors& tensors, bool no_output_projection) {
    MultiHeadAttentionWeights w;
    const auto weights = projections(tensors, "in_proj_weight", {"w_q", "w_k", "w_v"});
    w.w_q = weights[0];
    w.w_k = weights[1];
    w.w_v = weights[2];
    if (has_in_projection_bias(tensors)) {
        const auto biases = projections(tensors, "in_proj_bias", {"b_q", "b_k", "b_v"});
        w.b_q = biases[0];
        w.b_k = biases[1];
        w.b_v = biases[2];
    } else {
        // nn.MultiheadAttention(bias=False): no bias anywhere; zeros add nothing, exactly.
        if (tensors.count("b_o")) {
            throw InputError(tr("b_o (out_proj.bias) is given without the in-projection biases (in_proj_bias, or b_q, b_k, "
                                "b_v): nn.MultiheadAttention has both (bias=True) or neither (bias=False); give the missing ones"));
        }
        w.b_q = w.b_k = w.b_v = xt::zeros<double>({w.w_q.shape(0)});
    }
    if (no_output_projection && (tensors.count("w_o") || tensors.count("b_o"))) {
        throw InputError(trf("--no-output-projection and {1} are both given: the model has an output projection (out_proj) "
                             "or none; remove one",
                             {tensors.count("w_o") ? "w_o" : "b_o"}));
    }
    if (!no_output_projection && !tensors.count("w_o")) {
        throw InputError(tensors.count("b_o")
                             ? tr("missing weight 'w_o' (PyTorch's out_proj.weight), while b_o is given: give it, or "
                                  "--no-output-projection for a block without an output projection (seed 000)")
                             : tr("missing weight 'w_o' (PyTorch's out_proj.weight): give it, or --no-output-projection "
                                  "for a block without an output projection (seed 000)"));
    }
    w.no_output_projection = no_output_projection;
    if (tensors.count("w_o")) w.w_o = Matrix(tensors.at("w_o"));
    if (tensors.count("b_o")) w.b_o = Vector(tensors.at("b_o"));
    return w;
}

EncoderLayerWeights encoder_layer_weights_from(const NamedTensors& tensors) {
    EncoderLayerWeights w;
    if (!has_in_projection_bias(tensors) && !tensors.count("b_o")) {
        throw InputError(tr("the attention has no biases (no in_proj_bias, no out_proj.bias): a layer built with bias=False "
                            "(nn.TransformerEncoderLayer(bias=False), PyTorch 2.1 and later); encoder-layer and encoder read "
                            "layers with every bias (mha reads nn.MultiheadAttention(bias=False))"));
    }
    w.attention = attention_weights_from(tensors);
    w.attention.w_o = Matrix(named(tensors, "w_o"));
    w.attention.b_o = Vector(named(tensors, "b_o"));
    w.norm1_weight = named(tensors, "norm1_weight");
    w.norm1_bias = named(tensors, "norm1_bias");
    w.norm2_weight = named(tensors, "norm2_weight");
    w.norm2_bias = named(tensors, "norm2_bias");
    w.linear1_weight = named(tensors, "linear1_weight");
    w.linear1_bias = named(tensors, "linear1_bias");
    w.linear2_weight = named(tensors, "linear2_weight");
    w.linear2_bias = named(tensors, "linear2_bias");
    return w;
}

std::optional<std::pair<std::size_t, std::string>> split_layer_name(const std::string& name) {
    const std::string prefix = "layers_";
    if (name.rfind(prefix, 0) != 0) return std::nullopt;
    std::size_t at = prefix.size(), layer = 0;
    const std::size_t digits_start = at;
    while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at])) && at - digits_start < 6) {
        layer = layer * 10 + static_cast<std::size_t>(name[at++] - '0');
    }
    if (at == digits_start || at >= name.size() || name[at] != '_' || at + 1 == name.size()) return std::nullopt;
    return std::make_pair(layer, name.substr(at + 1));
}

NamedTensors layer_tensors(const NamedTensors& tensors, std::size_t layer) {
    NamedTensors result;
    for (const auto& [name, tensor] : tensors) {
        const auto split = split_layer_name(name);
        if (split && split->first == layer) result[split->second] = tensor;
    }
    return result;
}

std::size_t encoder_layer_count(const std::set<std::string>& names) {
    std::size_t count = 0;
    for (const auto& name : names) {
        if (const auto split = split_layer_name(name)) count = std::max(count, split->first + 1);
    }
    if (count == 0) {
        throw InputError(tr("no layer weights: an encoder's weights are layers_0_w_q … (layers.0.self_attn.in_proj_weight …)"));
    }
    std::vector<bool> present(count, false);
    for (const auto& name : names) {
        if (const auto split = split_layer_name(name)) present[split->first] = true;
    }
    for (std::size_t layer = 0; layer < count; ++layer) {
        if (present[layer]) continue;
        throw InputError(trf("layer {1} has no weights ({2}…), but layer {3} has",
                             {std::to_string(layer), "layers_" + std::to_string(layer) + "_", std::to_string(count - 1)}));
    }
    const bool weight = names.count("norm_weight") > 0, bias = names.count("norm_bias") > 0;
    if (weight != bias) {
        throw InputError(trf("the final norm needs both norm_weight and norm_bias; only {1} is given",
                             {weight ? "norm_weight" : "norm_bias"}));
    }
    return count;
}

EncoderLayerWeights encoder_layer_weights_of(const NamedTensors& own, std::size_t layer) {
    try {
        return encoder_layer_weights_from(own);
    } catch (const InputError& e) {
        throw InputError("layers_" + std::to_string(layer) + "_: " + e.what());
    }
}

EncoderWeights encoder_weights_from(const NamedTensors& tensors) {
    std::set<std::string> names;
    for (const auto& [name, tensor] : tensors) names.insert(name);
    const std::size_t count = encoder_layer_count(names);
    EncoderWeights w;
    for (std::size_t layer = 0; layer < count; ++layer) {
        w.layers.push_back(encoder_layer_weights_of(layer_tensors(tensors, layer), layer));
    }
    if (names.count("norm_weight")) {
        w.final_norm = std::make_pair(Vector(tensors.at("norm_weight")), Vector(tensors.at("norm_bias")));
    }
    return w;
}

std::string canonical_weight_name(const std::string& name) {
    std::string result = name;
    for (char& c : result) c = c == '.' ? '_' : c;
    std::string prefix;
    if (const auto split = split_layer_name(result)) {
        prefix = "layers_" + std::to_string(split->first) + "_";
        result = split->second;
    }
    static const std::vector<std::pair<std::string, std::string>> aliases = {
        {"self_attn_out_proj_weight", "w_o"}, {"self_attn_out_proj_bias", "b_o"},
        {"out_proj_weight", "w_o"},           {"out_proj_bias", "b_o"},
        {"self_attn_in_proj_weight", "in_proj_weight"}, {"self_attn_in_proj_bias", "in_proj_bias"},
    };
    for (const auto& [from, to] : aliases) {
        if (result == from) return prefix + to;
    }
    return prefix + result;
}

}  // namespace attn::tutor
