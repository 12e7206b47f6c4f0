// Exercise 3, solved with the library — built when ATTN_EXERCISE_SOLUTIONS=ON to prove the
// exercise can be passed.
#include "exercise.hpp"

namespace exercise {

attn::BahdanauStep bahdanau_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                      const attn::Matrix& W1, const attn::Vector& b1, const attn::Matrix& w2,
                                      const attn::Vector& b2) {
    return attn::bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2);
}

}  // namespace exercise
