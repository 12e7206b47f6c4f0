#include "tutor/compute/named_weights.hpp"

#include <algorithm>
#include <cctype>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

// The checks of the split or packed projections on names and shapes: w_q, w_k, w_v (or b_q, b_k,
// b_v) all given, or the packed one alone, (3D, D) (or (3D)).
void check_projections(const NamedShapes& shapes, const std::string& packed, const std::vector<std::string>& split) {
    const auto found = shapes.find(packed);
    if (found == shapes.end()) {
        for (const auto& name : split) {
            if (shapes.count(name)) continue;
            if (packed == "in_proj_bias") {
                throw InputError(trf("missing {1}: give b_q, b_k and b_v (or PyTorch's packed in_proj_bias), or none "
                                     "of them and no b_o for nn.MultiheadAttention(bias=False)", {name}));
            }
            throw InputError(trf("missing weight '{1}' (or PyTorch's packed {2})", {name, packed}));
        }
        return;
    }
    for (const auto& name : split) {
        if (shapes.count(name)) {
            throw InputError(trf("{1} (PyTorch's packed {2}; {3}; {4}) and {5} are the same weights given twice; give "
                                 "either {1} or the three split ones",
                                 {packed, split[0], split[1], split[2], name}));
        }
    }
    const std::vector<std::size_t>& shape = found->second;
    const bool matrix = packed == "in_proj_weight";
    if (shape.size() != (matrix ? 2u : 1u) || shape[0] % 3 != 0 || shape[0] == 0 || (matrix && shape[0] != 3 * shape[1])) {
        throw ShapeError(trf("{1} {2} must be {3}: q, k and v stacked row-wise, as nn.MultiheadAttention stores it",
                             {packed, shape_string(shape), matrix ? "(3D, D)" : "(3D)"}));
    }
}

// Rows [part·n, (part + 1)·n) of a packed tensor of 3n rows: q, k or v.
DynamicTensor third(const DynamicTensor& packed, std::size_t part) {
    const std::size_t n = packed.shape(0) / 3;
    return xt::view(packed, xt::range(part * n, (part + 1) * n));
}

// w_q, w_k, w_v (or b_q, b_k, b_v) from the split names or from the packed one, as the layout says.
std::vector<DynamicTensor> projections(const NamedTensors& tensors, bool packed, const std::string& packed_name,
                                       const std::vector<std::string>& split) {
    if (!packed) return {tensors.at(split[0]), tensors.at(split[1]), tensors.at(split[2])};
    const DynamicTensor& all = tensors.at(packed_name);
    return {third(all, 0), third(all, 1), third(all, 2)};
}

}  // namespace

void check_final_norm_pair(const std::set<std::string>& names, const std::string& prefix) {
    const bool weight = names.count(prefix + "weight") > 0, bias = names.count(prefix + "bias") > 0;
    if (weight != bias) {
        throw InputError(trf("the final norm needs both {1} and {2}; only {3} is given",
                             {prefix + "weight", prefix + "bias", weight ? prefix + "weight" : prefix + "bias"}));
    }
}

NamedShapes shapes_of(const NamedTensors& tensors) {
    NamedShapes shapes;
    for (const auto& [name, tensor] : tensors) shapes[name].assign(tensor.shape().begin(), tensor.shape().end());
    return shapes;
}

namespace {

bool has_in_projection_bias(const NamedShapes& shapes) {
    for (const char* name : {"in_proj_bias", "b_q", "b_k", "b_v"}) {
        if (shapes.count(name)) return true;
    }
    return false;
}

}  // namespace

AttentionLayout attention_layout(const NamedShapes& shapes, bool no_output_projection) {
    AttentionLayout layout;
    check_projections(shapes, "in_proj_weight", {"w_q", "w_k", "w_v"});
    layout.packed_weight = shapes.count("in_proj_weight") > 0;
    layout.has_bias = has_in_projection_bias(shapes);
    if (layout.has_bias) {
        check_projections(shapes, "in_proj_bias", {"b_q", "b_k", "b_v"});
        layout.packed_bias = shapes.count("in_proj_bias") > 0;
    } else if (shapes.count("b_o")) {
        throw InputError(tr("b_o (out_proj.bias) is given without the in-projection biases (in_proj_bias, or b_q, b_k, "
                            "b_v): nn.MultiheadAttention has both (bias=True) or neither (bias=False); give the missing ones"));
    }
    if (no_output_projection && (shapes.count("w_o") || shapes.count("b_o"))) {
        throw InputError(trf("--no-output-projection and {1} are both given: the model has an output projection (out_proj) "
                             "or none; remove one",
                             {shapes.count("w_o") ? "w_o" : "b_o"}));
    }
    if (!no_output_projection && !shapes.count("w_o")) {
        throw InputError(shapes.count("b_o")
                             ? tr("missing weight 'w_o' (PyTorch's out_proj.weight), while b_o is given: give it, or "
                                  "--no-output-projection for a block without an output projection (seed 000)")
                             : tr("missing weight 'w_o' (PyTorch's out_proj.weight): give it, or --no-output-projection "
                                  "for a block without an output projection (seed 000)"));
    }
    return layout;
}

AttentionLayout encoder_layer_layout(const NamedShapes& shapes) {
    if (!has_in_projection_bias(shapes) && !shapes.count("b_o")) {
        throw InputError(tr("the attention has no biases (no in_proj_bias, no out_proj.bias): a layer built with bias=False "
                            "(nn.TransformerEncoderLayer(bias=False), PyTorch 2.1 and later); encoder-layer and encoder read "
                            "layers with every bias (mha reads nn.MultiheadAttention(bias=False))"));
    }
    const AttentionLayout layout = attention_layout(shapes, false);
    for (const char* name : {"b_o", "norm1_weight", "norm1_bias", "norm2_weight", "norm2_bias", "linear1_weight",
                             "linear1_bias", "linear2_weight", "linear2_bias"}) {
        if (!shapes.count(name)) throw InputError(trf("missing weight '{1}'", {name}));
    }
    return layout;
}

