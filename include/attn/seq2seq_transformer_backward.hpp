// attn/seq2seq_transformer_backward.hpp — lesson 11: the gradient of every parameter of the
// encoder-decoder model (attn/seq2seq_transformer.hpp), from the gradient of its logits.
//
// Why: this is the chain rule on the whole forward, read from the end. The loss's gradient with
// respect to the logits (attn/cross_entropy.hpp gives it) enters the generator, a linear map; its
// input gradient enters nn.Transformer's backward (attn/transformer_backward.hpp), which returns
// the gradients of its two inputs, the embedded sequences; those go back through the × √D to the
// rows of the two embedding tables that were looked up (attn/embedding_backward.hpp: a token seen
// twice adds its two gradients; a row never looked up gets zero). The positions are constants.
// A step of training carries its dropout masks, and every gradient passes back through the mask
// its forward applied (attn/dropout.hpp): the backward draws nothing and needs no generator.
//
//   dlogits (B, T, V) → generator: doutput (B, T, D), dgenerator_weight (V, D), dgenerator_bias (V)
//   doutput → transformer_backward → dsrc_x (B, S, D), dtgt_x (B, T, D), dtransformer weights
//   dsrc_embedding = embedding_backward(V, src, dsrc_x · √D), the same for tgt
//
// Shapes: B batch · S source positions · T target positions · D model width · V vocabulary
//   grad_logits (B, T, V) → every parameter's gradient in a Seq2SeqWeights, each with its shape
//
//   auto step = attn::seq2seq_forward(src, tgt_in, weights, options);
//   attn::Seq2SeqWeights grad = attn::seq2seq_backward(src, tgt_in, weights, options, step, dlogits);
//   grad.generator_bias;   // (V)
#pragma once

#include "attn/seq2seq_transformer.hpp"

namespace attn {

/// The backward of seq2seq_forward(src, tgt, weights, options), which returned `step`; grad_logits
/// is ∂loss/∂step.logits. Returns each parameter's gradient in its place. Throws ShapeError naming
/// grad_logits when it is not (B, T, V), what transformer_backward throws for a step of another
/// call, InputError when grad_logits holds NaN or ±∞ (named with its index).
Seq2SeqWeights seq2seq_backward(const IdTensor& src, const IdTensor& tgt, const Seq2SeqWeights& weights,
                                const Seq2SeqOptions& options, const Seq2SeqStep& step, const Tensor3& grad_logits);

}  // namespace attn
