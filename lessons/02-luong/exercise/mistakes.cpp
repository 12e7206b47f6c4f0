#include "02-luong/exercise/mistakes.hpp"

#include <xtensor/xmanipulation.hpp>

namespace attn::mistakes {

LuongGeneralStep luong_weight_transposed(const Tensor3& encoder_outputs, const Matrix& decoder_output, const Matrix& W_a) {
    // encoder_outputs @ W_a = encoder_outputs (W_aᵀ)ᵀ: nn.Linear's product with W_aᵀ in W_a's place.
    const Matrix W_transposed = xt::transpose(W_a);
    return luong_general_attention(encoder_outputs, decoder_output, W_transposed);
}

LuongGeneralStep luong_context_of_projected(const LuongGeneralStep& right) {
    LuongGeneralStep wrong = right;
    wrong.context = weighted_sum(right.weights, right.projected);
    return wrong;
}

}  // namespace attn::mistakes
