// src/fast/layer_norm_training.hpp — private to the fast path: nn.LayerNorm over rows of float32,
// forward keeping each row's statistics, and its backward (the training path's).
//
// Why its own statistics: the backward needs x̂ = (x − μ)·σ⁻¹ again; keeping μ and σ⁻¹ per row
// (2 floats) lets it rebuild x̂ from the layer's input, which the model keeps anyway.
//   forward   μ = mean(x), σ⁻¹ = 1/√(mean((x − μ)²) + eps), y = x̂ ∘ γ + β  (biased variance, eps inside)
//   backward  g = dy ∘ γ;  dx += σ⁻¹ (g − mean(g) − x̂ ∘ mean(g ∘ x̂));  dγ = Σ_rows dy ∘ x̂;  dβ = Σ_rows dy
// Row sums are taken in double. Rows are split over the worker pool; the column sums of dγ and
// dβ by blocks of columns, so that no two workers write the same value.
//
// Shapes: x, y, dy, dx (rows, D) · γ, β, dγ, dβ (D) · mean, inverse_std (rows)
#pragma once

#include <cstddef>

#include "thread_pool.hpp"

namespace attn::fast::detail {

void layer_norm_forward(const float* x, std::size_t rows, std::size_t D, const float* gamma, const float* beta,
                        float eps, float* y, float* mean, float* inverse_std, WorkerPool& pool);

/// Adds the input's gradient to dx; writes (not adds) dγ and dβ.
void layer_norm_backward(const float* x, const float* mean, const float* inverse_std, const float* gamma,
                         const float* dy, std::size_t rows, std::size_t D, float* dx, float* d_gamma, float* d_beta,
                         WorkerPool& pool);

}  // namespace attn::fast::detail
