#include "03-bahdanau/exercise/mistakes.hpp"

#include <xtensor/xmath.hpp>

#include "attn/linear.hpp"

namespace attn::mistakes {

namespace {

// The score layer of additive attention on `rows` (B, S, 2H), whatever they hold, then lesson 1's
// softmax and weighted sum: every step of `step` after `concatenated`.
BahdanauStep score_rows(BahdanauStep step, const Tensor3& rows, const Tensor3& encoder_outputs, const Matrix& W1,
                        const Vector& b1, const Matrix& w2, const Vector& b2) {
    step.preactivation = linear(rows, W1, b1, "W1");
    step.hidden = xt::tanh(step.preactivation);
    const Tensor3 scores = linear(step.hidden, w2, b2, "w2");  // (B, S, 1)
    Matrix flat = Matrix::from_shape({scores.shape(0), scores.shape(1)});
    std::copy(scores.begin(), scores.end(), flat.begin());
    const AttentionStep attended = attend_with_scores(std::move(flat), encoder_outputs);
    step.scores = attended.scores;
    step.weights = attended.weights;
    step.context = attended.context;
    return step;
}

}  // namespace

BahdanauStep bahdanau_concatenation_swapped(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                            const Matrix& W1, const Vector& b1, const Matrix& w2, const Vector& b2) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    BahdanauStep step;
    step.concatenated = Tensor3::from_shape({B, S, 2 * H});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t h = 0; h < H; ++h) {
                step.concatenated(b, s, h) = decoder_output(b, h);           // the mistake: h_t first …
                step.concatenated(b, s, H + h) = encoder_outputs(b, s, h);   // … then h̄_s
            }
    return score_rows(step, step.concatenated, encoder_outputs, W1, b1, w2, b2);
}

BahdanauStep bahdanau_reshape_not_transpose(const BahdanauStep& right, const Tensor3& encoder_outputs, const Matrix& W1,
                                            const Vector& b1, const Matrix& w2, const Vector& b2) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    // h[b] reshaped to (2H, S) keeps memory order: element (j, s) is flat number j·S + s of h[b].
    // Column s, the vector W1 meets, becomes row s here.
    Tensor3 columns = Tensor3::from_shape({B, S, 2 * H});
    for (std::size_t b = 0; b < B; ++b) {
        const double* flat = right.concatenated.data() + b * S * 2 * H;
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t j = 0; j < 2 * H; ++j) columns(b, s, j) = flat[j * S + s];
    }
    return score_rows(right, columns, encoder_outputs, W1, b1, w2, b2);
}

}  // namespace attn::mistakes
