#include "attn/mistakes.hpp"

#include <cblas.h>

#include "attn/softmax.hpp"

namespace attn::mistakes {

namespace {

// context[b] = weights[b] · encoder_outputs[b], whatever the weights are.
Matrix weighted_sum(const Matrix& weights, const Tensor3& encoder_outputs) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    Matrix context = Matrix::from_shape({B, H});
    for (std::size_t b = 0; b < B; ++b) {
        cblas_dgemv(CblasRowMajor, CblasTrans, int(S), int(H), 1.0, encoder_outputs.data() + b * S * H, int(H),
                    weights.data() + b * S, 1, 0.0, context.data() + b * H, 1);
    }
    return context;
}

}  // namespace

AttentionStep dot_attention_softmax_over_batch(const Tensor3& encoder_outputs, const Matrix& decoder_output) {
    AttentionStep step = dot_attention(encoder_outputs, decoder_output);
    // The mistake: softmax down each column (over b) instead of along each row (over s).
    const Matrix transposed = xt::transpose(step.scores);
    const Matrix column_softmax = softmax_last_axis(transposed);
    step.weights = xt::transpose(column_softmax);
    step.context = weighted_sum(step.weights, encoder_outputs);
    return step;
}

AttentionStep dot_attention_without_softmax(const Tensor3& encoder_outputs, const Matrix& decoder_output) {
    AttentionStep step = dot_attention(encoder_outputs, decoder_output);
    step.weights = step.scores;
    step.context = weighted_sum(step.weights, encoder_outputs);
    return step;
}

}  // namespace attn::mistakes
