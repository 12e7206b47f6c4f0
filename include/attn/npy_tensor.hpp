// attn/npy_tensor.hpp — a .npy file as a tensor, and a tensor as .npy bytes.
//
// Why its own header: attn/npy.hpp reads and writes the format (shape, dtype, values in C order)
// without xtensor, so that the reader stays cheap to include and to fuzz; this is the one place
// that turns what it reads into the library's DynamicTensor and back. `attn compute`, `attn view`
// and the tests all go through it.
//
//   attn::DynamicTensor x = attn::read_npy_tensor("in/encoder_outputs.npy");   // (B, S, H), float64
//   std::string bytes = attn::encode_npy(x, attn::NpyDtype::float32);
#pragma once

#include <string>

#include "attn/npy.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// The array's values in a tensor of its shape (float32 values widened by the reader, or kept in NpyArray::floats).
DynamicTensor to_tensor(const NpyArray& array);

/// read_npy, then to_tensor: InputError naming `path` as read_npy does.
DynamicTensor read_npy_tensor(const std::string& path);

/// The bytes of a .npy file holding `tensor`, rounded to `dtype` (encode_npy of its shape and values).
std::string encode_npy(const DynamicTensor& tensor, NpyDtype dtype);

}  // namespace attn
