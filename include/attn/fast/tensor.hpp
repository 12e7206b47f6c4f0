// attn/fast/tensor.hpp — the float32 tensors of the fast path (attn::fast).
//
// Why a second set of types: the lesson path (attn/tensor.hpp) computes in double so that every
// printed digit is right; the fast path computes in float32, as PyTorch does by default, because
// at real sizes half the bytes is twice the speed and half the memory. Inside attn::fast the
// names Vector, Matrix, Tensor3 and Tensor4 mean these float32 containers; the lesson path's
// double containers stay attn::Vector, attn::Matrix, ….
//
//   attn::fast::Tensor3 x = xt::zeros<float>({1, 4096, 768});   // (B, T, D)
#pragma once

#include <xtensor/xtensor.hpp>

namespace attn::fast {

using Vector = xt::xtensor<float, 1>;
using Matrix = xt::xtensor<float, 2>;
using Tensor3 = xt::xtensor<float, 3>;
using Tensor4 = xt::xtensor<float, 4>;

}  // namespace attn::fast
