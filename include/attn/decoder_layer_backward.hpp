// attn/decoder_layer_backward.hpp — the gradients of a Transformer decoder layer, post-norm and
// pre-norm (lesson 10's backward pass, for lesson 11's training).
//
// Why: the decoder layer (attn/decoder_layer.hpp) is the encoder layer's backward
// (attn/encoder_layer_backward.hpp) with one sub-layer more, cross-attention, and that sub-layer
// is the only new thing. Its queries come from the target, its keys and values from the memory,
// so its backward splits: the query gradient goes on down the target's path, the key and value
// gradients leave the layer as the memory's gradient. Read backwards, x1 and x2 being the
// outputs of the first two sub-layers:
//
//   post-norm: x1 = norm1(tgt + self(tgt));  x2 = norm2(x1 + cross(x1, memory));  y = norm3(x2 + ffn(x2))
//     dr3 = norm3ᵀ(dy);  dx2 = dr3 + ffnᵀ(dr3);  dr2 = norm2ᵀ(dx2);  dx1 = dr2 + crossᵀ_query(dr2)
//     dr1 = norm1ᵀ(dx1);  dtgt = dr1 + selfᵀ(dr1);  dmemory = crossᵀ_key(dr2) + crossᵀ_value(dr2)
//   pre-norm (norm_first): x1 = tgt + self(norm1(tgt));  x2 = x1 + cross(norm2(x1), memory);
//                          y = x2 + ffn(norm3(x2))
//     dx2 = dy + norm3ᵀ(ffnᵀ(dy));  dx1 = dx2 + norm2ᵀ(crossᵀ_query(dx2));  dtgt = dx1 + norm1ᵀ(selfᵀ(dx1))
//     dmemory = crossᵀ_key(dx2) + crossᵀ_value(dx2)
//
// where fᵀ(d) is f's backward applied to d and selfᵀ sums the query, key and value gradients
// (self-attention reads its input three times). The masks (causal, padding, additive) are in the
// step's attention weights, so the backward needs no mask: a hidden key gets no gradient. As in
// the encoder layer, the norms' statistics and the feed-forward pre-activation are recomputed
// from the step, nothing else; a step of training passes each sub-layer's gradient through the
// dropout masks it kept (attn/dropout.hpp).
//
// Shapes: B batch · T target positions · S memory positions · D model width · F feed-forward width
//   tgt (B, T, D) · memory (B, S, D) · weights and step as in the forward · grad_output (B, T, D)
//   → grad.tgt (B, T, D), grad.memory (B, S, D); grad.weights: every parameter of
//     DecoderLayerWeights, with its shape
//
//   auto step = attn::transformer_decoder_layer(tgt, memory, weights, options);
//   auto grad = attn::transformer_decoder_layer_backward(tgt, memory, weights, options, step, dy);
//   grad.memory;                          // (B, S, D): what flows back into the encoder
//   grad.weights.cross_attention.w_k;     // (D, D)
#pragma once

#include "attn/decoder_layer.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The gradient with respect to each input of transformer_decoder_layer, named like it.
struct DecoderLayerGradients {
    Tensor3 tgt;                  // (B, T, D)
    Tensor3 memory;               // (B, S, D): from cross-attention's keys and values
    DecoderLayerWeights weights;  // each parameter's gradient, in its place and shape
};

/// The backward of transformer_decoder_layer(tgt, memory, weights, options), which returned
/// `step`; grad_output is ∂loss/∂step.output. Throws ShapeError naming the tensor that disagrees
/// (grad_output, memory, or a step of another call), InputError when grad_output holds NaN or ±∞
/// (named with its index).
DecoderLayerGradients transformer_decoder_layer_backward(const Tensor3& tgt, const Tensor3& memory,
                                                         const DecoderLayerWeights& weights,
                                                         const DecoderLayerOptions& options,
                                                         const DecoderLayerStep& step, const Tensor3& grad_output);

}  // namespace attn
