// src/lib/sublayer_backward.hpp — private to the library: the backwards the encoder and decoder
// layers share (src/lib/encoder_layer_backward.cpp, decoder_layer_backward.cpp).
//
// Why here: both layers start with self-attention, wrap their sub-layers in the same layer norms
// and end in the same feed-forward network, and both steps keep those sub-layers' inputs and outputs but not the
// norms' statistics nor the network's pre-activation. These recompute exactly that, nothing else.
//
// Shapes: B batch · T positions · D model width · F feed-forward width
//   input, grad_output (B, T, D) · norm weight and bias (D) · ffn_hidden (B, T, F)
#pragma once

#include <utility>

#include "attn/feed_forward_backward.hpp"
#include "attn/layer_norm.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/tensor.hpp"

namespace attn::detail {

/// One layer norm's backward: the norm is run again on `input` for its statistics. Writes the
/// gradients of its weight and bias; returns the input's (B, T, D).
Tensor3 layer_norm_backward_at(const Tensor3& input, const Vector& norm_weight, const Vector& norm_bias, double eps,
                               const Tensor3& grad_output, Vector& grad_weight, Vector& grad_bias);

/// Self-attention's backward: `input` was read as query, key and value, so its gradient, returned,
/// is the sum of the three. Writes the attention's parameter gradients into grad_weights.
Tensor3 self_attention_backward_at(const Tensor3& input, const MultiHeadAttentionWeights& weights, std::size_t heads,
                                   const MultiHeadAttentionResult& forward, const Tensor3& grad_output,
                                   MultiHeadAttentionWeights& grad_weights);

/// The feed-forward network's backward on (B, T, ·) tensors: ffn_input, ffn_hidden and the hidden
/// layer's dropout mask as the forward kept them, the pre-activation computed again from
/// ffn_input. grad.x is (B·T, D).
FeedForwardGradients feed_forward_backward_at(const Tensor3& ffn_input, const Tensor3& ffn_hidden,
                                              const DropoutMask<Matrix>& hidden_dropout, const Matrix& linear1_weight,
                                              const Vector& linear1_bias, const Matrix& linear2_weight,
                                              Activation activation, const Tensor3& grad_output);

/// The same for a layer whose weights and step name them as the encoder and decoder layers do,
/// from the gradient of the residual the sub-layer's output was added to (through the output's
/// dropout mask, step.ffn_dropout): writes the gradients of linear1_* and linear2_* into `grad`;
/// returns ffn_input's (B, T, D).
template <class Weights, class Step>
Tensor3 feed_forward_backward_at(const Weights& w, Activation activation, const Step& step, const Tensor3& grad_output,
                                 Weights& grad) {
    FeedForwardGradients g = feed_forward_backward_at(step.ffn_input, step.ffn_hidden, step.ffn_hidden_dropout,
                                                      w.linear1_weight, w.linear1_bias, w.linear2_weight, activation,
                                                      dropout_backward(step.ffn_dropout, grad_output));
    grad.linear1_weight = std::move(g.linear1_weight), grad.linear1_bias = std::move(g.linear1_bias);
    grad.linear2_weight = std::move(g.linear2_weight), grad.linear2_bias = std::move(g.linear2_bias);
    return positions_of(g.x, step.ffn_input.shape(0), step.ffn_input.shape(1));
}

}  // namespace attn::detail
