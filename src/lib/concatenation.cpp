#include "concatenation.hpp"

#include <algorithm>

namespace attn::detail {

Tensor3 concatenate_with_decoder_state(const Tensor3& encoder_outputs, const Matrix& decoder_output, DecoderState order) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    Tensor3 concatenated = Tensor3::from_shape({B, S, 2 * H});
    const std::size_t query_at = order == DecoderState::first ? 0 : H, key_at = H - query_at;
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t s = 0; s < S; ++s) {
            double* row = concatenated.data() + (b * S + s) * 2 * H;
            const double* key = encoder_outputs.data() + (b * S + s) * H;
            const double* query = decoder_output.data() + b * H;
            std::copy(key, key + H, row + key_at);
            std::copy(query, query + H, row + query_at);
        }
    }
    return concatenated;
}

}  // namespace attn::detail
