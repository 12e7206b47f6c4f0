// The backward of the encoder-decoder model (attn/seq2seq_transformer_backward.hpp).
#include "attn/seq2seq_transformer_backward.hpp"

#include <cmath>

#include "attn/embedding_backward.hpp"
#include "attn/linear_backward.hpp"
#include "attn/shape.hpp"

namespace attn {

Seq2SeqWeights seq2seq_backward(const IdTensor& src, const IdTensor& tgt, const Seq2SeqWeights& weights,
                                const Seq2SeqOptions& options, const Seq2SeqStep& step, const Tensor3& grad_logits) {
    const Seq2SeqSizes sizes = seq2seq_sizes(weights);
    check_shapes("seq2seq_backward", {{"src", src, "B,S"},
                                      {"tgt", tgt, "B,T"},
                                      {"step.logits", step.logits, "B,T,V"},
                                      {"grad_logits", grad_logits, "B,T,V"}});
    Seq2SeqWeights grad;
    // The generator: logits = output Wᵀ + b.
    const SequenceLinearGradients generator =
        linear_backward(step.transformer.output, weights.generator_weight, grad_logits);
    grad.generator_weight = generator.weight;
    grad.generator_bias = generator.bias;

    const TransformerGradients transformer =
        transformer_backward(step.src_embedded, step.tgt_embedded, weights.transformer, transformer_options_of(options),
                             step.transformer, generator.x);
    grad.transformer = transformer.weights;

    // x = dropout(table[ids] · √D + PE): the gradient back through the dropouts' masks (the identity
    // when the forward drew none), then the table's rows receive it times √D.
    const double scale = std::sqrt(static_cast<double>(sizes.d_model));
    const Tensor3 grad_src_rows = dropout_backward(step.src_dropout, transformer.src) * scale;
    const Tensor3 grad_tgt_rows = dropout_backward(step.tgt_dropout, transformer.tgt) * scale;
    grad.src_embedding = embedding_backward(sizes.vocabulary, src, grad_src_rows);
    grad.tgt_embedding = embedding_backward(sizes.vocabulary, tgt, grad_tgt_rows);
    return grad;
}

}  // namespace attn
