#include "finite.hpp"

#include <cmath>
#include <cstdio>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn::detail {

std::size_t first_non_finite(const double* data, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(data[i])) return i;
    }
    return count;
}

std::size_t first_non_finite(const float* data, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(data[i])) return i;
    }
    return count;
}

void throw_non_finite(const std::string& function, const std::string& tensor, const std::vector<std::size_t>& shape,
                      std::size_t flat, double value, const std::string& why) {
    const char* text = std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
    throw InputError(function + ": " + tensor + index_string(flat, shape) + " is " + text +
                     ", not a finite number: " + why);
}

}  // namespace attn::detail
