// nn.Transformer (attn/transformer.hpp): the encoder stack, then the decoder stack reading its
// output. Every check of a layer is the layer's; here only what involves both inputs.
// transformer() is transformer_steps (attn/transformer_backward.hpp) without the intermediates.
#include "attn/transformer.hpp"

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "attn/transformer_backward.hpp"
#include "transformer_layers.hpp"

namespace attn {
namespace detail {
namespace {

// What every layer of both stacks shares: the number of heads, the norms' order and eps, the activation.
template <class LayerOptions>
LayerOptions shared_layer_options(const TransformerOptions& options) {
    LayerOptions layer(options.heads);
    layer.norm_first = options.norm_first;
    layer.eps = options.eps;
    layer.activation = options.activation;
    layer.dropout = options.dropout;  // one generator: the layers draw their masks in the order they run
    return layer;
}

}  // namespace

EncoderLayerOptions encoder_layer_options(const TransformerOptions& options) {
    EncoderLayerOptions encoder = shared_layer_options<EncoderLayerOptions>(options);
    encoder.attention_mask = options.src_attention_mask;
    encoder.additive_mask = options.src_mask;
    return encoder;
}

DecoderLayerOptions decoder_layer_options(const TransformerOptions& options) {
    DecoderLayerOptions decoder = shared_layer_options<DecoderLayerOptions>(options);
    decoder.causal = options.causal;
    decoder.tgt_mask = options.tgt_mask;
    decoder.tgt_attention_mask = options.tgt_attention_mask;
    decoder.memory_mask = options.memory_mask;
    decoder.memory_attention_mask = options.memory_attention_mask;
    return decoder;
}

double final_norm_eps(const std::string& function, const TransformerOptions& options) {
    const double eps = options.final_norm_eps.value_or(options.eps);
    if (!(eps > 0.0)) {
        throw InputError(function + ": final_norm_eps must be a positive number, got " + std::to_string(eps));
    }
    return eps;
}

}  // namespace detail

TransformerSteps transformer_steps(const Tensor3& src, const Tensor3& tgt, const TransformerWeights& weights,
                                   const TransformerOptions& options) {
    const std::string f = "transformer";
    check_shapes(f, {{"src", src, "B,S,D"}, {"tgt", tgt, "B,T,D"}});
    if (options.heads == 0) {
        throw InputError(f + ": the number of heads is not set; give TransformerOptions::heads (nn.Transformer's nhead), "
                             "e.g. TransformerOptions options(8)");
    }
    const double norm_eps = detail::final_norm_eps(f, options);
    const EncoderLayerOptions encoder = detail::encoder_layer_options(options);
    const DecoderLayerOptions decoder = detail::decoder_layer_options(options);

    TransformerSteps steps;
    // The encoder: src (B, S, D) through its layers and encoder.norm into the memory (B, S, D).
    steps.encoder_stack_output = src;
    for (const EncoderLayerWeights& layer : weights.encoder_layers) {
        steps.encoder_layers.push_back(transformer_encoder_layer(steps.encoder_stack_output, layer, encoder));
        steps.encoder_stack_output = steps.encoder_layers.back().output;
    }
    steps.memory = layer_norm(steps.encoder_stack_output, weights.encoder_norm.first, weights.encoder_norm.second,
                              norm_eps);
    // The decoder: tgt (B, T, D) through its layers, each reading the memory, and decoder.norm.
    steps.decoder_stack_output = tgt;
    for (const DecoderLayerWeights& layer : weights.decoder_layers) {
        steps.decoder_layers.push_back(transformer_decoder_layer(steps.decoder_stack_output, steps.memory, layer, decoder));
        steps.decoder_stack_output = steps.decoder_layers.back().output;
    }
    steps.output = layer_norm(steps.decoder_stack_output, weights.decoder_norm.first, weights.decoder_norm.second,
                              norm_eps);
    return steps;
}

TransformerResult transformer(const Tensor3& src, const Tensor3& tgt, const TransformerWeights& weights,
                              const TransformerOptions& options) {
    TransformerSteps steps = transformer_steps(src, tgt, weights, options);
    return {std::move(steps.memory), std::move(steps.output)};
}

}  // namespace attn
