// attn/transformer_backward.hpp — the gradients of the whole Transformer, nn.Transformer
// (lesson 10's backward pass, for lesson 11's training).
//
// Why: the model (attn/transformer.hpp) is two stacks of layers and two final norms, so its
// backward is their backwards in reverse order. The one place where the paths meet is the memory:
// every decoder layer's cross-attention reads it, so its gradient is the sum of what each of them
// sends back, and only that sum enters the encoder's backward:
//
//   memory = encoder.norm(e_N),  e_i = encoder_layer_i(e_{i−1}),  e_0 = src
//   output = decoder.norm(d_M),  d_j = decoder_layer_j(d_{j−1}, memory),  d_0 = tgt
//
//   dd_M = decoder.normᵀ(doutput);  for j = M … 1:  dd_{j−1} = decoder_layer_jᵀ(dd_j)_tgt,
//                                                    dmemory += decoder_layer_jᵀ(dd_j)_memory
//   de_N = encoder.normᵀ(dmemory);  for i = N … 1:  de_{i−1} = encoder_layer_iᵀ(de_i)
//   dtgt = dd_0,  dsrc = de_0
//
// The backward reads every layer's intermediates from TransformerSteps, which transformer_steps
// fills with the same forward transformer() runs (transformer() is written on it).
//
// Shapes: B batch · S source positions · T target positions · D model width
//   src (B, S, D) · tgt (B, T, D) · grad_output (B, T, D) → grad.src (B, S, D), grad.tgt (B, T, D);
//   grad.weights: every parameter of TransformerWeights, in its place and shape
//
//   auto steps = attn::transformer_steps(src, tgt, weights, options);   // steps.output (B, T, D)
//   auto grad = attn::transformer_backward(src, tgt, weights, options, steps, dy);
//   grad.weights.decoder_layers[0].cross_attention.w_q;   // (D, D)
#pragma once

#include <vector>

#include "attn/decoder_layer.hpp"
#include "attn/encoder_layer.hpp"
#include "attn/transformer.hpp"

namespace attn {

/// Every intermediate transformer() computes, in order.
struct TransformerSteps {
    std::vector<EncoderLayerStep> encoder_layers;  // one per encoder layer; the first reads src
    Tensor3 encoder_stack_output;                  // (B, S, D) the last encoder layer's output, before encoder.norm
    Tensor3 memory;                                // (B, S, D) encoder.norm(encoder_stack_output)
    std::vector<DecoderLayerStep> decoder_layers;  // one per decoder layer; the first reads tgt
    Tensor3 decoder_stack_output;                  // (B, T, D) the last decoder layer's output, before decoder.norm
    Tensor3 output;                                // (B, T, D) decoder.norm(decoder_stack_output)
};

/// nn.Transformer's forward keeping every intermediate: the same numbers as transformer(), the
/// same errors.
TransformerSteps transformer_steps(const Tensor3& src, const Tensor3& tgt, const TransformerWeights& weights,
                                   const TransformerOptions& options);

/// The gradient with respect to each input of transformer, named like it.
struct TransformerGradients {
    Tensor3 src;                 // (B, S, D)
    Tensor3 tgt;                 // (B, T, D)
    TransformerWeights weights;  // each parameter's gradient, in its place and shape
};

/// The backward of transformer_steps(src, tgt, weights, options), which returned `steps`;
/// grad_output is ∂loss/∂steps.output. Throws ShapeError naming the tensor that disagrees (grad_output,
/// or steps of another call: a different number of layers, other shapes), InputError when
/// grad_output holds NaN or ±∞ (named with its index) or the final norms' eps is not positive.
TransformerGradients transformer_backward(const Tensor3& src, const Tensor3& tgt, const TransformerWeights& weights,
                                          const TransformerOptions& options, const TransformerSteps& steps,
                                          const Tensor3& grad_output);

}  // namespace attn
