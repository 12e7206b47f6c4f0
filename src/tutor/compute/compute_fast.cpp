// `attn compute` on attn::fast (tutor/compute/compute_fast.hpp): the same names, conventions and
// checks as the lesson path, then float32 tensors handed to attn::fast.
#include "tutor/compute/compute_fast.hpp"

#include <algorithm>
#include <cmath>

#include "attn/error.hpp"
#include <xtensor/xview.hpp>

#include "attn/fast/encoder_layer.hpp"
#include "attn/npy_tensor.hpp"
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/compute/named_weights.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

bool is_scores_mask(const std::string& name) { return mask_convention(name) == MaskConvention::scores_mask; }

// Whether a scores mask (T, S) or (1, T, S) is exactly the top-left causal mask, as
// torch.triu(torch.ones(T, S, dtype=torch.bool), 1) or nn.Transformer.generate_square_subsequent_mask
// write it: bool or integer nonzero, or float −∞, exactly where s > t, and 0 (false) elsewhere.
bool is_causal_mask(const NpyArray& mask) {
    const std::size_t rank = mask.shape.size();
    if (rank < 2 || rank > 3 || (rank == 3 && mask.shape[0] != 1)) return false;
    const std::size_t T = mask.shape[rank - 2], S = mask.shape[rank - 1];
    const bool is_float = mask.dtype == NpyDtype::float32 || mask.dtype == NpyDtype::float64;
    for (std::size_t t = 0; t < T; ++t) {
        for (std::size_t s = 0; s < S; ++s) {
            const double value = mask.floats.empty() ? mask.values[t * S + s] : mask.floats[t * S + s];
            const bool hidden = is_float ? value == -HUGE_VAL : value != 0;
            const bool kept = value == 0;
            if (s > t ? !hidden : !kept) return false;
        }
    }
    return true;
}

// The scores mask among the inputs, when it is exactly the causal mask; nullptr otherwise.
const NpyArray* causal_scores_mask(const ComputeInputs& inputs) {
    for (const auto& [name, array] : inputs.arrays) {
        if (is_scores_mask(name)) return is_causal_mask(array) ? &array : nullptr;
    }
    return nullptr;
}

// The option or input that has no fast form, or "" when every one has.
std::string without_fast_form(const ComputeOptions& options, const ComputeInputs& inputs) {
    for (const auto& [name, array] : inputs.arrays) {
        if (is_scores_mask(name) && !is_causal_mask(array)) return name + tr(" (other than the causal mask)");
    }
    if (options.causal && alignment_of(options) == CausalAlignment::bottom_right) return "--causal-alignment bottom-right";
    return "";
}

// (T, B, D) ↔ (B, T, D) on a float32 array, in place of the array's values.
void swap_first_axes(NpyArray& array) {
    if (array.shape.size() != 3 || array.floats.empty()) {  // an empty one is refused by the shape checks
        if (array.shape.size() == 3) std::swap(array.shape[0], array.shape[1]);
        return;
    }
    const std::size_t A = array.shape[0], C = array.shape[1], D = array.shape[2];
    std::vector<float> swapped(array.floats.size());
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t c = 0; c < C; ++c)
            std::copy_n(&array.floats[(a * C + c) * D], D, &swapped[(c * A + a) * D]);
    array.floats.swap(swapped);
    array.shape = {C, A, D};
}

// The array's float32 values as a fast-path tensor; the array is released.
template <class Tensor>
Tensor take(NpyArray& array) {
    Tensor tensor = Tensor::from_shape(array.shape);
    std::copy(array.floats.begin(), array.floats.end(), tensor.begin());
    array = NpyArray();
    return tensor;
}

// Double (the lesson path's checked weights) to float32: exact for values read from float32.
template <class Fast, class Lesson>
Fast narrow(const Lesson& tensor) {
    Fast out = Fast::from_shape(tensor.shape());
    std::copy(tensor.begin(), tensor.end(), out.begin());
    return out;
}

DynamicTensor widen(const fast::Tensor3& tensor) { return DynamicTensor(tensor); }

