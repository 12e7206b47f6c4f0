// tutor/lesson/tensor_format.hpp — print a tensor exactly as PyTorch prints it.
//
// Why: students compare the tutor's output with what their own PyTorch session shows, character
// for character. This is a port of torch/_tensor_str.py (PyTorch 1.13) for float tensors with the
// default print options: 4 decimals, scientific notation when the magnitudes span more than 1000×
// (or exceed 1e8, or fall below 1e-4), integer mode ("50.") when every value is whole, lines
// wrapped at 80 columns, "..." summaries past 1000 elements. Values are rounded to float32 first,
// as the float32 tensors of a PyTorch session are. With `integer_dtype`, the print of an int64
// tensor instead (`torch.tensor([1, 4, 512])`): whole numbers right-aligned to the widest.
//
//   attn::Matrix m = {{1.99909, 2, 3}, {4, 5, 6}};
//   format_like_pytorch(m);   // "tensor([[1.9991, 2.0000, 3.0000],\n        [4.0000, 5.0000, 6.0000]])"
#pragma once

#include <string>

#include "attn/tensor.hpp"

namespace attn::tutor {

struct PrintOptions {
    int precision = 4;
    std::size_t threshold = 1000;  // more elements than this are summarized with "..."
    std::size_t edgeitems = 3;     // elements kept at each end of a summarized dimension
    std::size_t linewidth = 80;
    bool integer_dtype = false;    // print as an int64 tensor: "tensor([   1,  512, 2048])"
};

/// "tensor([...])", as `print(t)` shows a float32 tensor in PyTorch.
std::string format_like_pytorch(const DynamicTensor& tensor, const PrintOptions& options = {});

/// The same text without the "tensor(" and ")" around it; `indent` is the column the body starts at.
std::string format_tensor_body(const DynamicTensor& tensor, std::size_t indent, const PrintOptions& options = {});

}  // namespace attn::tutor
