// attn/shape.hpp — writing shapes the way people read them, for error messages and printouts.
//
//   attn::shape_string(std::vector<std::size_t>{2, 2, 3})   // "(2, 2, 3)"
//   attn::shape_string(std::vector<std::size_t>{})          // "()"  (a scalar)
//   attn::require_nonempty("dot_attention", "encoder_outputs", x.shape());   // ShapeError if a size is 0
//   attn::index_string(5, {2, 3})                                  // "[1, 2]"
//   attn::checked_value_count({0, 1ull << 40, 1ull << 40}, "x.npy");   // InputError: too large
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

/// "[0, 2, 3]": the index of element `flat` of a row-major tensor of `shape`, as NumPy writes it.
std::string index_string(std::size_t flat, const std::vector<std::size_t>& shape);

/// The most values one tensor may hold when its size comes from outside the program (a file, an
/// option, a document): 2^28, which is 2 GiB once widened to float64. Checked before allocating.
constexpr std::size_t max_tensor_values = std::size_t(1) << 28;

/// The number of values of `shape`. InputError "name: the shape (…) is too large: …" when
/// the product is above max_tensor_values — and also when the product of the non-zero axes is,
/// because xtensor computes strides from every axis, so (0, 2^40, 2^40) would overflow them.
/// Never overflows itself.
std::size_t checked_value_count(const std::vector<std::size_t>& shape, const std::string& name);

template <class Sizes>
void require_nonempty(const std::string& function, const std::string& name, const Sizes& sizes) {
    require_nonempty(function, name, std::vector<std::size_t>(sizes.begin(), sizes.end()));
}

}  // namespace attn