// The arrays whose names start with `prefix` and that `select` picks, as the lesson path's double
// tensors named without the prefix; each is released from `inputs`.
template <class Select>
NamedTensors widened(ComputeInputs& inputs, const std::string& prefix, Select select) {
    NamedTensors tensors;
    for (auto it = inputs.arrays.begin(); it != inputs.arrays.end();) {
        if (it->first.rfind(prefix, 0) != 0 || !select(it->first)) {
            ++it;
            continue;
        }
        tensors[it->first.substr(prefix.size())] = to_tensor(it->second);
        it = inputs.arrays.erase(it);
    }
    return tensors;
}

// The masks as attn::fast takes them: the padding mask in the library's convention (1 = attend),
// from whichever convention was given, and the causal mask from --causal or from a scores mask
// that is exactly the causal mask (the only one the fast path takes). Every mask is read and
// checked by mask_conventions, as on the lesson path.
struct FastMasks {
    std::optional<fast::Matrix> padding;
    bool causal = false;
};

FastMasks fast_masks(ComputeInputs& inputs, const ComputeOptions& options, const MaskSizes& sizes) {
    FastMasks masks;
    masks.causal = options.causal || causal_scores_mask(inputs) != nullptr;
    const NamedTensors given =
        widened(inputs, "", [](const std::string& name) { return mask_convention(name) != MaskConvention::none; });
    const ModuleMasks read = masks_from(given, options.integer_inputs, sizes);
    if (read.attention_mask) masks.padding = narrow<fast::Matrix>(*read.attention_mask);
    return masks;
}

// The shapes of the arrays named `prefix`…, without the prefix.
NamedShapes shapes_with_prefix(const ComputeInputs& inputs, const std::string& prefix) {
    NamedShapes shapes;
    for (const auto& [name, array] : inputs.arrays) {
        if (name.rfind(prefix, 0) == 0) shapes[name.substr(prefix.size())] = array.shape;
    }
    return shapes;
}

// Takes `prefix` + name from the inputs as a fast-path tensor (the array is released).
struct Taker {
    ComputeInputs& inputs;
    std::string prefix;
    template <class Tensor>
    Tensor take_named(const std::string& name) const {
        return take<Tensor>(inputs.arrays.at(prefix + name));
    }
    template <class Tensor>
    std::optional<Tensor> take_if_given(const std::string& name) const {
        if (!inputs.arrays.count(prefix + name)) return std::nullopt;
        return take_named<Tensor>(name);
    }
};

// Rows [part·n, (part + 1)·n) of a packed tensor of 3n rows: q, k or v.
template <class Tensor>
Tensor third(const Tensor& packed, std::size_t part) {
    const std::size_t n = packed.shape(0) / 3;
    return xt::view(packed, xt::range(part * n, (part + 1) * n));
}

// The attention's parameters as the layout (checked by named_weights, on the shapes) says they
// are given, taken from the float32 arrays without a copy in double.
fast::AttentionParameters fast_attention(const Taker& take, const AttentionLayout& layout, bool no_output_projection) {
    fast::AttentionParameters p;
    if (layout.packed_weight) {
        const fast::Matrix packed = take.take_named<fast::Matrix>("in_proj_weight");
        p.w_q = third(packed, 0), p.w_k = third(packed, 1), p.w_v = third(packed, 2);
    } else {
        p.w_q = take.take_named<fast::Matrix>("w_q");
        p.w_k = take.take_named<fast::Matrix>("w_k");
        p.w_v = take.take_named<fast::Matrix>("w_v");
    }
    if (layout.has_bias && layout.packed_bias) {
        const fast::Vector packed = take.take_named<fast::Vector>("in_proj_bias");
        p.b_q = third(packed, 0), p.b_k = third(packed, 1), p.b_v = third(packed, 2);
    } else if (layout.has_bias) {
        p.b_q = take.take_named<fast::Vector>("b_q");
        p.b_k = take.take_named<fast::Vector>("b_k");
        p.b_v = take.take_named<fast::Vector>("b_v");
    }
    p.w_o = take.take_if_given<fast::Matrix>("w_o");
    p.b_o = take.take_if_given<fast::Vector>("b_o");
    p.no_output_projection = no_output_projection;
    return p;
}

