// src/common/finite_values.hpp — private to the two libraries: finding a value that is not a
// finite number, and the one message that names it.
//
// Why here: the lesson path (src/lib) and the fast path (src/fast) refuse NaN and ±∞ with the same
// words, so a user who switches paths reads the same error. Both libraries have this folder on
// their private include path; neither reaches into the other's sources. Defined in
// src/lib/finite.cpp (attn::attn, which attn::fast links).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::detail {

/// The index of the first value of data[0, count) that is NaN or ±∞, or `count` when there is none.
std::size_t first_non_finite(const double* data, std::size_t count);
std::size_t first_non_finite(const float* data, std::size_t count);

/// Throws InputError "function: tensor[0, 1, 2] is -inf, not a finite number: why".
[[noreturn]] void throw_non_finite(const std::string& function, const std::string& tensor,
                                   const std::vector<std::size_t>& shape, std::size_t flat, double value,
                                   const std::string& why);

}  // namespace attn::detail
