// `attn compute` on attn::fast (tutor/compute/compute_fast.hpp): the same names, conventions and
// checks as the lesson path, then float32 tensors handed to attn::fast.
#include "tutor/compute/compute_fast.hpp"

#include <algorithm>
#include <cmath>

#include "attn/error.hpp"
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

fast::AttentionParameters fast_attention(const MultiHeadAttentionWeights& w) {
    fast::AttentionParameters p;
    p.w_q = narrow<fast::Matrix>(w.w_q);
    p.w_k = narrow<fast::Matrix>(w.w_k);
    p.w_v = narrow<fast::Matrix>(w.w_v);
    p.b_q = narrow<fast::Vector>(w.b_q);
    p.b_k = narrow<fast::Vector>(w.b_k);
    p.b_v = narrow<fast::Vector>(w.b_v);
    if (w.w_o) p.w_o = narrow<fast::Matrix>(*w.w_o);
    if (w.b_o) p.b_o = narrow<fast::Vector>(*w.b_o);
    p.no_output_projection = w.no_output_projection;
    return p;
}

// One encoder layer's weights, checked by the lesson path's named_weights (the same messages),
// then narrowed; the layer's arrays are released, so no more than one layer exists in double.
fast::EncoderLayerParameters fast_layer(ComputeInputs& inputs, const std::string& prefix, std::optional<std::size_t> layer) {
    auto is_weight = [](const std::string& name) { return name != "x" && mask_convention(name) == MaskConvention::none; };
    const EncoderLayerWeights w = [&] {  // the widened copies freed before the narrowed ones are made
        const NamedTensors own = widened(inputs, prefix, is_weight);
        return layer ? encoder_layer_weights_of(own, *layer) : encoder_layer_weights_from(own);
    }();
    fast::EncoderLayerParameters p;
    p.attention = fast_attention(w.attention);
    p.norm1_weight = narrow<fast::Vector>(w.norm1_weight);
    p.norm1_bias = narrow<fast::Vector>(w.norm1_bias);
    p.norm2_weight = narrow<fast::Vector>(w.norm2_weight);
    p.norm2_bias = narrow<fast::Vector>(w.norm2_bias);
    p.linear1_weight = narrow<fast::Matrix>(w.linear1_weight);
    p.linear1_bias = narrow<fast::Vector>(w.linear1_bias);
    p.linear2_weight = narrow<fast::Matrix>(w.linear2_weight);
    p.linear2_bias = narrow<fast::Vector>(w.linear2_bias);
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
    const fast::AttentionParameters parameters = fast_attention(attention_weights_from(
        widened(inputs, "", [](const std::string& name) { return name != "query" && name != "key" && name != "value"; }),
        options.no_output_projection));
    const fast::Tensor3 query = take<fast::Tensor3>(inputs.arrays.at("query"));
    const fast::Tensor3 key = take<fast::Tensor3>(inputs.arrays.at("key"));
    const fast::Tensor3 value = take<fast::Tensor3>(inputs.arrays.at("value"));
    const fast::AttentionResult r = fast::multi_head_attention(query, key, value, parameters, attention);
    return {{"output", widen(r.output)}, {"weights", DynamicTensor(*r.weights)}};
}

NamedTensors run_encoder_layer(ComputeInputs& inputs, const ComputeOptions& options) {
    const auto& x = inputs.arrays.at("x").shape;
    fast::EncoderLayerOptions layer = fast_layer_options(options, fast_masks(inputs, options, {x[0], static_cast<std::size_t>(options.heads), x[1], x[1]}));
    const fast::EncoderLayerParameters parameters = fast_layer(inputs, "", std::nullopt);
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
    for (std::size_t n = 0; n < count; ++n) layers.push_back(fast_layer(inputs, "layers_" + std::to_string(n) + "_", n));
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
    if (!module.has_fast_path || options.precision == "float64") return false;
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
