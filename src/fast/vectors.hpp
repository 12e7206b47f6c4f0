// src/fast/vectors.hpp — private to the fast path: the vectors of floats its hand-vectorised
// kernels are written with (tile_products.cpp, online_softmax_update.cpp).
//
// GCC's vector extension: a Vector8 is one AVX2 register (two SSE registers in the baseline), a
// Vector16 one AVX-512 register, a Vector4 one SSE register. Arithmetic between them and floats
// works lane by lane (`v * 0.5f + w`). Only inside one kernel file, whose variants are compiled
// for their targets (simd.hpp): a vector never crosses a call between two targets.
//
//   const Vector8 x = load<Vector8>(row);   store(row, x * 2.0f);
#pragma once

#include <cstddef>
#include <cstring>

namespace attn::fast::detail {

using Vector4 = float __attribute__((vector_size(16)));
using Vector8 = float __attribute__((vector_size(32)));
using Vector16 = float __attribute__((vector_size(64)));

template <class Vector>
constexpr std::size_t lanes = sizeof(Vector) / sizeof(float);

// Unaligned loads and stores (memcpy: no alignment is assumed, and no aliasing rule is broken).
template <class Vector>
[[gnu::always_inline]] inline Vector load(const float* p) {
    Vector v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <class Vector>
[[gnu::always_inline]] inline void store(float* p, Vector v) {
    std::memcpy(p, &v, sizeof v);
}

}  // namespace attn::fast::detail
