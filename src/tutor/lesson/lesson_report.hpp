// tutor/lesson/lesson_report.hpp — the lines the tutor prints about tensors and checks, shared by
// `attn lesson` (with prose) and `attn check` (without). Every line fits terminal.width.
//
//   scores  (B, S) = (2, 2)
//   tensor([[50., 57.],
//           [19., 19.]])
//   ✓ scores: max |Δ| 0.0e+00 over 4 values
#pragma once

#include <string>
#include <vector>

#include "tutor/lesson/lessons.hpp"
#include "tutor/lesson/tensor_format.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

/// The tensor as PyTorch prints it, every line fitting `width` columns once indented by `indent`:
/// PyTorch's own print (linewidth 80) when that fits; else PyTorch's print with the linewidth
/// narrowed (as torch.set_printoptions(linewidth=...) would) until it fits.
std::string format_to_fit(const DynamicTensor& tensor, std::size_t indent, std::size_t width, PrintOptions options = {});

/// Whether an input block's values are all written as whole numbers without a decimal point
/// ("[1, 4, 512]", not "[1., 4.]" nor "tensor([1.0000])"): PyTorch reads such a literal as int64,
/// and the tutor prints it that way.
bool written_as_integers(const LessonBlock& block);

/// "encoder_outputs  (B, S, H) = (2, 2, 3)" followed by the tensor as PyTorch prints it, indented.
std::string describe_tensor(const Terminal& terminal, const std::string& label, const LessonBlock& block,
                            const DynamicTensor& tensor);

/// "encoder_outputs  (B, S, H) = (2, 2, 3)" alone: the line above a tensor or its heat map.
std::string describe_tensor_title(const Terminal& terminal, const std::string& label, const LessonBlock& block,
                                  const DynamicTensor& tensor);

/// The tensor as shaded grids, labelled by the block's rows=/columns= and its shape letters: one
/// string per grid, its caption and legend included.
std::vector<std::string> describe_heatmap(const Terminal& terminal, const LessonBlock& block, const DynamicTensor& tensor);

/// "✓ scores: max |Δ| 0.0e+00 over 4 values"; on failure the expected values as written too.
std::string describe_check(const Terminal& terminal, const LessonRun& run, const CheckResult& check);

/// "4 passed, 0 failed", coloured by the outcome.
std::string describe_totals(const Terminal& terminal, std::size_t passed, std::size_t failed);

/// A path as the class should read it: relative to the working folder when it is inside it, else
/// relative to `base` (the repository, or the folder that holds the lessons folder) when it is
/// inside that, else unchanged; shortened from the left with "…" only when it is still wider than
/// `width` (a terminal narrower than the path).
std::string display_path(const std::string& path, std::size_t width, const std::string& base = "");

}  // namespace attn::tutor
