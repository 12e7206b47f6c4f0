// Exercise 2, solved with the library — built when ATTN_EXERCISE_SOLUTIONS=ON to prove the
// exercise can be passed.
#include "exercise.hpp"

namespace exercise {

attn::LuongGeneralStep luong_general_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                               const attn::Matrix& W_a) {
    return attn::luong_general_attention(encoder_outputs, decoder_output, W_a);
}

}  // namespace exercise
