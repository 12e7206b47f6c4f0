// attn/shape.hpp — writing shapes the way people read them, for error messages and printouts.
//
//   attn::shape_string(std::vector<std::size_t>{2, 2, 3})   // "(2, 2, 3)"
//   attn::shape_string(std::vector<std::size_t>{})          // "()"  (a scalar)
//   attn::require_nonempty("dot_attention", "encoder_outputs", x.shape());   // ShapeError if a size is 0
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

/// Throws ShapeError "function: name has shape (2, 0, 3); every dimension must be at least 1" when
/// a size is zero: the check every public function makes before it touches BLAS.
void require_nonempty(const std::string& function, const std::string& name, const std::vector<std::size_t>& shape);

template <class Sizes>
void require_nonempty(const std::string& function, const std::string& name, const Sizes& sizes) {
    require_nonempty(function, name, std::vector<std::size_t>(sizes.begin(), sizes.end()));
}

}  // namespace attn
