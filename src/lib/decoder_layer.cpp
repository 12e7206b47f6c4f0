// A Transformer decoder layer (attn/decoder_layer.hpp), written as the encoder layer is
// (src/lib/encoder_layer.cpp): the same residual-and-norm wrapping, one sub-layer more.
//   self-attention:   x = norm1(x + self_attention(x))          or  x = x + self_attention(norm1(x))
//   cross-attention:  x = norm2(x + cross_attention(x, memory))  or  x = x + cross_attention(norm2(x), memory)
//   feed-forward:     x = norm3(x + ffn(x))                      or  x = x + ffn(norm3(x))
// Shapes: tgt (B, T, D), memory (B, S, D), the feed-forward network's hidden layer (B, T, F).
#include "attn/decoder_layer.hpp"

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {
namespace {

// Everything the layer can check before computing, each error naming the argument.
void check_decoder_arguments(const std::string& f, const Tensor3& tgt, const Tensor3& memory,
                             const DecoderLayerWeights& w, const DecoderLayerOptions& options) {
    check_shapes(f, {{"tgt", tgt, "B,T,D"}, {"memory", memory, "B,S,D"},
                     {"norm1_weight", w.norm1_weight, "D"}, {"norm1_bias", w.norm1_bias, "D"},
                     {"norm2_weight", w.norm2_weight, "D"}, {"norm2_bias", w.norm2_bias, "D"},
                     {"norm3_weight", w.norm3_weight, "D"}, {"norm3_bias", w.norm3_bias, "D"},
                     {"linear1_weight", w.linear1_weight, "F,D"}, {"linear1_bias", w.linear1_bias, "F"},
                     {"linear2_weight", w.linear2_weight, "D,F"}, {"linear2_bias", w.linear2_bias, "D"},
                     {"tgt_attention_mask", options.tgt_attention_mask, "B,T"},
                     {"memory_attention_mask", options.memory_attention_mask, "B,S"}});
    if (options.heads == 0) {
        throw InputError(f + ": the number of heads is not set; give DecoderLayerOptions::heads (nn.TransformerDecoderLayer's "
                         "nhead), e.g. DecoderLayerOptions options(8)");
    }
    if (!(options.eps > 0.0)) throw InputError(f + ": eps must be a positive number, got " + std::to_string(options.eps));
    const std::size_t rows = tgt.shape(0) * options.heads, T = tgt.shape(1), S = memory.shape(1);
    if (options.tgt_mask) check_additive_mask(f + ": tgt_mask", *options.tgt_mask, rows, "B·h", T, T);
    if (options.memory_mask) check_additive_mask(f + ": memory_mask", *options.memory_mask, rows, "B·h", T, S);
}

}  // namespace

DecoderLayerStep transformer_decoder_layer(const Tensor3& tgt, const Tensor3& memory, const DecoderLayerWeights& w,
                                           const DecoderLayerOptions& options) {
    const std::string f = "transformer_decoder_layer";
    check_decoder_arguments(f, tgt, memory, w, options);
    const auto norm = [&](const Tensor3& y, const Vector& weight, const Vector& bias) {
        return layer_norm(y, weight, bias, options.eps);
    };
    const bool pre_norm = options.norm_first;
    MultiHeadAttentionOptions self_masks;  // the future and the target's padding
    self_masks.causal = options.causal;
    self_masks.attention_mask = options.tgt_attention_mask;
    self_masks.additive_mask = options.tgt_mask;
    self_masks.weights_dropout = options.dropout;
    MultiHeadAttentionOptions memory_masks;  // the memory's padding only: every target position may read the whole source
    memory_masks.attention_mask = options.memory_attention_mask;
    memory_masks.additive_mask = options.memory_mask;
    memory_masks.weights_dropout = options.dropout;

    DecoderLayerStep step;
    // 1. Masked self-attention over the target: the residual, norm1.
    step.self_attention_input = pre_norm ? norm(tgt, w.norm1_weight, w.norm1_bias) : tgt;
    const Tensor3& a = step.self_attention_input;
    step.self_attention = multi_head_attention(a, a, a, w.self_attention, options.heads, self_masks);
    DropoutStep<Tensor3> dropout1 = dropout(step.self_attention.output, options.dropout);  // training only
    step.self_attention_dropout = std::move(dropout1.mask);
    step.self_attention_residual = tgt + dropout1.output;
    step.after_self_attention = pre_norm ? step.self_attention_residual
                                         : norm(step.self_attention_residual, w.norm1_weight, w.norm1_bias);
    // 2. Cross-attention: queries from the target, keys and values from the memory as it is.
    step.cross_attention_input = pre_norm ? norm(step.after_self_attention, w.norm2_weight, w.norm2_bias)
                                          : step.after_self_attention;
    step.cross_attention = multi_head_attention(step.cross_attention_input, memory, memory, w.cross_attention,
                                                options.heads, memory_masks);
    DropoutStep<Tensor3> dropout2 = dropout(step.cross_attention.output, options.dropout);
    step.cross_attention_dropout = std::move(dropout2.mask);
    step.cross_attention_residual = step.after_self_attention + dropout2.output;
    step.after_cross_attention = pre_norm ? step.cross_attention_residual
                                          : norm(step.cross_attention_residual, w.norm2_weight, w.norm2_bias);
    // 3. The feed-forward network, on each position alone: the residual, norm3.
    step.ffn_input = pre_norm ? norm(step.after_cross_attention, w.norm3_weight, w.norm3_bias) : step.after_cross_attention;
    const FeedForwardStep ffn = feed_forward(rows_of(step.ffn_input), w.linear1_weight, w.linear1_bias,
                                             w.linear2_weight, w.linear2_bias, options.activation, options.dropout);
    step.ffn_hidden = positions_of(ffn.hidden, tgt.shape(0), tgt.shape(1));
    step.ffn_hidden_dropout = ffn.hidden_dropout;
    step.ffn_output = positions_of(ffn.output, tgt.shape(0), tgt.shape(1));
    DropoutStep<Tensor3> dropout3 = dropout(step.ffn_output, options.dropout);
    step.ffn_dropout = std::move(dropout3.mask);
    step.ffn_residual = step.after_cross_attention + dropout3.output;
    step.output = pre_norm ? step.ffn_residual : norm(step.ffn_residual, w.norm3_weight, w.norm3_bias);

    // The attentions checked their own intermediates; the first of the others that is not a
    // finite number is named.
    const std::pair<const char*, const Tensor3*> checked[] = {
        {"self_attention_input", &step.self_attention_input}, {"self_attention_residual", &step.self_attention_residual},
        {"after_self_attention", &step.after_self_attention}, {"cross_attention_input", &step.cross_attention_input},
        {"cross_attention_residual", &step.cross_attention_residual}, {"after_cross_attention", &step.after_cross_attention},
        {"ffn_input", &step.ffn_input}, {"ffn_hidden", &step.ffn_hidden}, {"ffn_output", &step.ffn_output},
        {"ffn_residual", &step.ffn_residual}, {"output", &step.output}};
    for (const auto& [name, tensor] : checked) detail::require_finite(f, name, *tensor, detail::overflow_advice);
    return step;
}

Tensor3 transformer_decoder(const Tensor3& tgt, const Tensor3& memory, const std::vector<DecoderLayerWeights>& layers,
                            const DecoderLayerOptions& options, const std::optional<std::pair<Vector, Vector>>& final_norm,
                            std::optional<double> final_norm_eps) {
    const double norm_eps = final_norm_eps.value_or(options.eps);
    if (!(norm_eps > 0.0)) {
        throw InputError("transformer_decoder: final_norm_eps must be a positive number, got " + std::to_string(norm_eps));
    }
    Tensor3 y = tgt;
    for (const auto& layer : layers) y = transformer_decoder_layer(y, memory, layer, options).output;
    if (final_norm) y = layer_norm(y, final_norm->first, final_norm->second, norm_eps);
    return y;
}

}  // namespace attn
