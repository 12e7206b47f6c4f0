// attn/shape.hpp — writing shapes the way people read them, for error messages and printouts.
//
//   attn::shape_string(std::vector<std::size_t>{2, 2, 3})   // "(2, 2, 3)"
//   attn::shape_string(std::vector<std::size_t>{})          // "()"  (a scalar)
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

/// "(2, 2, 3)": the form PyTorch users know from `tuple(t.shape)`.
std::string shape_string(const std::vector<std::size_t>& shape);

/// Same, for any container of sizes (an xtensor shape, an std::array).
template <class Sizes>
std::string shape_string(const Sizes& sizes) {
    return shape_string(std::vector<std::size_t>(sizes.begin(), sizes.end()));
}

}  // namespace attn
