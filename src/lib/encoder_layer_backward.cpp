// A Transformer encoder layer backwards (attn/encoder_layer_backward.hpp): the residuals hand
// their gradient to both branches; the rest is the other layers' backwards.
#include "attn/encoder_layer_backward.hpp"

#include "attn/shape.hpp"
#include "finite.hpp"
#include "sublayer_backward.hpp"

namespace attn {

using detail::feed_forward_backward_at;
using detail::layer_norm_backward_at;

namespace {

// Self-attention's backward from the residual's gradient (through dropout1's mask), its gradient
// the sum of the query's, the key's and the value's.
Tensor3 attention_backward(const EncoderLayerWeights& w, const EncoderLayerOptions& options,
                           const EncoderLayerStep& step, const Tensor3& grad_output, EncoderLayerWeights& grad) {
    return detail::self_attention_backward_at(step.attention_input, w.attention, options.heads, step.attention,
                                              dropout_backward(step.attention_dropout, grad_output), grad.attention);
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
        const Tensor3 grad_r2 = layer_norm_backward_at(step.ffn_residual, w.norm2_weight, w.norm2_bias, eps,
                                                       grad_output, gw.norm2_weight, gw.norm2_bias);
        const Tensor3 grad_x1 = grad_r2 + feed_forward_backward_at(w, options.activation, step, grad_r2, gw);
        const Tensor3 grad_r1 = layer_norm_backward_at(step.attention_residual, w.norm1_weight, w.norm1_bias, eps,
                                                       grad_x1, gw.norm1_weight, gw.norm1_bias);
        grad.x = grad_r1 + attention_backward(w, options, step, grad_r1, gw);
    } else {
        // y = x1 + ffn(norm2(x1)), x1 = x + attention(norm1(x)).
        const Tensor3 grad_ffn_input = feed_forward_backward_at(w, options.activation, step, grad_output, gw);
        const Tensor3 grad_x1 = grad_output + layer_norm_backward_at(step.after_attention, w.norm2_weight,
                                                                     w.norm2_bias, eps, grad_ffn_input,
                                                                     gw.norm2_weight, gw.norm2_bias);
        const Tensor3 grad_attention_input = attention_backward(w, options, step, grad_x1, gw);
        grad.x = grad_x1 + layer_norm_backward_at(x, w.norm1_weight, w.norm1_bias, eps, grad_attention_input,
                                                  gw.norm1_weight, gw.norm1_bias);
    }
    return grad;
}

}  // namespace attn
