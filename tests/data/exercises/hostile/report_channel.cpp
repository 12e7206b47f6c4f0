// Writes garbage where the program's reports go (file descriptor 4): the checker stops it.
#include <unistd.h>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3&, const attn::Matrix&) {
    const char garbage[] = "ATN1 these are not the numbers you are looking for";
    (void)!::write(4, garbage, sizeof garbage);
    ::sleep(1);
    return {};
}

}  // namespace exercise
