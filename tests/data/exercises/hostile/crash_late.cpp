// Right in every case but the one with a single source position, where it writes to an address
// that is nobody's: the cases before the crash keep their results.
#include <cstdint>

#define dot_attention independent_dot_attention
#include "../independent/dot-product.cpp"
#undef dot_attention

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    if (encoder_outputs.shape(1) == 1) *reinterpret_cast<volatile double*>(std::uintptr_t(64)) = 1.0;
    return independent_dot_attention(encoder_outputs, decoder_output);
}

}  // namespace exercise
