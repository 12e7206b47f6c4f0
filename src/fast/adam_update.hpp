// src/fast/adam_update.hpp — private to the fast path: one Adam step over a flat float32 buffer,
// torch.optim.Adam's form in PyTorch 1.13 (attn/adam.hpp explains it in double):
//
//   m ← β1 m + (1 − β1) g      v ← β2 v + (1 − β2) g²
//   θ ← θ − step_size · m / (√v / √(1 − β2ᵗ) + ε),   step_size = lr / (1 − β1ᵗ)
//
// The step's scalars are computed in double, the values in float32 as PyTorch's float tensors
// are; the buffer is split over the worker pool in blocks.
#pragma once

#include <cstddef>

#include "thread_pool.hpp"

namespace attn::fast::detail {

struct AdamScalars {
    double learning_rate = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    std::size_t step = 1;  // t, counted from 1
};

void adam_update(float* parameters, const float* gradients, float* first_moment, float* second_moment,
                 std::size_t count, const AdamScalars& scalars, WorkerPool& pool);

}  // namespace attn::fast::detail
