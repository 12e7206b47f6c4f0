// A write to an address that is nobody's: a segmentation fault in the first case.
#include <cstdint>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3&, const attn::Matrix&) {
    volatile double* nowhere = reinterpret_cast<volatile double*>(std::uintptr_t(64));
    *nowhere = 1.0;
    return {};
}

}  // namespace exercise
