// Dot-product attention (lessons/01-dot-product/README.md).
//
// The lesson's three steps: score_s = h_t · h̄_s, weights = softmax(scores), context = Σ_s weight_s h̄_s.
// Shapes: encoder_outputs (B, S, H) — the h̄_s; decoder_output (B, H) — h_t.
#include "attn/dot_attention.hpp"

#include "attn/matmul.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "finite.hpp"

namespace attn {

AttentionStep attend_with_scores(Matrix scores, const Tensor3& encoder_outputs) {
    check_shapes("attend_with_scores", {{"encoder_outputs", encoder_outputs, "B,S,H"}, {"scores", scores, "B,S"}});
    // No mask exists in seq2seq attention: a score that is not a number came from overflow.
    detail::require_finite("attention", "scores", scores, detail::overflow_advice);
    AttentionStep step;
    step.scores = std::move(scores);
    step.weights = softmax_last_axis(step.scores);                // weight_s = softmax(scores)_s   (B, S)
    step.context = vecmat(step.weights, encoder_outputs);         // Σ_s weight_s h̄_s              (B, H)
    detail::require_finite("attention", "context", step.context, detail::overflow_advice);
    return step;
}

AttentionStep dot_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output) {
    check_shapes("dot_attention", {{"encoder_outputs", encoder_outputs, "B,S,H"}, {"decoder_output", decoder_output, "B,H"}});
    const Matrix scores = matvec(encoder_outputs, decoder_output);  // score_s = h̄_s · h_t        (B, S)
    return attend_with_scores(scores, encoder_outputs);
}

}  // namespace attn
