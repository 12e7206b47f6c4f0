// A Transformer encoder layer (lessons/06-encoder-layer/README.md).
//
// The layer in the lesson's two lines, each with its post-norm and pre-norm form:
//   attention:     x = norm1(x + attention(x))     or  x = x + attention(norm1(x))   (norm_first)
//   feed-forward:  x = norm2(x + ffn(x))           or  x = x + ffn(norm2(x))
// Shapes: x (B, T, D), the feed-forward network's hidden layer (B, T, F).
#include "attn/encoder_layer.hpp"

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

EncoderLayerStep transformer_encoder_layer(const Tensor3& x, const EncoderLayerWeights& w,
                                           const EncoderLayerOptions& options) {
    const std::string f = "transformer_encoder_layer";
    check_shapes(f, {{"x", x, "B,T,D"}, {"norm1_weight", w.norm1_weight, "D"}, {"norm1_bias", w.norm1_bias, "D"},
                     {"norm2_weight", w.norm2_weight, "D"}, {"norm2_bias", w.norm2_bias, "D"},
                     {"linear1_weight", w.linear1_weight, "F,D"}, {"linear1_bias", w.linear1_bias, "F"},
                     {"linear2_weight", w.linear2_weight, "D,F"}, {"linear2_bias", w.linear2_bias, "D"},
                     {"attention_mask", options.attention_mask, "B,T"}});
    if (options.heads == 0) {
        throw InputError(f + ": the number of heads is not set; give EncoderLayerOptions::heads (nn.TransformerEncoderLayer's "
                         "nhead), e.g. EncoderLayerOptions options(8)");
    }
    if (!(options.eps > 0.0)) throw InputError(f + ": eps must be a positive number, got " + std::to_string(options.eps));
    const auto norm1 = [&](const Tensor3& y) { return layer_norm(y, w.norm1_weight, w.norm1_bias, options.eps); };
    const auto norm2 = [&](const Tensor3& y) { return layer_norm(y, w.norm2_weight, w.norm2_bias, options.eps); };
    MultiHeadAttentionOptions padding;
    padding.attention_mask = options.attention_mask;
    padding.additive_mask = options.additive_mask;
    padding.weights_dropout = options.dropout;
    const bool pre_norm = options.norm_first;

    EncoderLayerStep step;
    // 1. The attention sub-layer: self-attention (query = key = value), the residual, norm1.
    step.attention_input = pre_norm ? norm1(x) : x;
    const Tensor3& a = step.attention_input;
    step.attention = multi_head_attention(a, a, a, w.attention, options.heads, padding);
    DropoutStep<Tensor3> dropout1 = dropout(step.attention.output, options.dropout);  // training only
    step.attention_dropout = std::move(dropout1.mask);
    step.attention_residual = x + dropout1.output;
    step.after_attention = pre_norm ? step.attention_residual : norm1(step.attention_residual);
    // 2. The feed-forward sub-layer, on each position alone: the residual, norm2.
    step.ffn_input = pre_norm ? norm2(step.after_attention) : step.after_attention;
    const FeedForwardStep ffn = feed_forward(rows_of(step.ffn_input), w.linear1_weight, w.linear1_bias,
                                             w.linear2_weight, w.linear2_bias, options.activation, options.dropout);
    step.ffn_hidden = positions_of(ffn.hidden, x.shape(0), x.shape(1));
    step.ffn_hidden_dropout = ffn.hidden_dropout;
    step.ffn_output = positions_of(ffn.output, x.shape(0), x.shape(1));
    DropoutStep<Tensor3> dropout2 = dropout(step.ffn_output, options.dropout);
    step.ffn_dropout = std::move(dropout2.mask);
    step.ffn_residual = step.after_attention + dropout2.output;
    step.output = pre_norm ? step.ffn_residual : norm2(step.ffn_residual);

    // The attention checked its own intermediates; the first of the others that is not a finite
    // number is named (a NaN from a layer norm of ∞, an overflowing feed-forward network, …).
    const std::string why = detail::overflow_advice;
    detail::require_finite(f, "attention_input", step.attention_input, why);
    detail::require_finite(f, "attention_residual", step.attention_residual, why);
    detail::require_finite(f, "after_attention", step.after_attention, why);
    detail::require_finite(f, "ffn_input", step.ffn_input, why);
    detail::require_finite(f, "ffn_hidden", step.ffn_hidden, why);
    detail::require_finite(f, "ffn_output", step.ffn_output, why);
    detail::require_finite(f, "ffn_residual", step.ffn_residual, why);
    detail::require_finite(f, "output", step.output, why);
    return step;
}

Tensor3 transformer_encoder(const Tensor3& x, const std::vector<EncoderLayerWeights>& layers,
                            const EncoderLayerOptions& options,
                            const std::optional<std::pair<Vector, Vector>>& final_norm,
                            std::optional<double> final_norm_eps) {
    const double norm_eps = final_norm_eps.value_or(options.eps);
    if (!(norm_eps > 0.0)) {
        throw InputError("transformer_encoder: final_norm_eps must be a positive number, got " + std::to_string(norm_eps));
    }
    Tensor3 y = x;
    for (const auto& layer : layers) y = transformer_encoder_layer(y, layer, options).output;
    if (final_norm) y = layer_norm(y, final_norm->first, final_norm->second, norm_eps);
    return y;
}

}  // namespace attn