MultiHeadAttentionWeights attention_weights_from(const NamedTensors& tensors, bool no_output_projection) {
    const AttentionLayout layout = attention_layout(shapes_of(tensors), no_output_projection);
    MultiHeadAttentionWeights w;
    const auto weights = projections(tensors, layout.packed_weight, "in_proj_weight", {"w_q", "w_k", "w_v"});
    w.w_q = weights[0];
    w.w_k = weights[1];
    w.w_v = weights[2];
    if (layout.has_bias) {
        const auto biases = projections(tensors, layout.packed_bias, "in_proj_bias", {"b_q", "b_k", "b_v"});
        w.b_q = biases[0];
        w.b_k = biases[1];
        w.b_v = biases[2];
    } else {
        // nn.MultiheadAttention(bias=False): no bias anywhere; zeros add nothing, exactly.
        w.b_q = w.b_k = w.b_v = xt::zeros<double>({w.w_q.shape(0)});
    }
    w.no_output_projection = no_output_projection;
    if (tensors.count("w_o")) w.w_o = Matrix(tensors.at("w_o"));
    if (tensors.count("b_o")) w.b_o = Vector(tensors.at("b_o"));
    return w;
}

EncoderLayerWeights encoder_layer_weights_from(const NamedTensors& tensors) {
    encoder_layer_layout(shapes_of(tensors));
    EncoderLayerWeights w;
    w.attention = attention_weights_from(tensors);
    w.norm1_weight = tensors.at("norm1_weight");
    w.norm1_bias = tensors.at("norm1_bias");
    w.norm2_weight = tensors.at("norm2_weight");
    w.norm2_bias = tensors.at("norm2_bias");
    w.linear1_weight = tensors.at("linear1_weight");
    w.linear1_bias = tensors.at("linear1_bias");
    w.linear2_weight = tensors.at("linear2_weight");
    w.linear2_bias = tensors.at("linear2_bias");
    return w;
}

std::optional<std::pair<std::size_t, std::string>> split_layer_name(const std::string& name, const std::string& prefix) {
    if (name.rfind(prefix, 0) != 0) return std::nullopt;
    std::size_t at = prefix.size(), layer = 0;
    const std::size_t digits_start = at;
    while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at])) && at - digits_start < 6) {
        layer = layer * 10 + static_cast<std::size_t>(name[at++] - '0');
    }
    if (at == digits_start || at >= name.size() || name[at] != '_' || at + 1 == name.size()) return std::nullopt;
    return std::make_pair(layer, name.substr(at + 1));
}

std::vector<LayerStack> layer_stacks(const std::string& module) {
    if (module == "encoder") return {{"layers_", "encoder-layer"}};
    if (module == "decoder") return {{"layers_", "decoder-layer"}};
    if (module == "transformer") return {{"encoder_layers_", "encoder-layer"}, {"decoder_layers_", "decoder-layer"}};
    return {};
}

NamedTensors layer_tensors(const NamedTensors& tensors, std::size_t layer, const std::string& prefix) {
    NamedTensors result;
    for (const auto& [name, tensor] : tensors) {
        const auto split = split_layer_name(name, prefix);
        if (split && split->first == layer) result[split->second] = tensor;
    }
    return result;
}

std::size_t stack_layer_count(const std::set<std::string>& names, const std::string& prefix) {
    std::size_t count = 0;
    for (const auto& name : names) {
        if (const auto split = split_layer_name(name, prefix)) count = std::max(count, split->first + 1);
    }
    if (count == 0) {
        throw InputError(trf("no layer weights: a stack's weights are {1}0_… ({2}), one set per layer",
                             {prefix, prefix == "layers_" ? "layers.0.norm1.weight …" : prefix.substr(0, prefix.size() - 8) +
                                                                                          ".layers.0.norm1.weight …"}));
    }
    std::vector<bool> present(count, false);
    for (const auto& name : names) {
        if (const auto split = split_layer_name(name, prefix)) present[split->first] = true;
    }
    for (std::size_t layer = 0; layer < count; ++layer) {
        if (present[layer]) continue;
        throw InputError(trf("layer {1} has no weights ({2}…), but layer {3} has",
                             {std::to_string(layer), prefix + std::to_string(layer) + "_", std::to_string(count - 1)}));
    }
    return count;
}

std::size_t encoder_layer_count(const std::set<std::string>& names) {
    if (std::none_of(names.begin(), names.end(), [](const std::string& name) { return split_layer_name(name).has_value(); })) {
        throw InputError(tr("no layer weights: an encoder's weights are layers_0_w_q … (layers.0.self_attn.in_proj_weight …)"));
    }
    const std::size_t count = stack_layer_count(names, "layers_");
    check_final_norm_pair(names, "norm_");
    return count;
}

namespace {

// encoder_layer_weights_from on layer `layer`'s tensors (without their prefix), its messages
// prefixed "layers_N_: ".
EncoderLayerWeights encoder_layer_weights_of(const NamedTensors& own, std::size_t layer) {
    try {
        return encoder_layer_weights_from(own);
    } catch (const InputError& e) {
        throw InputError("layers_" + std::to_string(layer) + "_: " + e.what());
    }
}

}  // namespace

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
    for (const char* stack : {"layers_", "encoder_layers_", "decoder_layers_"}) {
        if (const auto split = split_layer_name(result, stack)) {
            prefix = stack + std::to_string(split->first) + "_";
            result = split->second;
            break;
        }
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
