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

void require_finite_scores(const std::string& function, const double* scores, const std::vector<std::size_t>& shape,
                           const std::string& query, const std::string& key) {
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    const std::size_t at = first_non_finite(scores, count);
    if (at == count) return;
    // The index of the score, then the rows it came from: the leading axes with t, and with s.
    const std::vector<std::size_t> index = unravel_index(at, shape);
    std::string leading;
    for (std::size_t d = 0; d + 2 < index.size(); ++d) leading += std::to_string(index[d]) + ", ";
    const std::string t = std::to_string(index[index.size() - 2]), s = std::to_string(index.back());
    throw_non_finite(function, "scores", shape, at, scores[at],
                     "scale · " + query + "[" + leading + t + "] · " + key + "[" + leading + s + "]; " + overflow_advice);
}

}  // namespace attn::detail
