// attn/shape.hpp — shapes: written the way people read them, and checked against the letters of
// docs/notation.md.
//
// Why letters: every function of the library states its arguments' shapes in the legend of
// docs/notation.md, (B, T, d_k) and so on. check_shapes takes those legends as written and checks
// that every argument that uses a letter agrees on its size, so a function's checks are one line
// that reads like its shape comment, and every message names the tensors, their shapes and the
// letter that disagrees. `attn compute` checks the user's files with the same function.
//
//   attn::check_shapes("scaled_dot_product_attention", {{"Q", Q, "B,T,d_k"}, {"K", K, "B,S,d_k"}});
//   // Q (2, 3, 4), K (2, 5, 3) → ShapeError "scaled_dot_product_attention: shapes disagree:
//   //   Q (2, 3, 4) (B, T, d_k) has d_k = 4 but K (2, 5, 3) (B, S, d_k) has d_k = 3;
//   //   K must be (B, S, d_k) = (2, 5, 4)"
//   attn::shape_string(std::vector<std::size_t>{2, 2, 3})   // "(2, 2, 3)"
//   attn::shape_string(std::vector<std::size_t>{})          // "()"  (a scalar)
//   attn::require_nonempty("dot_attention", "encoder_outputs", x.shape());   // ShapeError if a size is 0
//   attn::index_string(5, {2, 3})                                  // "[1, 2]"
//   attn::checked_value_count({0, 1ull << 40, 1ull << 40}, "x.npy");   // InputError: too large
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
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

/// {0, 2, 3}: the index of element `flat` of a row-major tensor of `shape` (numpy.unravel_index).
std::vector<std::size_t> unravel_index(std::size_t flat, const std::vector<std::size_t>& shape);

/// "[0, 2, 3]": the same index as NumPy writes it.
std::string index_string(std::size_t flat, const std::vector<std::size_t>& shape);

/// "[0, 2, 3]" for an index already unravelled.
std::string index_string(const std::vector<std::size_t>& index);

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

/// One argument of check_shapes: its name, its shape, and its legend — the letters of
/// docs/notation.md separated by commas ("B,T,d_k"). A letter may carry a factor ("2H": twice H)
/// and a size may be a number ("1,A": exactly one row). An empty std::optional is skipped, so an
/// optional argument is checked only when it is given.
struct NamedShape {
    template <class Tensor>
    NamedShape(std::string tensor_name, const Tensor& tensor, std::string tensor_legend)
        : name(std::move(tensor_name)),
          shape(tensor.shape().begin(), tensor.shape().end()),
          legend(std::move(tensor_legend)) {}
    template <class Tensor>
    NamedShape(std::string tensor_name, const std::optional<Tensor>& tensor, std::string tensor_legend)
        : name(std::move(tensor_name)), legend(std::move(tensor_legend)), present(tensor.has_value()) {
        if (tensor) shape.assign(tensor->shape().begin(), tensor->shape().end());
    }
    NamedShape(std::string tensor_name, std::vector<std::size_t> tensor_shape, std::string tensor_legend)
        : name(std::move(tensor_name)), shape(std::move(tensor_shape)), legend(std::move(tensor_legend)) {}

    std::string name;
    std::vector<std::size_t> shape;
    std::string legend;
    bool present = true;
};

/// The size of every letter check_shapes bound: letters.at("B").
using ShapeLetters = std::map<std::string, std::size_t>;

/// Whether a size of 0 is refused (attention needs at least one query and one key) or allowed
/// (a linear map of no rows is no rows).
enum class ZeroSizes { refused, allowed };

/// Checks every present argument against its legend, in order: its rank, no size 0 (unless
/// allowed), literal sizes, and every letter the same size wherever it appears (the first
/// argument that uses a letter fixes it). Returns the size of each letter. Throws ShapeError
/// "function: …" naming the argument, its shape and legend, and for a letter that disagrees the
/// argument that fixed it and, when every letter of the legend is known, the shape it must have.
/// An empty `function` gives messages without the prefix.
ShapeLetters check_shapes(const std::string& function, const std::vector<NamedShape>& arguments,
                          ZeroSizes zero_sizes = ZeroSizes::refused);

/// "(B, S, H)" for the legend "B,S,H".
std::string legend_string(const std::string& legend);

/// The shape a legend stands for with these letters: ("B,2H", {B: 4, H: 3}) → (4, 6). A letter
/// that is not bound counts as 1; a size beyond max_tensor_values is capped at max_tensor_values + 1
/// (so that checked_value_count refuses it rather than the product wrapping around).
std::vector<std::size_t> legend_shape(const std::string& legend, const ShapeLetters& letters);

}  // namespace attn
