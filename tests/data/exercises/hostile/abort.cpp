// std::abort() in the first case.
#include <cstdlib>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3&, const attn::Matrix&) {
    std::abort();
}

}  // namespace exercise
