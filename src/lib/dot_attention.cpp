#include "attn/dot_attention.hpp"

#include <cblas.h>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "finite.hpp"

namespace attn {

namespace {

std::vector<std::size_t> shape_of(const Tensor3& t) { return {t.shape(0), t.shape(1), t.shape(2)}; }
std::vector<std::size_t> shape_of(const Matrix& t) { return {t.shape(0), t.shape(1)}; }

}  // namespace

AttentionStep attend_with_scores(Matrix scores, const Tensor3& encoder_outputs) {
    require_nonempty("attend_with_scores", "encoder_outputs", shape_of(encoder_outputs));
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    if (scores.shape(0) != B || scores.shape(1) != S) {
        throw ShapeError("attend_with_scores: scores has shape " + shape_string(shape_of(scores)) +
                         " but encoder_outputs has shape " + shape_string(shape_of(encoder_outputs)) +
                         "; scores must be (B, S) = " + shape_string(std::vector<std::size_t>{B, S}));
    }
    // No mask exists in seq2seq attention: a score that is not a number came from overflow.
    detail::require_finite("attention", "scores", scores, detail::overflow_advice);
    AttentionStep step;
    step.scores = std::move(scores);
    step.weights = softmax_last_axis(step.scores);
    step.context = Matrix::from_shape({B, H});
    for (std::size_t b = 0; b < B; ++b) {
        // context[b] = weights[b] (1×S) · encoder_outputs[b] (S×H): a transposed matrix-vector product.
        cblas_dgemv(CblasRowMajor, CblasTrans, int(S), int(H), 1.0, encoder_outputs.data() + b * S * H, int(H),
                    step.weights.data() + b * S, 1, 0.0, step.context.data() + b * H, 1);
    }
    detail::require_finite("attention", "context", step.context, detail::overflow_advice);
    return step;
}

AttentionStep dot_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output) {
    require_nonempty("dot_attention", "encoder_outputs", shape_of(encoder_outputs));
    require_nonempty("dot_attention", "decoder_output", shape_of(decoder_output));
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    if (decoder_output.shape(0) != B || decoder_output.shape(1) != H) {
        throw ShapeError("dot_attention: decoder_output has shape " + shape_string(shape_of(decoder_output)) +
                         " but encoder_outputs has shape " + shape_string(shape_of(encoder_outputs)) +
                         "; decoder_output must be (B, H) = " + shape_string(std::vector<std::size_t>{B, H}));
    }
    Matrix scores = Matrix::from_shape({B, S});
    for (std::size_t b = 0; b < B; ++b) {
        // scores[b] = encoder_outputs[b] (S×H) · decoder_output[b] (H): one dot product per source position.
        cblas_dgemv(CblasRowMajor, CblasNoTrans, int(S), int(H), 1.0, encoder_outputs.data() + b * S * H, int(H),
                    decoder_output.data() + b * H, 1, 0.0, scores.data() + b * S, 1);
    }
    return attend_with_scores(std::move(scores), encoder_outputs);
}

}  // namespace attn
