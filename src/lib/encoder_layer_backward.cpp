// A Transformer encoder layer backwards (attn/encoder_layer_backward.hpp): the residuals hand
// their gradient to both branches; the rest is the other layers' backwards.
#include "attn/encoder_layer_backward.hpp"

#include "attn/feed_forward_backward.hpp"
#include "attn/layer_norm_backward.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention_backward.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

// One layer norm's backward. Its statistics are not in the step: the norm is run again on its input.
Tensor3 norm_backward(const Tensor3& input, const Vector& norm_weight, const Vector& norm_bias, double eps,
                      const Tensor3& grad_output, Vector& grad_weight, Vector& grad_bias) {
    const LayerNormStep forward = layer_norm(rows_of(input), norm_weight, norm_bias, eps);
    LayerNormGradients grad = layer_norm_backward(forward, norm_weight, rows_of(grad_output), eps);
    grad_weight = std::move(grad.weight);
    grad_bias = std::move(grad.bias);
    return positions_of(grad.x, input.shape(0), input.shape(1));
}

// The feed-forward network's backward; only its pre-activation is computed again.
Tensor3 ffn_backward(const EncoderLayerWeights& w, const EncoderLayerOptions& options, const EncoderLayerStep& step,
                     const Tensor3& grad_output, EncoderLayerWeights& grad) {
    const Matrix input = rows_of(step.ffn_input);
    FeedForwardStep forward;
    forward.hidden_preactivation = linear(input, w.linear1_weight, w.linear1_bias, "linear1_weight");
    forward.hidden = rows_of(step.ffn_hidden);
    forward.output = rows_of(step.ffn_output);
    FeedForwardGradients g = feed_forward_backward(input, w.linear1_weight, w.linear2_weight, forward,
                                                   options.activation, rows_of(grad_output));
    grad.linear1_weight = std::move(g.linear1_weight), grad.linear1_bias = std::move(g.linear1_bias);
    grad.linear2_weight = std::move(g.linear2_weight), grad.linear2_bias = std::move(g.linear2_bias);
    return positions_of(g.x, step.ffn_input.shape(0), step.ffn_input.shape(1));
}

// Self-attention's backward: x was read as query, key and value, so its gradient is the sum.
Tensor3 attention_backward(const EncoderLayerWeights& w, const EncoderLayerOptions& options,
                           const EncoderLayerStep& step, const Tensor3& grad_output, EncoderLayerWeights& grad) {
    const Tensor3& a = step.attention_input;
    MultiHeadAttentionGradients g =
        multi_head_attention_backward(a, a, a, w.attention, options.heads, step.attention, grad_output);
    grad.attention = std::move(g.weights);
    return g.query + g.key + g.value;
}

}  // namespace

EncoderLayerGradients transformer_encoder_layer_backward(const Tensor3& x, const EncoderLayerWeights& w,
                                                         const EncoderLayerOptions& options,
                                                         const EncoderLayerStep& step, const Tensor3& grad_output) {
    // x (B, T, D), the step's tensors (B, T, D) and (B, T, F), dy (B, T, D) → dx (B, T, D) and every parameter's gradient
    check_shapes("transformer_encoder_layer_backward",
                 {{"x", x, "B,T,D"}, {"step.attention_input", step.attention_input, "B,T,D"},
                  {"step.ffn_input", step.ffn_input, "B,T,D"}, {"step.ffn_hidden", step.ffn_hidden, "B,T,F"},
                  {"linear1_weight", w.linear1_weight, "F,D"}, {"grad_output", grad_output, "B,T,D"}});
    detail::require_finite("transformer_encoder_layer_backward", "grad_output", grad_output,
                           detail::upstream_gradient_advice);
    EncoderLayerGradients grad;
    EncoderLayerWeights& gw = grad.weights;
    const double eps = options.eps;
    if (!options.norm_first) {
        // y = norm2(x1 + ffn(x1)), x1 = norm1(x + attention(x)).
        const Tensor3 grad_r2 = norm_backward(step.ffn_residual, w.norm2_weight, w.norm2_bias, eps, grad_output,
                                              gw.norm2_weight, gw.norm2_bias);
        const Tensor3 grad_x1 = grad_r2 + ffn_backward(w, options, step, grad_r2, gw);
        const Tensor3 grad_r1 = norm_backward(step.attention_residual, w.norm1_weight, w.norm1_bias, eps, grad_x1,
                                              gw.norm1_weight, gw.norm1_bias);
        grad.x = grad_r1 + attention_backward(w, options, step, grad_r1, gw);
    } else {
        // y = x1 + ffn(norm2(x1)), x1 = x + attention(norm1(x)).
        const Tensor3 grad_ffn_input = ffn_backward(w, options, step, grad_output, gw);
        const Tensor3 grad_x1 = grad_output + norm_backward(step.after_attention, w.norm2_weight, w.norm2_bias, eps,
                                                            grad_ffn_input, gw.norm2_weight, gw.norm2_bias);
        const Tensor3 grad_attention_input = attention_backward(w, options, step, grad_x1, gw);
        grad.x = grad_x1 + norm_backward(x, w.norm1_weight, w.norm1_bias, eps, grad_attention_input,
                                         gw.norm1_weight, gw.norm1_bias);
    }
    return grad;
}

}  // namespace attn
