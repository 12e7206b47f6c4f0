#include "attn/linear.hpp"

#include <cblas.h>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

// rows × in times (out × in)ᵀ into rows × out, plus the bias on every row. All row-major, contiguous.
void affine(const double* x, std::size_t rows, std::size_t in, const Matrix& weight, const Vector* bias,
            double* y, const std::vector<std::size_t>& x_shape, const std::string& weight_name) {
    const std::size_t out = weight.shape(0);
    if (weight.shape(1) != in) {
        throw ShapeError("linear: " + weight_name + " has shape " + shape_string(weight.shape()) + " (out, in) but x has shape " +
                         shape_string(x_shape) + "; its last dimension " + std::to_string(in) + " must equal in = " +
                         std::to_string(weight.shape(1)));
    }
    if (bias != nullptr && bias->shape(0) != out) {
        throw ShapeError("linear: the bias of " + weight_name + " has shape " + shape_string(bias->shape()) + " but " +
                         weight_name + " has shape " + shape_string(weight.shape()) + "; the bias must be (out) = (" +
                         std::to_string(out) + ")");
    }
    if (rows == 0 || out == 0) return;
    if (in == 0) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t o = 0; o < out; ++o) y[r * out + o] = bias ? (*bias)(o) : 0.0;
        return;
    }
    double beta = 0.0;
    if (bias != nullptr) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t o = 0; o < out; ++o) y[r * out + o] = (*bias)(o);
        beta = 1.0;
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(rows), int(out), int(in), 1.0, x, int(in),
                weight.data(), int(in), beta, y, int(out));
}

}  // namespace

Matrix linear(const Matrix& x, const Matrix& weight, const std::string& weight_name) {
    Matrix y = Matrix::from_shape({x.shape(0), weight.shape(0)});
    affine(x.data(), x.shape(0), x.shape(1), weight, nullptr, y.data(), {x.shape(0), x.shape(1)}, weight_name);
    return y;
}

Matrix linear(const Matrix& x, const Matrix& weight, const Vector& bias, const std::string& weight_name) {
    Matrix y = Matrix::from_shape({x.shape(0), weight.shape(0)});
    affine(x.data(), x.shape(0), x.shape(1), weight, &bias, y.data(), {x.shape(0), x.shape(1)}, weight_name);
    return y;
}

Tensor3 linear(const Tensor3& x, const Matrix& weight, const std::string& weight_name) {
    Tensor3 y = Tensor3::from_shape({x.shape(0), x.shape(1), weight.shape(0)});
    affine(x.data(), x.shape(0) * x.shape(1), x.shape(2), weight, nullptr, y.data(),
           {x.shape(0), x.shape(1), x.shape(2)}, weight_name);
    return y;
}

Tensor3 linear(const Tensor3& x, const Matrix& weight, const Vector& bias, const std::string& weight_name) {
    Tensor3 y = Tensor3::from_shape({x.shape(0), x.shape(1), weight.shape(0)});
    affine(x.data(), x.shape(0) * x.shape(1), x.shape(2), weight, &bias, y.data(),
           {x.shape(0), x.shape(1), x.shape(2)}, weight_name);
    return y;
}

}  // namespace attn
