// tutor/document/tensor_literal.hpp — read a tensor written in a lesson document.
//
// Why: a lesson's numbers are written the way PyTorch prints them, so that a reader can paste
// them into Python and a teacher can paste PyTorch's output into the lesson. Both forms parse:
//
//   [[[1, 2, 3], [2, 2, 3]], [[4, 5, 6], [4, 5, 6]]]
//   tensor([[1.9991, 2.0000, 3.0000],
//           [4.0000, 5.0000, 6.0000]])
//
// Each number remembers how precisely it was written: 1.9991 stands for anything that rounds to
// it (±5e-5), 9.1105e-04 for ±5e-9, while 50, 50. (PyTorch's integer mode) and 0.5 given as an
// input are taken as written. A summarized print ("...") cannot be checked and is refused, as are
// nan (it equals nothing), a number beyond float64's range such as 1e400 (inf is written inf, as
// PyTorch prints masked scores) and lists nested deeper than max_literal_depth.
#pragma once

#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/tensor.hpp"

namespace attn::tutor {

/// A mistake in a lesson document; the message starts with "file:line:".
class LessonFormatError : public InputError {
public:
    explicit LessonFormatError(const std::string& message);
};

struct TensorLiteral {
    DynamicTensor tensor;
    /// Per element, half a unit of its last written digit (0 for whole numbers and "50.").
    std::vector<double> resolution;
};

/// The deepest nesting of lists read: NumPy's limit on the number of axes.
constexpr std::size_t max_literal_depth = 64;

/// Parses `text`, whose first line is line `first_line` of `file` (for error messages).
TensorLiteral parse_tensor_literal(const std::string& text, const std::string& file, int first_line);

}  // namespace attn::tutor
