#include "attn/shape.hpp"

#include "attn/error.hpp"

namespace attn {

std::string shape_string(const std::vector<std::size_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    return text + ")";
}

void require_nonempty(const std::string& function, const std::string& name, const std::vector<std::size_t>& shape) {
    for (std::size_t size : shape) {
        if (size == 0) {
            throw ShapeError(function + ": " + name + " has shape " + shape_string(shape) +
                             "; every dimension must be at least 1");
        }
    }
}

}  // namespace attn
