// tutor/lesson_report.hpp — the lines the tutor prints about tensors and checks, shared by
// `attn lesson` (with prose) and `attn check` (without).
//
//   scores  (B, S) = (2, 2)
//   tensor([[50., 57.],
//           [19., 19.]])
//   ✓ scores: max |Δ| 0.0e+00 over 4 values
#pragma once

#include <string>

#include "tutor/lessons.hpp"
#include "tutor/terminal.hpp"

namespace attn::tutor {

/// "encoder_outputs  (B, S, H) = (2, 2, 3)" followed by the tensor as PyTorch prints it, indented.
std::string describe_tensor(const Terminal& terminal, const std::string& label, const LessonBlock& block,
                            const DynamicTensor& tensor);

/// The tensor as shaded grids, labelled by the block's rows=/columns= and its shape letters.
std::string describe_heatmap(const Terminal& terminal, const LessonBlock& block, const DynamicTensor& tensor);

/// "✓ scores: max |Δ| 0.0e+00 over 4 values"; on failure the expected values as written too.
std::string describe_check(const Terminal& terminal, const LessonRun& run, const CheckResult& check);

/// "4 passed, 0 failed", coloured by the outcome.
std::string describe_totals(const Terminal& terminal, std::size_t passed, std::size_t failed);

}  // namespace attn::tutor