// One encoder layer's parameters, checked with the lesson path's messages ("layers_N_: …" in
// the encoder), taken from the float32 arrays.
fast::EncoderLayerParameters fast_layer(ComputeInputs& inputs, const std::string& prefix) {
    AttentionLayout layout;
    try {
        layout = encoder_layer_layout(shapes_with_prefix(inputs, prefix));
    } catch (const InputError& e) {
        if (prefix.empty()) throw;
        throw InputError(prefix + ": " + e.what());
    }
    const Taker take{inputs, prefix};
    fast::EncoderLayerParameters p;
    p.attention = fast_attention(take, layout, false);
    p.norm1_weight = take.take_named<fast::Vector>("norm1_weight");
    p.norm1_bias = take.take_named<fast::Vector>("norm1_bias");
    p.norm2_weight = take.take_named<fast::Vector>("norm2_weight");
    p.norm2_bias = take.take_named<fast::Vector>("norm2_bias");
    p.linear1_weight = take.take_named<fast::Matrix>("linear1_weight");
    p.linear1_bias = take.take_named<fast::Vector>("linear1_bias");
    p.linear2_weight = take.take_named<fast::Matrix>("linear2_weight");
    p.linear2_bias = take.take_named<fast::Vector>("linear2_bias");
    return p;
}

fast::EncoderLayerOptions fast_layer_options(const ComputeOptions& options, FastMasks masks) {
    fast::EncoderLayerOptions layer(static_cast<std::size_t>(options.heads));
    layer.attention_mask = std::move(masks.padding);
    layer.causal = masks.causal;
    layer.norm_first = options.norm_first;
    layer.eps = static_cast<float>(options.eps.value_or(default_layer_norm_eps));
    layer.activation = options.activation.empty() ? Activation::relu : parse_activation(options.activation);
    return layer;
}

NamedTensors run_mha(ComputeInputs& inputs, const ComputeOptions& options) {
    const auto& q = inputs.arrays.at("query").shape;
    const MaskSizes sizes{q[0], static_cast<std::size_t>(options.heads), q[1], inputs.arrays.at("key").shape[1]};
    fast::AttentionOptions attention(static_cast<std::size_t>(options.heads));
    FastMasks masks = fast_masks(inputs, options, sizes);
    attention.causal = masks.causal;
    attention.attention_mask = std::move(masks.padding);
    NamedShapes weights = shapes_with_prefix(inputs, "");
    for (const char* sequence : {"query", "key", "value"}) weights.erase(sequence);
    const AttentionLayout layout = attention_layout(weights, options.no_output_projection);
    const fast::AttentionParameters parameters = fast_attention(Taker{inputs, ""}, layout, options.no_output_projection);
    const fast::Tensor3 query = take<fast::Tensor3>(inputs.arrays.at("query"));
    const fast::Tensor3 key = take<fast::Tensor3>(inputs.arrays.at("key"));
    const fast::Tensor3 value = take<fast::Tensor3>(inputs.arrays.at("value"));
    const fast::AttentionResult r = fast::multi_head_attention(query, key, value, parameters, attention);
    return {{"output", widen(r.output)}, {"weights", DynamicTensor(*r.weights)}};
}

NamedTensors run_encoder_layer(ComputeInputs& inputs, const ComputeOptions& options) {
    const auto& x = inputs.arrays.at("x").shape;
    fast::EncoderLayerOptions layer = fast_layer_options(options, fast_masks(inputs, options, {x[0], static_cast<std::size_t>(options.heads), x[1], x[1]}));
    const fast::EncoderLayerParameters parameters = fast_layer(inputs, "");
    const fast::Tensor3 input = take<fast::Tensor3>(inputs.arrays.at("x"));
    return {{"output", widen(fast::transformer_encoder_layer(input, parameters, layer))}};
}

// nn.LayerNorm over the last axis, in place: the encoder's final norm (biased variance, eps
// inside the square root; sums in double).
void final_layer_norm(fast::Tensor3& x, const fast::Vector& weight, const fast::Vector& bias, double eps) {
    const std::size_t D = x.shape(2), rows = x.size() / D;
    for (std::size_t row = 0; row < rows; ++row) {
        float* values = x.data() + row * D;
        double sum = 0, squares = 0;
        for (std::size_t d = 0; d < D; ++d) sum += values[d];
        const double mean = sum / static_cast<double>(D);
        for (std::size_t d = 0; d < D; ++d) squares += (values[d] - mean) * (values[d] - mean);
        const double scale = 1.0 / std::sqrt(squares / static_cast<double>(D) + eps);
        for (std::size_t d = 0; d < D; ++d) values[d] = static_cast<float>((values[d] - mean) * scale * weight(d) + bias(d));
    }
}

