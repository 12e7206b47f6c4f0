#include "attn/matmul.hpp"

#include <algorithm>
#include <cblas.h>
#include <climits>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

enum class Second { as_is, transposed };

// CBLAS takes int sizes: a larger one is refused rather than wrapped around.
int blas_size(std::size_t size, const char* function) {
    if (size > std::size_t(INT_MAX)) {
        throw InputError(std::string(function) + ": a size of " + std::to_string(size) + " is beyond what BLAS can take");
    }
    return int(size);
}

// `count` products back to back in memory: c_i (m × n) = a_i (m × k) · b_i, with b_i (k × n), or
// b_iᵀ with b_i (n × k). A size of 0 gives an empty product, or zeros when only k is 0.
void multiply(const char* function, const double* a, const double* b, double* c, std::size_t count, std::size_t m,
              std::size_t k, std::size_t n, Second second) {
    if (m == 0 || n == 0 || count == 0) return;
    if (k == 0) {
        std::fill(c, c + count * m * n, 0.0);
        return;
    }
    const int rows = blas_size(m, function), inner = blas_size(k, function), columns = blas_size(n, function);
    const bool transposed = second == Second::transposed;
    for (std::size_t i = 0; i < count; ++i) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, transposed ? CblasTrans : CblasNoTrans, rows, columns, inner, 1.0,
                    a + i * m * k, inner, b + i * k * n, transposed ? inner : columns, 0.0, c + i * m * n, columns);
    }
}

// The same for a matrix-vector product: y_i (m) = a_i (m × k) · x_i (k), or, `second` transposed,
// y_i (k) = x_i (m) · a_i (m × k).
void multiply_vector(const char* function, const double* a, const double* x, double* y, std::size_t count,
                     std::size_t m, std::size_t k, Second second) {
    const std::size_t out = second == Second::transposed ? k : m;
    if (out == 0 || count == 0) return;
    if (m == 0 || k == 0) {
        std::fill(y, y + count * out, 0.0);
        return;
    }
    const int rows = blas_size(m, function), columns = blas_size(k, function);
    const std::size_t in = second == Second::transposed ? m : k;
    for (std::size_t i = 0; i < count; ++i) {
        cblas_dgemv(CblasRowMajor, second == Second::transposed ? CblasTrans : CblasNoTrans, rows, columns, 1.0,
                    a + i * m * k, columns, x + i * in, 1, 0.0, y + i * out, 1);
    }
}

}  // namespace

Matrix matmul(const Matrix& a, const Matrix& b) {
    const auto size = check_shapes("matmul", {{"a", a, "m,k"}, {"b", b, "k,n"}}, ZeroSizes::allowed);
    Matrix c = Matrix::from_shape({size.at("m"), size.at("n")});
    multiply("matmul", a.data(), b.data(), c.data(), 1, size.at("m"), size.at("k"), size.at("n"), Second::as_is);
    return c;
}

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
    const auto size = check_shapes("matmul_transposed", {{"a", a, "m,k"}, {"b", b, "n,k"}}, ZeroSizes::allowed);
    Matrix c = Matrix::from_shape({size.at("m"), size.at("n")});
    multiply("matmul_transposed", a.data(), b.data(), c.data(), 1, size.at("m"), size.at("k"), size.at("n"),
             Second::transposed);
    return c;
}

Tensor3 matmul(const Tensor3& a, const Tensor3& b) {
    const auto size = check_shapes("matmul", {{"a", a, "B,m,k"}, {"b", b, "B,k,n"}}, ZeroSizes::allowed);
    Tensor3 c = Tensor3::from_shape({size.at("B"), size.at("m"), size.at("n")});
    multiply("matmul", a.data(), b.data(), c.data(), size.at("B"), size.at("m"), size.at("k"), size.at("n"),
             Second::as_is);
    return c;
}

