// Right, but with float accumulators: every difference is about 1e-7 of the values.
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
        float maximum = -INFINITY;
        for (std::size_t s = 0; s < S; ++s) {
            float dot = 0.0f;
            for (std::size_t h = 0; h < H; ++h) dot += float(encoder_outputs(b, s, h)) * float(decoder_output(b, h));
            step.scores(b, s) = dot;
            maximum = std::fmax(maximum, dot);
        }
        float sum = 0.0f;
        for (std::size_t s = 0; s < S; ++s) sum += std::exp(float(step.scores(b, s)) - maximum);
        for (std::size_t s = 0; s < S; ++s) step.weights(b, s) = std::exp(float(step.scores(b, s)) - maximum) / sum;
        for (std::size_t h = 0; h < H; ++h) {
            float mean = 0.0f;
            for (std::size_t s = 0; s < S; ++s) mean += float(step.weights(b, s)) * float(encoder_outputs(b, s, h));
            step.context(b, h) = mean;
        }
    }
    return step;
}

}  // namespace exercise
