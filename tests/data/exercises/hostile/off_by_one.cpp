// The score loop runs one position too far (s <= S): the bounds check names the index.
#include <cmath>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    attn::AttentionStep step;
    step.scores = attn::Matrix::from_shape({B, S});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s <= S; ++s) {
            double dot = 0.0;
            for (std::size_t h = 0; h < H; ++h) dot += encoder_outputs(b, s, h) * decoder_output(b, h);
            step.scores(b, s) = dot;
        }
    return step;
}

}  // namespace exercise
