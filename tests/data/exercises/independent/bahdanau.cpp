// Exercise 3, a second correct implementation written from lessons/03-bahdanau/README.md alone:
// lesson 3's split form, W1 [h̄_s ; h_t] = W1[:, :H] h̄_s + W1[:, H:] h_t, with the decoder's half
// computed once per sentence.
#include <cmath>
#include <vector>

#include "exercise.hpp"

namespace exercise {

attn::BahdanauStep bahdanau_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                      const attn::Matrix& W1, const attn::Vector& b1, const attn::Matrix& w2,
                                      const attn::Vector& b2) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2), H2 = 2 * H;
    attn::BahdanauStep out;
    out.concatenated = attn::Tensor3::from_shape({B, S, H2});
    out.preactivation = attn::Tensor3::from_shape({B, S, H2});
    out.hidden = attn::Tensor3::from_shape({B, S, H2});
    out.scores = attn::Matrix::from_shape({B, S});
    out.weights = attn::Matrix::from_shape({B, S});
    out.context = attn::Matrix::from_shape({B, H});
    for (std::size_t b = 0; b < B; ++b) {
        std::vector<double> from_decoder(H2, 0.0);  // W1[:, H:] h_t + b1, the same for every position
        for (std::size_t i = 0; i < H2; ++i) {
            from_decoder[i] = b1(i);
            for (std::size_t j = 0; j < H; ++j) from_decoder[i] += W1(i, H + j) * decoder_output(b, j);
        }
        for (std::size_t s = 0; s < S; ++s) {
            for (std::size_t j = 0; j < H; ++j) {
                out.concatenated(b, s, j) = encoder_outputs(b, s, j);
                out.concatenated(b, s, H + j) = decoder_output(b, j);
            }
            double score = b2(0);
            for (std::size_t i = 0; i < H2; ++i) {
                double value = from_decoder[i];
                for (std::size_t j = 0; j < H; ++j) value += W1(i, j) * encoder_outputs(b, s, j);
                out.preactivation(b, s, i) = value;
                out.hidden(b, s, i) = std::tanh(value);
                score += w2(0, i) * out.hidden(b, s, i);
            }
            out.scores(b, s) = score;
        }
        double top = out.scores(b, 0), total = 0.0;
        for (std::size_t s = 1; s < S; ++s) top = std::fmax(top, out.scores(b, s));
        for (std::size_t s = 0; s < S; ++s) total += std::exp(out.scores(b, s) - top);
        for (std::size_t s = 0; s < S; ++s) out.weights(b, s) = std::exp(out.scores(b, s) - top) / total;
        for (std::size_t h = 0; h < H; ++h) out.context(b, h) = 0.0;
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t h = 0; h < H; ++h) out.context(b, h) += out.weights(b, s) * encoder_outputs(b, s, h);
    }
    return out;
}

}  // namespace exercise
