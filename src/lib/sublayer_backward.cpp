// The backwards the encoder and decoder layers share (src/lib/sublayer_backward.hpp).
#include "sublayer_backward.hpp"

#include "attn/layer_norm_backward.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention_backward.hpp"

namespace attn::detail {

Tensor3 layer_norm_backward_at(const Tensor3& input, const Vector& norm_weight, const Vector& norm_bias, double eps,
                               const Tensor3& grad_output, Vector& grad_weight, Vector& grad_bias) {
    const LayerNormStep forward = layer_norm(rows_of(input), norm_weight, norm_bias, eps);
    LayerNormGradients grad = layer_norm_backward(forward, norm_weight, rows_of(grad_output), eps);
    grad_weight = std::move(grad.weight);
    grad_bias = std::move(grad.bias);
    return positions_of(grad.x, input.shape(0), input.shape(1));
}

Tensor3 self_attention_backward_at(const Tensor3& input, const MultiHeadAttentionWeights& weights, std::size_t heads,
                                   const MultiHeadAttentionResult& forward, const Tensor3& grad_output,
                                   MultiHeadAttentionWeights& grad_weights) {
    MultiHeadAttentionGradients g =
        multi_head_attention_backward(input, input, input, weights, heads, forward, grad_output);
    grad_weights = std::move(g.weights);
    return g.query + g.key + g.value;
}

FeedForwardGradients feed_forward_backward_at(const Tensor3& ffn_input, const Tensor3& ffn_hidden,
                                              const DropoutMask<Matrix>& hidden_dropout, const Matrix& linear1_weight,
                                              const Vector& linear1_bias, const Matrix& linear2_weight,
                                              Activation activation, const Tensor3& grad_output) {
    // feed_forward_backward reads the forward's pre-activation and hidden layer, not its output.
    const Matrix input = rows_of(ffn_input);
    FeedForwardStep forward;
    forward.hidden_preactivation = linear(input, linear1_weight, linear1_bias, "linear1_weight");
    forward.hidden = rows_of(ffn_hidden);
    forward.hidden_dropout = hidden_dropout;
    return feed_forward_backward(input, linear1_weight, linear2_weight, forward, activation, rows_of(grad_output));
}

}  // namespace attn::detail
