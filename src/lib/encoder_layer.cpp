#include "attn/encoder_layer.hpp"

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

Matrix as_rows(const Tensor3& x) {
    Matrix rows = Matrix::from_shape({x.shape(0) * x.shape(1), x.shape(2)});
    std::copy(x.begin(), x.end(), rows.begin());
    return rows;
}

Tensor3 as_tensor(const Matrix& rows, std::size_t B, std::size_t T) {
    Tensor3 x = Tensor3::from_shape({B, T, rows.shape(1)});
    std::copy(rows.begin(), rows.end(), x.begin());
    return x;
}

void require_vector(const char* name, const Vector& v, std::size_t size, const Tensor3& x) {
    if (v.shape(0) != size) {
        throw ShapeError(std::string("transformer_encoder_layer: ") + name + " has shape " + shape_string(v.shape()) +
                         " but x has shape " + shape_string(x.shape()) + "; it must be (" + std::to_string(size) + ")");
    }
}

}  // namespace

EncoderLayerStep transformer_encoder_layer(const Tensor3& x, const EncoderLayerWeights& weights,
                                           const EncoderLayerOptions& options) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    require_vector("norm1_weight", weights.norm1_weight, D, x);
    require_vector("norm1_bias", weights.norm1_bias, D, x);
    require_vector("norm2_weight", weights.norm2_weight, D, x);
    require_vector("norm2_bias", weights.norm2_bias, D, x);
    if (!(options.eps > 0.0)) {
        throw InputError("transformer_encoder_layer: eps must be a positive number, got " + std::to_string(options.eps));
    }
    AttentionOptions attention_options;
    attention_options.attention_mask = options.attention_mask;

    EncoderLayerStep step;
    // 1. The attention sub-layer, with its residual connection and norm.
    step.attention_input = options.norm_first ? layer_norm(x, weights.norm1_weight, weights.norm1_bias, options.eps) : x;
    step.attention = multi_head_attention(step.attention_input, step.attention_input, step.attention_input,
                                          weights.attention, options.heads, attention_options);
    step.attention_residual = x + step.attention.output;
    step.after_attention = options.norm_first
                               ? step.attention_residual
                               : layer_norm(step.attention_residual, weights.norm1_weight, weights.norm1_bias, options.eps);
    // 2. The feed-forward sub-layer, on each position alone, with its residual connection and norm.
    step.ffn_input = options.norm_first
                         ? layer_norm(step.after_attention, weights.norm2_weight, weights.norm2_bias, options.eps)
                         : step.after_attention;
    const FeedForwardStep ffn = feed_forward(as_rows(step.ffn_input), weights.linear1_weight, weights.linear1_bias,
                                             weights.linear2_weight, weights.linear2_bias, options.activation);
    step.ffn_hidden = as_tensor(ffn.hidden, B, T);
    step.ffn_output = as_tensor(ffn.output, B, T);
    step.ffn_residual = step.after_attention + step.ffn_output;
    step.output = options.norm_first
                      ? step.ffn_residual
                      : layer_norm(step.ffn_residual, weights.norm2_weight, weights.norm2_bias, options.eps);
    // The attention checked its own intermediates; the first of the others that is not a finite
    // number is named (a NaN from a layer norm of ∞, an overflowing feed-forward network, …).
    const std::string why = detail::overflow_advice;
    const char* f = "transformer_encoder_layer";
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
                            const std::optional<std::pair<Vector, Vector>>& final_norm) {
    Tensor3 y = x;
    for (const auto& layer : layers) y = transformer_encoder_layer(y, layer, options).output;
    if (final_norm) y = layer_norm(y, final_norm->first, final_norm->second, options.eps);
    return y;
}

}  // namespace attn