NamedTensors run_encoder(ComputeInputs& inputs, const ComputeOptions& options) {
    std::set<std::string> names;
    for (const auto& [name, array] : inputs.arrays) names.insert(name);
    const std::size_t count = encoder_layer_count(names);
    const bool final_norm = names.count("norm_weight") > 0;
    if (options.norm_eps && !final_norm) {
        throw InputError(tr("--norm-eps sets the final norm's eps, and there is no final norm (norm_weight, norm_bias): "
                            "remove --norm-eps or give the norm's weights"));
    }
    const auto& x = inputs.arrays.at("x").shape;
    fast::EncoderLayerOptions layer = fast_layer_options(options, fast_masks(inputs, options, {x[0], static_cast<std::size_t>(options.heads), x[1], x[1]}));
    std::vector<fast::EncoderLayerParameters> layers;
    for (std::size_t n = 0; n < count; ++n) layers.push_back(fast_layer(inputs, "layers_" + std::to_string(n) + "_"));
    fast::Tensor3 current = take<fast::Tensor3>(inputs.arrays.at("x")), next;
    fast::EncoderLayerWorkspace workspace;
    for (const auto& parameters : layers) {
        fast::transformer_encoder_layer_into(current, parameters, layer, next, workspace);
        std::swap(current, next);
    }
    if (final_norm) {
        final_layer_norm(current, take<fast::Vector>(inputs.arrays.at("norm_weight")),
                         take<fast::Vector>(inputs.arrays.at("norm_bias")), options.norm_eps.value_or(options.eps.value_or(default_layer_norm_eps)));
    }
    return {{"output", widen(current)}};
}

}  // namespace

bool runs_on_fast_path(const ComputeModule& module, const ComputeOptions& options, const ComputeInputs& inputs) {
    if (!module.has_fast_path || options.precision == "float64" || options.grad) return false;
    const std::string missing = without_fast_form(options, inputs);
    if (options.precision.empty()) return inputs.all_float32 && missing.empty();
    if (!inputs.all_float32) {
        // The first float64 tensor, a weight or a sequence before a mask.
        std::vector<std::string> float64;
        for (const auto& [name, array] : inputs.arrays) {
            if (array.dtype == NpyDtype::float64) float64.push_back(name);
        }
        std::stable_partition(float64.begin(), float64.end(),
                              [](const std::string& name) { return mask_convention(name) == MaskConvention::none; });
        throw InputError(trf("--precision float32 computes in float32, and {1} is float64: save it as float32, or "
                             "use --precision float64",
                             {inputs.sources.at(float64.front())}));
    }
    if (!missing.empty()) {
        throw InputError(trf("--precision float32 runs on the fast path, which has no form of {1}: use --precision "
                             "float64 (the lesson path) or leave --precision out",
                             {missing}));
    }
    return true;
}

NamedTensors run_compute_module_fast(const ComputeModule& module, ComputeInputs& inputs, const ComputeOptions& options) {
    if (options.seq_first) {
        for (const auto& spec : module.inputs) {
            const auto found = inputs.arrays.find(spec.name);
            if (is_sequence(spec) && found != inputs.arrays.end()) swap_first_axes(found->second);
        }
    }
    NamedShapes shapes;
    for (const auto& [name, array] : inputs.arrays) shapes[name] = array.shape;
    validate_compute_layout(module, shapes, options);
    for (const auto& [name, array] : inputs.arrays) {
        if (array.dtype == NpyDtype::float32) check_finite_input(name, array.floats.data(), array.shape);
    }
    check_compute_working_sizes(module, shapes, options);
    NamedTensors outputs = module.name == "mha"             ? run_mha(inputs, options)
                           : module.name == "encoder-layer" ? run_encoder_layer(inputs, options)
                                                            : run_encoder(inputs, options);
    finish_outputs(module, outputs, options);
    return outputs;
}

}  // namespace attn::tutor
