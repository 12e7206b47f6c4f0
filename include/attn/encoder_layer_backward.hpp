// attn/encoder_layer_backward.hpp — the gradients of a Transformer encoder layer, post-norm and
// pre-norm (lesson 10: the backward pass).
//
// Why: the layer (attn/encoder_layer.hpp) is the other backwards of the library put together;
// its own part is the residual connections. y = x + f(x) hands its gradient dy to both branches,
// so dx = dy + (f's backward of dy): the identity path carries the gradient past the sub-layer
// untouched, which is why deep stacks of these layers train at all. Read backwards:
//
//   post-norm: x1 = norm1(x + attention(x));  y = norm2(x1 + ffn(x1))
//     dr2 = norm2ᵀ(dy);   dx1 = dr2 + ffnᵀ(dr2);   dr1 = norm1ᵀ(dx1);   dx = dr1 + attentionᵀ(dr1)
//   pre-norm (norm_first): x1 = x + attention(norm1(x));  y = x1 + ffn(norm2(x1))
//     dx1 = dy + norm2ᵀ(ffnᵀ(dy));   dx = dx1 + norm1ᵀ(attentionᵀ(dx1))
//
// where fᵀ(d) is f's backward applied to d, and attentionᵀ sums the query, key and value
// gradients (self-attention reads x three times). The step keeps every sub-layer's input and
// output but not the layer norms' statistics nor the feed-forward pre-activation: those two are
// recomputed from the step (one layer norm per norm, one linear map), nothing else. A step of
// training (options.dropout on) keeps its dropout masks, and each sub-layer's gradient passes
// through its mask on the way back (attn/dropout.hpp): fᵀ above is then fᵀ ∘ dropoutᵀ.
//
// Shapes: B batch · T positions · D model width · F feed-forward width
//   x (B, T, D) · weights as in the forward · step: the forward's · grad_output (B, T, D)
//   → grad.x (B, T, D); grad.weights: every parameter of EncoderLayerWeights, with its shape
//
//   auto step = attn::transformer_encoder_layer(x, weights, options);
//   auto grad = attn::transformer_encoder_layer_backward(x, weights, options, step, dy);
//   grad.weights.linear1_weight;   // (F, D)
#pragma once

#include "attn/encoder_layer.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The gradient with respect to each input of transformer_encoder_layer, named like it.
struct EncoderLayerGradients {
    Tensor3 x;                    // (B, T, D)
    EncoderLayerWeights weights;  // each parameter's gradient, in its place and shape
};

/// The backward of transformer_encoder_layer(x, weights, options), which returned `step`;
/// grad_output is ∂loss/∂step.output. Throws ShapeError naming the tensor that disagrees,
/// InputError when grad_output holds NaN or ±∞ (named with its index).
EncoderLayerGradients transformer_encoder_layer_backward(const Tensor3& x, const EncoderLayerWeights& weights,
                                                         const EncoderLayerOptions& options,
                                                         const EncoderLayerStep& step, const Tensor3& grad_output);

}  // namespace attn
