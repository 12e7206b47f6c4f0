// A Transformer decoder layer backwards (attn/decoder_layer_backward.hpp): the encoder layer's
// backward with cross-attention in the middle, whose key and value gradients are the memory's.
#include "attn/decoder_layer_backward.hpp"

#include "attn/multi_head_attention_backward.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"
#include "sublayer_backward.hpp"

namespace attn {

using detail::feed_forward_backward_at;
using detail::layer_norm_backward_at;

namespace {

// Self-attention's backward from the residual's gradient (through dropout1's mask), its gradient
// the sum of the query's, the key's and the value's.
Tensor3 self_attention_backward(const DecoderLayerWeights& w, const DecoderLayerOptions& options,
                                const DecoderLayerStep& step, const Tensor3& grad_output, DecoderLayerWeights& grad) {
    return detail::self_attention_backward_at(step.self_attention_input, w.self_attention, options.heads,
                                              step.self_attention,
                                              dropout_backward(step.self_attention_dropout, grad_output),
                                              grad.self_attention);
}

// Cross-attention's backward from the residual's gradient (through dropout2's mask): returns the
// queries' gradient; the memory, read as key and value, gets the sum of those two.
Tensor3 cross_attention_backward(const Tensor3& memory, const DecoderLayerWeights& w, const DecoderLayerOptions& options,
                                 const DecoderLayerStep& step, const Tensor3& grad_output, DecoderLayerGradients& grad) {
    MultiHeadAttentionGradients g = multi_head_attention_backward(
        step.cross_attention_input, memory, memory, w.cross_attention, options.heads, step.cross_attention,
        dropout_backward(step.cross_attention_dropout, grad_output));
    grad.weights.cross_attention = std::move(g.weights);
    grad.memory = g.key + g.value;
    return std::move(g.query);
}

void check_backward_arguments(const Tensor3& tgt, const Tensor3& memory, const DecoderLayerWeights& w,
                              const DecoderLayerStep& step, const Tensor3& grad_output) {
    const std::string f = "transformer_decoder_layer_backward";
    check_shapes(f, {{"tgt", tgt, "B,T,D"}, {"memory", memory, "B,S,D"},
                     {"step.self_attention_input", step.self_attention_input, "B,T,D"},
                     {"step.cross_attention_input", step.cross_attention_input, "B,T,D"},
                     {"step.cross_attention.weights", step.cross_attention.weights, "B,h,T,S"},
                     {"step.ffn_input", step.ffn_input, "B,T,D"}, {"step.ffn_hidden", step.ffn_hidden, "B,T,F"},
                     {"linear1_weight", w.linear1_weight, "F,D"}, {"grad_output", grad_output, "B,T,D"}});
    detail::require_finite(f, "grad_output", grad_output, detail::upstream_gradient_advice);
}

}  // namespace

DecoderLayerGradients transformer_decoder_layer_backward(const Tensor3& tgt, const Tensor3& memory,
                                                         const DecoderLayerWeights& w,
                                                         const DecoderLayerOptions& options,
                                                         const DecoderLayerStep& step, const Tensor3& grad_output) {
    // tgt (B, T, D), memory (B, S, D), the step's tensors, dy (B, T, D) → dtgt (B, T, D), dmemory (B, S, D)
    // and every parameter's gradient
    check_backward_arguments(tgt, memory, w, step, grad_output);
    DecoderLayerGradients grad;
    DecoderLayerWeights& gw = grad.weights;
    const double eps = options.eps;
    if (!options.norm_first) {
        // y = norm3(x2 + ffn(x2)), x2 = norm2(x1 + cross(x1, memory)), x1 = norm1(tgt + self(tgt)).
        const Tensor3 grad_r3 = layer_norm_backward_at(step.ffn_residual, w.norm3_weight, w.norm3_bias, eps,
                                                       grad_output, gw.norm3_weight, gw.norm3_bias);
        const Tensor3 grad_x2 = grad_r3 + feed_forward_backward_at(w, options.activation, step, grad_r3, gw);
        const Tensor3 grad_r2 = layer_norm_backward_at(step.cross_attention_residual, w.norm2_weight, w.norm2_bias,
                                                       eps, grad_x2, gw.norm2_weight, gw.norm2_bias);
        const Tensor3 grad_x1 = grad_r2 + cross_attention_backward(memory, w, options, step, grad_r2, grad);
        const Tensor3 grad_r1 = layer_norm_backward_at(step.self_attention_residual, w.norm1_weight, w.norm1_bias,
                                                       eps, grad_x1, gw.norm1_weight, gw.norm1_bias);
        grad.tgt = grad_r1 + self_attention_backward(w, options, step, grad_r1, gw);
    } else {
        // y = x2 + ffn(norm3(x2)), x2 = x1 + cross(norm2(x1), memory), x1 = tgt + self(norm1(tgt)).
        const Tensor3 grad_ffn_input = feed_forward_backward_at(w, options.activation, step, grad_output, gw);
        const Tensor3 grad_x2 = grad_output + layer_norm_backward_at(step.after_cross_attention, w.norm3_weight,
                                                                     w.norm3_bias, eps, grad_ffn_input,
                                                                     gw.norm3_weight, gw.norm3_bias);
        const Tensor3 grad_queries = cross_attention_backward(memory, w, options, step, grad_x2, grad);
        const Tensor3 grad_x1 = grad_x2 + layer_norm_backward_at(step.after_self_attention, w.norm2_weight,
                                                                 w.norm2_bias, eps, grad_queries, gw.norm2_weight,
                                                                 gw.norm2_bias);
        const Tensor3 grad_self_input = self_attention_backward(w, options, step, grad_x1, gw);
        grad.tgt = grad_x1 + layer_norm_backward_at(tgt, w.norm1_weight, w.norm1_bias, eps, grad_self_input,
                                                    gw.norm1_weight, gw.norm1_bias);
    }
    return grad;
}

}  // namespace attn
