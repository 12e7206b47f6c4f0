// A write one past the end of the weights through a raw pointer: no bounds check sees it,
// AddressSanitizer does.
#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix&) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1);
    attn::AttentionStep step;
    step.weights = attn::Matrix::from_shape({B, S});
    double* data = step.weights.data();
    for (std::size_t i = 0; i <= B * S; ++i) data[i] = 1.0;
    return step;
}

}  // namespace exercise
