// nn.Transformer (attn/transformer.hpp): the encoder stack, then the decoder stack reading its
// output. Every check of a layer is the layer's; here only what involves both inputs.
#include "attn/transformer.hpp"

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {
namespace {

// What every layer of both stacks shares: the number of heads, the norms' order and eps, the activation.
template <class LayerOptions>
LayerOptions layer_options(const TransformerOptions& options) {
    LayerOptions layer(options.heads);
    layer.norm_first = options.norm_first;
    layer.eps = options.eps;
    layer.activation = options.activation;
    return layer;
}

}  // namespace

TransformerResult transformer(const Tensor3& src, const Tensor3& tgt, const TransformerWeights& weights,
                              const TransformerOptions& options) {
    const std::string f = "transformer";
    check_shapes(f, {{"src", src, "B,S,D"}, {"tgt", tgt, "B,T,D"}});
    if (options.heads == 0) {
        throw InputError(f + ": the number of heads is not set; give TransformerOptions::heads (nn.Transformer's nhead), "
                             "e.g. TransformerOptions options(8)");
    }
    EncoderLayerOptions encoder = layer_options<EncoderLayerOptions>(options);
    encoder.attention_mask = options.src_attention_mask;
    encoder.additive_mask = options.src_mask;
    DecoderLayerOptions decoder = layer_options<DecoderLayerOptions>(options);
    decoder.causal = options.causal;
    decoder.tgt_mask = options.tgt_mask;
    decoder.tgt_attention_mask = options.tgt_attention_mask;
    decoder.memory_mask = options.memory_mask;
    decoder.memory_attention_mask = options.memory_attention_mask;

    TransformerResult result;
    result.memory = transformer_encoder(src, weights.encoder_layers, encoder, weights.encoder_norm, options.final_norm_eps);
    result.output = transformer_decoder(tgt, result.memory, weights.decoder_layers, decoder, weights.decoder_norm,
                                        options.final_norm_eps);
    return result;
}

}  // namespace attn
