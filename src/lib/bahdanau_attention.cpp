// Bahdanau attention (lessons/03-bahdanau/README.md): the additive score
// w2 · tanh(W1 [h̄_s ; h_t] + b1) + b2, then lessons/01-dot-product's softmax and weighted sum.
// Shapes: encoder_outputs (B, S, H), decoder_output (B, H), the hidden layer (B, S, 2H).
#include "attn/bahdanau_attention.hpp"

#include <xtensor/xmath.hpp>

#include "attn/dot_attention.hpp"
#include "attn/linear.hpp"
#include "attn/shape.hpp"
#include "concatenation.hpp"

namespace attn {

namespace {

// Every argument of additive attention, against one legend.
void check_arguments(const char* function, const Tensor3& encoder_outputs, const Matrix& decoder_output,
                     const Matrix& W1, const Vector& b1, const Matrix& w2, const Vector& b2) {
    check_shapes(function, {{"encoder_outputs", encoder_outputs, "B,S,H"}, {"decoder_output", decoder_output, "B,H"},
                            {"W1", W1, "2H,2H"}, {"b1", b1, "2H"}, {"w2", w2, "1,2H"}, {"b2", b2, "1"}});
}

// w2 · tanh(preactivation) + b2 for every (b, s): (B, S, 2H) → (B, S).
Matrix output_layer(const Tensor3& hidden, const Matrix& w2, const Vector& b2) {
    const Tensor3 scores = linear(hidden, w2, b2, "w2");  // (B, S, 1)
    Matrix flat = Matrix::from_shape({hidden.shape(0), hidden.shape(1)});
    std::copy(scores.begin(), scores.end(), flat.begin());
    return flat;
}

}  // namespace

BahdanauStep bahdanau_attention(const Tensor3& encoder_outputs, const Matrix& decoder_output, const Matrix& W1,
                                const Vector& b1, const Matrix& w2, const Vector& b2) {
    check_arguments("bahdanau_attention", encoder_outputs, decoder_output, W1, b1, w2, b2);
    BahdanauStep step;
    // h̄_s first, then h_t repeated for every source position, as the seed notebook concatenates.
    step.concatenated = detail::concatenate_with_decoder_state(encoder_outputs, decoder_output, detail::DecoderState::second);
    step.preactivation = linear(step.concatenated, W1, b1, "W1");
    step.hidden = xt::tanh(step.preactivation);
    AttentionStep attended = attend_with_scores(output_layer(step.hidden, w2, b2), encoder_outputs);
    step.scores = std::move(attended.scores);
    step.weights = std::move(attended.weights);
    step.context = std::move(attended.context);
    return step;
}

BahdanauSplitScores bahdanau_split_scores(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                          const Matrix& W1, const Vector& b1, const Matrix& w2, const Vector& b2) {
    check_arguments("bahdanau_split_scores", encoder_outputs, decoder_output, W1, b1, w2, b2);
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    // W1 = [W_enc | W_dec]: copy the two column blocks into contiguous (2H, H) matrices for BLAS.
    Matrix W_encoder = Matrix::from_shape({2 * H, H}), W_decoder = Matrix::from_shape({2 * H, H});
    for (std::size_t r = 0; r < 2 * H; ++r) {
        std::copy(W1.data() + r * 2 * H, W1.data() + r * 2 * H + H, W_encoder.data() + r * H);
        std::copy(W1.data() + r * 2 * H + H, W1.data() + (r + 1) * 2 * H, W_decoder.data() + r * H);
    }
    BahdanauSplitScores split;
    split.encoder_projection = linear(encoder_outputs, W_encoder, "W1[:, :H]");
    split.decoder_projection = linear(decoder_output, W_decoder, "W1[:, H:]");
    split.preactivation = Tensor3::from_shape({B, S, 2 * H});
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t s = 0; s < S; ++s) {
            for (std::size_t j = 0; j < 2 * H; ++j) {
                split.preactivation(b, s, j) = split.encoder_projection(b, s, j) + split.decoder_projection(b, j) + b1(j);
            }
        }
    }
    const Tensor3 hidden = xt::tanh(split.preactivation);
    split.scores = output_layer(hidden, w2, b2);
    return split;
}

}  // namespace attn
