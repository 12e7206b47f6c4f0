// attn/matmul.hpp — matrix products: the one place the library calls BLAS.
//
// Why: attention is two matrix products around a softmax, softmax(Q Kᵀ / √d_k) V, and a lesson's
// function should read as that formula, not as a 13-argument cblas_dgemm. These helpers do the
// BLAS calls on contiguous row-major memory (xtensor-blas's own dot falls back to one BLAS dot
// per element for 3-D operands, docs/architecture.md), and name the operands' shapes when their
// inner sizes disagree. A batched form multiplies matching matrices: batch item b of `a` with
// batch item b of `b` (and head j with head j), as torch.matmul does for equal leading axes.
//
// Shapes: m rows · k inner size · n columns · B batch · h heads
//   matmul(a (m, k), b (k, n))                      → (m, n)        a b
//   matmul_transposed(a (m, k), b (n, k))           → (m, n)        a bᵀ
//   matmul(a (B, m, k), b (B, k, n))                → (B, m, n)     per batch item
//   matmul_transposed(a (B, m, k), b (B, n, k))     → (B, m, n)     Q Kᵀ
//   matmul(a (B, h, m, k), b (B, h, k, n))          → (B, h, m, n)  per batch item and head
//   matmul_transposed(a (B, h, m, k), b (B, h, n, k)) → (B, h, m, n)
//   matmul(x (B, T, k), w (k, n))                   → (B, T, n)     one matrix for every row
//   matmul_transposed(x (B, T, k), w (n, k))        → (B, T, n)     x wᵀ, as nn.Linear applies w
//   matvec(a (m, k), x (k))                         → (m)
//   matvec(a (B, m, k), x (B, k))                   → (B, m)        per batch item: a[b] x[b]
//   vecmat(x (B, m), a (B, m, k))                   → (B, k)        per batch item: x[b] a[b]
//
//   attn::Tensor3 Q = {{{1, 0}, {0, 1}}}, K = {{{1, 1}, {0, 2}}};
//   attn::matmul_transposed(Q, K);   // {{{1, 0}, {1, 2}}}: row t is q_t · k_s for every key s
//
// Throws ShapeError naming `a` and `b` with their shapes when the inner sizes (or the batch and
// head sizes) differ. A size of 0 is allowed and gives an empty or all-zero result.
#pragma once

#include "attn/tensor.hpp"

namespace attn {

Matrix matmul(const Matrix& a, const Matrix& b);
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

Tensor3 matmul(const Tensor3& a, const Tensor3& b);
Tensor3 matmul_transposed(const Tensor3& a, const Tensor3& b);

Tensor4 matmul(const Tensor4& a, const Tensor4& b);
Tensor4 matmul_transposed(const Tensor4& a, const Tensor4& b);

Tensor3 matmul(const Tensor3& x, const Matrix& w);
Tensor3 matmul_transposed(const Tensor3& x, const Matrix& w);

Vector matvec(const Matrix& a, const Vector& x);
Matrix matvec(const Tensor3& a, const Matrix& x);
Matrix vecmat(const Matrix& x, const Tensor3& a);

}  // namespace attn
