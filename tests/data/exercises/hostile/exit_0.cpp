// Ends the whole program with a success status in the first case: it must not pass.
#include <cstdlib>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3&, const attn::Matrix&) {
    std::exit(0);
}

}  // namespace exercise
