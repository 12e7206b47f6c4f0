// A helper declared and used, never defined: the link fails.
#include "exercise.hpp"

double helper_never_defined(const attn::Matrix& scores, std::size_t row);

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    attn::AttentionStep step;
    step.scores = attn::Matrix::from_shape({encoder_outputs.shape(0), encoder_outputs.shape(1)});
    step.scores(0, 0) = helper_never_defined(decoder_output, 0);
    return step;
}

}  // namespace exercise
