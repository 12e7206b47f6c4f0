// src/fast/projection.hpp — private to the fast path: y = x Wᵀ + b, nn.Linear on rows of float32,
// split by rows over the worker pool.
//
// Why its own file: every dense layer of the fast path — the Q, K, V and output projections, the
// feed-forward network's two layers — is this one product, and how it is split decides how well
// two cores are used. Each worker runs one single-threaded sgemm on a block of rows starting on a
// multiple of 16 (OpenBLAS's row blocking). The output starts as the bias and sgemm adds to it
// (beta = 1), which also spares the pass OpenBLAS makes to zero it when beta is 0.
//
// Shapes: x (rows, in) row-major · weight (out, in) as nn.Linear stores it · bias (out) · y (rows, out)
//
//   project(x, rows, D, w_q, b_q_or_null, q, pool);
//   project_backward(x, dq, rows, D, w_q, d_w_q, d_b_q_or_null, dx, pool);   // its gradients
//   project_together({{x, &w_q, b_q, q}, {x, &w_k, b_k, k}, {x, &w_v, b_v, v}}, B, pool);
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attn/fast/tensor.hpp"
#include "thread_pool.hpp"

namespace attn::fast::detail {

/// y (rows, out) = x (rows, in) · weightᵀ + bias; bias may be null (no bias).
void project(const float* x, std::size_t rows, std::size_t in, const Matrix& weight, const float* bias, float* y,
             WorkerPool& pool);
/// The same with the weight (out, in) given as a pointer into a larger buffer (the training path's flat parameters).
void project(const float* x, std::size_t rows, std::size_t in, const float* weight, std::size_t out, const float* bias,
             float* y, WorkerPool& pool);

/// One product of project_together: y (rows, out) = x (rows, in) · weightᵀ + bias (bias may be null).
struct Product {
    const float* x;
    const Matrix* weight;  // (out, in)
    const float* bias;
    float* y;
};

/// The same product for a few rows (one generated token per sequence), where splitting by rows
/// leaves threads idle: each product's *output* rows are split over the workers instead, every
/// block one sgemv (rows = 1) or sgemm call reading its block of the weight once. All products
/// are handed out in one job (e.g. a layer's Q, K and V), so that the workers wake once. Every
/// product has `rows` rows.
void project_together(const std::vector<Product>& products, std::size_t rows, WorkerPool& pool);

/// The backward of project: given dy = ∂loss/∂y (rows, out), d_weight (out, in) = dyᵀ x, d_bias
/// (out) = the column sums of dy (skipped when null), dx (rows, in) = dy · weight (skipped when
/// null). The weight's gradient is split over the workers by its rows (each one sgemm over all
/// `rows`), dx by rows, in one job. The bias sums are accumulated in double.
void project_backward(const float* x, const float* dy, std::size_t rows, std::size_t in, const Matrix& weight,
                      float* d_weight, float* d_bias, float* dx, WorkerPool& pool);
/// The same with the weight (out, in) given as a pointer.
void project_backward(const float* x, const float* dy, std::size_t rows, std::size_t in, const float* weight,
                      std::size_t out, float* d_weight, float* d_bias, float* dx, WorkerPool& pool);

/// The data of an optional vector, or null when it is absent.
inline const float* data_or_null(const std::optional<Vector>& v) { return v ? v->data() : nullptr; }

}  // namespace attn::fast::detail
