// Asks for 128 GiB: the memory limit refuses it.
#include <vector>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3&, const attn::Matrix&) {
    std::vector<double> huge(std::size_t(1) << 34, 1.0);
    return {};
}

}  // namespace exercise
