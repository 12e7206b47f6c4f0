// Right scores and weights, but the context is the plain mean of the encoder outputs.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::AttentionStep step;
    step.scores = attn::Matrix::from_shape({B, S});
    step.weights = attn::Matrix::from_shape({B, S});
    step.context = attn::Matrix::from_shape({B, H});
    for (std::size_t b = 0; b < B; ++b) {
        double maximum = -INFINITY, sum = 0.0;
        for (std::size_t s = 0; s < S; ++s) {
            double dot = 0.0;
            for (std::size_t h = 0; h < H; ++h) dot += encoder_outputs(b, s, h) * decoder_output(b, h);
            step.scores(b, s) = dot;
            maximum = std::fmax(maximum, dot);
        }
        for (std::size_t s = 0; s < S; ++s) sum += step.weights(b, s) = std::exp(step.scores(b, s) - maximum);
        for (std::size_t s = 0; s < S; ++s) step.weights(b, s) /= sum;
        for (std::size_t h = 0; h < H; ++h) {
            double mean = 0.0;
            for (std::size_t s = 0; s < S; ++s) mean += encoder_outputs(b, s, h) / double(S);
            step.context(b, h) = mean;
        }
    }
    return step;
}

}  // namespace exercise
