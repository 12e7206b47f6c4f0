// `attn compute MODULE --grad` (tutor/compute/compute_gradients.hpp).
#include "tutor/compute/compute_gradients.hpp"

#include <stdexcept>

#include <xtensor/xbuilder.hpp>

#include "attn/encoder_layer_backward.hpp"
#include "attn/error.hpp"
#include "attn/multi_head_attention_backward.hpp"
#include "attn/scaled_dot_product_attention_backward.hpp"
#include "attn/shape.hpp"
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

// The attention's parameter gradients under every name its weights may have been given by: split
// (w_q, …, b_v) and packed as nn.MultiheadAttention stores them (in_proj_weight = w_q; w_k; w_v
// row-wise, in_proj_bias likewise). Only the names the user gave are kept (add_gradients).
void name_attention_gradients(const MultiHeadAttentionWeights& grad, NamedTensors& named) {
    named["w_q"] = grad.w_q;
    named["w_k"] = grad.w_k;
    named["w_v"] = grad.w_v;
    named["b_q"] = grad.b_q;
    named["b_k"] = grad.b_k;
    named["b_v"] = grad.b_v;
    named["in_proj_weight"] = xt::concatenate(xt::xtuple(grad.w_q, grad.w_k, grad.w_v), 0);
    named["in_proj_bias"] = xt::concatenate(xt::xtuple(grad.b_q, grad.b_k, grad.b_v), 0);
    if (grad.w_o) named["w_o"] = *grad.w_o;
    if (grad.b_o) named["b_o"] = *grad.b_o;
}

NamedTensors self_attention_gradients(const NamedTensors& inputs, const Tensor3& grad_output, const ComputeOptions& options) {
    const AttentionOptions attention = causal_attention_options(options);
    const Tensor3 Q = inputs.at("Q"), K = inputs.at("K"), V = inputs.at("V");
    const ScaledDotProductAttentionResult forward = scaled_dot_product_attention(Q, K, V, attention);
    const auto grad = scaled_dot_product_attention_backward(Q, K, V, forward, grad_output, attention);
    return {{"Q", grad.query}, {"K", grad.key}, {"V", grad.value}};
}

NamedTensors mha_gradients(const NamedTensors& inputs, const Tensor3& grad_output, const ComputeOptions& options) {
    const MultiHeadAttentionWeights w = attention_weights_from(inputs, options.no_output_projection);
    const AttentionOptions attention = mha_attention_options(inputs, options);
    const auto heads = static_cast<std::size_t>(options.heads);
    const Tensor3 query = inputs.at("query"), key = inputs.at("key"), value = inputs.at("value");
    const MultiHeadAttentionResult forward = multi_head_attention(query, key, value, w, heads, attention);
    const auto grad = multi_head_attention_backward(query, key, value, w, heads, forward, grad_output, attention);
    NamedTensors named = {{"query", grad.query}, {"key", grad.key}, {"value", grad.value}};
    name_attention_gradients(grad.weights, named);
    return named;
}

NamedTensors encoder_layer_gradients(const NamedTensors& inputs, const Tensor3& grad_output, const ComputeOptions& options) {
    const EncoderLayerWeights w = encoder_layer_weights_from(inputs);
    const EncoderLayerOptions layer = encoder_layer_options(inputs, options);
    const Tensor3 x = inputs.at("x");
    const EncoderLayerStep step = transformer_encoder_layer(x, w, layer);
    const EncoderLayerGradients grad = transformer_encoder_layer_backward(x, w, layer, step, grad_output);
    NamedTensors named = {{"x", grad.x},
                          {"norm1_weight", grad.weights.norm1_weight}, {"norm1_bias", grad.weights.norm1_bias},
                          {"norm2_weight", grad.weights.norm2_weight}, {"norm2_bias", grad.weights.norm2_bias},
                          {"linear1_weight", grad.weights.linear1_weight}, {"linear1_bias", grad.weights.linear1_bias},
                          {"linear2_weight", grad.weights.linear2_weight}, {"linear2_bias", grad.weights.linear2_bias}};
    name_attention_gradients(grad.weights.attention, named);
    return named;
}

NamedTensors library_gradients(const ComputeModule& module, const NamedTensors& inputs, const Tensor3& grad_output,
                               const ComputeOptions& options) {
    if (module.name == "self-attention") return self_attention_gradients(inputs, grad_output, options);
    if (module.name == "mha") return mha_gradients(inputs, grad_output, options);
    if (module.name == "encoder-layer") return encoder_layer_gradients(inputs, grad_output, options);
    throw std::logic_error(module.name + " has no backward");
}

bool is_mask(const std::string& name, const ComputeOptions& options) {
    return options.integer_inputs.count(name) > 0 || mask_convention(name) != MaskConvention::none;
}

bool is_sequence_input(const ComputeModule& module, const std::string& name) {
    for (const auto& spec : module.inputs) {
        if (spec.name == name) return is_sequence(spec);
    }
    return false;
}

void check_grad_output(const DynamicTensor& grad_output, const DynamicTensor& output) {
    const std::vector<std::size_t> given(grad_output.shape().begin(), grad_output.shape().end());
    const std::vector<std::size_t> wanted(output.shape().begin(), output.shape().end());
    if (given != wanted) {
        throw ShapeError(trf("grad_output {1} must have the shape of output, {2}: it is the gradient of the loss with "
                             "respect to output, as output.backward(grad_output) takes it",
                             {shape_string(given), shape_string(wanted)}));
    }
    check_finite_input(grad_output_name, grad_output.data(), given);
}

}  // namespace

void add_gradients(const ComputeModule& module, const NamedTensors& given, const DynamicTensor& grad_output,
                   const ComputeOptions& options, NamedTensors& outputs) {
    check_grad_output(grad_output, outputs.at("output"));
    // The library is batch-first: under --seq-first the sequences and grad_output are turned, and
    // the sequences' gradients turned back.
    NamedTensors inputs = given;
    for (auto& [name, tensor] : inputs) {
        if (options.seq_first && is_sequence_input(module, name)) tensor = swap_first_axes(tensor);
    }
    const Tensor3 upstream = options.seq_first ? swap_first_axes(grad_output) : grad_output;
    const NamedTensors gradients = library_gradients(module, inputs, upstream, options);
    for (const auto& [name, tensor] : given) {
        if (is_mask(name, options)) continue;
        const auto found = gradients.find(name);
        if (found == gradients.end()) throw std::logic_error(module.name + " computed no gradient for " + name);
        DynamicTensor gradient = options.seq_first && is_sequence_input(module, name) ? swap_first_axes(found->second)
                                                                                     : found->second;
        const std::string output_name = "grad_" + name;
        check_finite_result(output_name, gradient);
        outputs[output_name] = std::move(gradient);
    }
}

}  // namespace attn::tutor
