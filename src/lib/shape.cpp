#include "attn/shape.hpp"

namespace attn {

std::string shape_string(const std::vector<std::size_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    return text + ")";
}

}  // namespace attn