Tensor3 matmul_transposed(const Tensor3& a, const Tensor3& b) {
    const auto size = check_shapes("matmul_transposed", {{"a", a, "B,m,k"}, {"b", b, "B,n,k"}}, ZeroSizes::allowed);
    Tensor3 c = Tensor3::from_shape({size.at("B"), size.at("m"), size.at("n")});
    multiply("matmul_transposed", a.data(), b.data(), c.data(), size.at("B"), size.at("m"), size.at("k"), size.at("n"),
             Second::transposed);
    return c;
}

Tensor4 matmul(const Tensor4& a, const Tensor4& b) {
    const auto size = check_shapes("matmul", {{"a", a, "B,h,m,k"}, {"b", b, "B,h,k,n"}}, ZeroSizes::allowed);
    Tensor4 c = Tensor4::from_shape({size.at("B"), size.at("h"), size.at("m"), size.at("n")});
    multiply("matmul", a.data(), b.data(), c.data(), size.at("B") * size.at("h"), size.at("m"), size.at("k"),
             size.at("n"), Second::as_is);
    return c;
}

Tensor4 matmul_transposed(const Tensor4& a, const Tensor4& b) {
    const auto size = check_shapes("matmul_transposed", {{"a", a, "B,h,m,k"}, {"b", b, "B,h,n,k"}}, ZeroSizes::allowed);
    Tensor4 c = Tensor4::from_shape({size.at("B"), size.at("h"), size.at("m"), size.at("n")});
    multiply("matmul_transposed", a.data(), b.data(), c.data(), size.at("B") * size.at("h"), size.at("m"),
             size.at("k"), size.at("n"), Second::transposed);
    return c;
}

Tensor3 matmul(const Tensor3& x, const Matrix& w) {
    const auto size = check_shapes("matmul", {{"x", x, "B,T,k"}, {"w", w, "k,n"}}, ZeroSizes::allowed);
    Tensor3 y = Tensor3::from_shape({size.at("B"), size.at("T"), size.at("n")});
    // (B, T, k) is (B·T, k) in row-major memory: one product for every row at once.
    multiply("matmul", x.data(), w.data(), y.data(), 1, size.at("B") * size.at("T"), size.at("k"), size.at("n"),
             Second::as_is);
    return y;
}

Tensor3 matmul_transposed(const Tensor3& x, const Matrix& w) {
    const auto size = check_shapes("matmul_transposed", {{"x", x, "B,T,k"}, {"w", w, "n,k"}}, ZeroSizes::allowed);
    Tensor3 y = Tensor3::from_shape({size.at("B"), size.at("T"), size.at("n")});
    multiply("matmul_transposed", x.data(), w.data(), y.data(), 1, size.at("B") * size.at("T"), size.at("k"),
             size.at("n"), Second::transposed);
    return y;
}

Vector matvec(const Matrix& a, const Vector& x) {
    const auto size = check_shapes("matvec", {{"a", a, "m,k"}, {"x", x, "k"}}, ZeroSizes::allowed);
    Vector y = Vector::from_shape({size.at("m")});
    multiply_vector("matvec", a.data(), x.data(), y.data(), 1, size.at("m"), size.at("k"), Second::as_is);
    return y;
}

Matrix matvec(const Tensor3& a, const Matrix& x) {
    const auto size = check_shapes("matvec", {{"a", a, "B,m,k"}, {"x", x, "B,k"}}, ZeroSizes::allowed);
    Matrix y = Matrix::from_shape({size.at("B"), size.at("m")});
    multiply_vector("matvec", a.data(), x.data(), y.data(), size.at("B"), size.at("m"), size.at("k"), Second::as_is);
    return y;
}

Matrix vecmat(const Matrix& x, const Tensor3& a) {
    const auto size = check_shapes("vecmat", {{"x", x, "B,m"}, {"a", a, "B,m,k"}}, ZeroSizes::allowed);
    Matrix y = Matrix::from_shape({size.at("B"), size.at("k")});
    multiply_vector("vecmat", a.data(), x.data(), y.data(), size.at("B"), size.at("m"), size.at("k"),
                    Second::transposed);
    return y;
}

}  // namespace attn
