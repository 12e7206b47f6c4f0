// Exercise 6, solved with the library — built when ATTN_EXERCISE_SOLUTIONS=ON to prove the
// exercise can be passed.
#include "exercise.hpp"

namespace exercise {

attn::LayerNormStep layer_norm(const attn::Matrix& x, const attn::Vector& weight, const attn::Vector& bias, double eps) {
    return attn::layer_norm(x, weight, bias, eps);
}

attn::EncoderLayerStep transformer_encoder_layer(const attn::Tensor3& x, const attn::EncoderLayerWeights& weights,
                                                 const attn::EncoderLayerOptions& options) {
    return attn::transformer_encoder_layer(x, weights, options);
}

}  // namespace exercise
