// nn.Transformer backwards (attn/transformer_backward.hpp): decoder.norm, the decoder layers from
// the last to the first, summing the memory's gradient; then encoder.norm and the encoder layers.
#include "attn/transformer_backward.hpp"

#include <xtensor/xbuilder.hpp>

#include "attn/decoder_layer_backward.hpp"
#include "attn/encoder_layer_backward.hpp"
#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"
#include "sublayer_backward.hpp"
#include "transformer_layers.hpp"

namespace attn {
namespace {

const std::string function_name = "transformer_backward";

// The steps must be of these weights: one step per layer.
void check_layer_counts(const char* stack, std::size_t steps, std::size_t layers) {
    if (steps == layers) return;
    throw ShapeError(function_name + ": steps." + stack + " holds " + std::to_string(steps) + " layer steps but weights." +
                     stack + " " + std::to_string(layers) + " layers; pass the steps transformer_steps returned for "
                     "these weights");
}

// decoder.norm and the decoder layers, last to first. Returns tgt's gradient (B, T, D) and adds each
// layer's memory gradient into grad_memory (B, S, D).
Tensor3 decoder_stack_backward(const Tensor3& tgt, const TransformerWeights& w, const TransformerOptions& options,
                               const TransformerSteps& steps, const Tensor3& grad_output, TransformerWeights& gw,
                               Tensor3& grad_memory) {
    const DecoderLayerOptions decoder = detail::decoder_layer_options(options);
    Tensor3 grad = detail::layer_norm_backward_at(steps.decoder_stack_output, w.decoder_norm.first,
                                                  w.decoder_norm.second, detail::final_norm_eps(function_name, options),
                                                  grad_output, gw.decoder_norm.first, gw.decoder_norm.second);
    gw.decoder_layers.resize(w.decoder_layers.size());
    for (std::size_t j = w.decoder_layers.size(); j-- > 0;) {
        const Tensor3& input = j == 0 ? tgt : steps.decoder_layers[j - 1].output;
        DecoderLayerGradients layer = transformer_decoder_layer_backward(input, steps.memory, w.decoder_layers[j],
                                                                         decoder, steps.decoder_layers[j], grad);
        grad = std::move(layer.tgt);
        grad_memory += layer.memory;
        gw.decoder_layers[j] = std::move(layer.weights);
    }
    return grad;
}

// encoder.norm and the encoder layers, last to first. Returns src's gradient (B, S, D).
Tensor3 encoder_stack_backward(const Tensor3& src, const TransformerWeights& w, const TransformerOptions& options,
                               const TransformerSteps& steps, const Tensor3& grad_memory, TransformerWeights& gw) {
    const EncoderLayerOptions encoder = detail::encoder_layer_options(options);
    Tensor3 grad = detail::layer_norm_backward_at(steps.encoder_stack_output, w.encoder_norm.first,
                                                  w.encoder_norm.second, detail::final_norm_eps(function_name, options),
                                                  grad_memory, gw.encoder_norm.first, gw.encoder_norm.second);
    gw.encoder_layers.resize(w.encoder_layers.size());
    for (std::size_t i = w.encoder_layers.size(); i-- > 0;) {
        const Tensor3& input = i == 0 ? src : steps.encoder_layers[i - 1].output;
        EncoderLayerGradients layer =
            transformer_encoder_layer_backward(input, w.encoder_layers[i], encoder, steps.encoder_layers[i], grad);
        grad = std::move(layer.x);
        gw.encoder_layers[i] = std::move(layer.weights);
    }
    return grad;
}

}  // namespace

TransformerGradients transformer_backward(const Tensor3& src, const Tensor3& tgt, const TransformerWeights& w,
                                          const TransformerOptions& options, const TransformerSteps& steps,
                                          const Tensor3& grad_output) {
    // src (B, S, D), tgt (B, T, D), the steps, dy (B, T, D) → dsrc (B, S, D), dtgt (B, T, D), every parameter's gradient
    check_shapes(function_name,
                 {{"src", src, "B,S,D"}, {"tgt", tgt, "B,T,D"},
                  {"steps.encoder_stack_output", steps.encoder_stack_output, "B,S,D"},
                  {"steps.memory", steps.memory, "B,S,D"},
                  {"steps.decoder_stack_output", steps.decoder_stack_output, "B,T,D"},
                  {"grad_output", grad_output, "B,T,D"}});
    check_layer_counts("encoder_layers", steps.encoder_layers.size(), w.encoder_layers.size());
    check_layer_counts("decoder_layers", steps.decoder_layers.size(), w.decoder_layers.size());
    detail::require_finite(function_name, "grad_output", grad_output, detail::upstream_gradient_advice);
    TransformerGradients grad;
    Tensor3 grad_memory = xt::zeros_like(steps.memory);   // every decoder layer's cross-attention adds its share
    grad.tgt = decoder_stack_backward(tgt, w, options, steps, grad_output, grad.weights, grad_memory);
    grad.src = encoder_stack_backward(src, w, options, steps, grad_memory, grad.weights);
    return grad;
}

}  // namespace attn
