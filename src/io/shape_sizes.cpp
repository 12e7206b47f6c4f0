// Shapes as people read them, and sizes from outside the program checked before allocating
// (attn/shape.hpp): the part of shape.hpp that the readers of files need, so it lives with them.
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

std::vector<std::size_t> unravel_index(std::size_t flat, const std::vector<std::size_t>& shape) {
    std::vector<std::size_t> index(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        if (shape[d] == 0) continue;
        index[d] = flat % shape[d];
        flat /= shape[d];
    }
    return index;
}

std::string index_string(const std::vector<std::size_t>& index) {
    std::string text = "[";
    for (std::size_t d = 0; d < index.size(); ++d) text += (d ? ", " : "") + std::to_string(index[d]);
    return text + "]";
}

std::string index_string(std::size_t flat, const std::vector<std::size_t>& shape) {
    return index_string(unravel_index(flat, shape));
}

std::size_t checked_value_count(const std::vector<std::size_t>& shape, const std::string& name) {
    bool has_zero = false;
    for (std::size_t size : shape) has_zero = has_zero || size == 0;
    // The product of the non-zero axes, stopped as soon as it passes the limit (so it cannot wrap).
    std::size_t nonzero_product = 1;
    for (std::size_t size : shape) {
        if (size == 0) continue;
        if (size > max_tensor_values || nonzero_product > max_tensor_values / size) {
            throw InputError(name + ": the shape " + shape_string(shape) + " is too large: " +
                             (has_zero ? "its non-zero sizes multiply to more than " : "more than ") +
                             std::to_string(max_tensor_values) + " values (2^28), the most one tensor may hold here");
        }
        nonzero_product *= size;
    }
    return has_zero ? 0 : nonzero_product;
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
