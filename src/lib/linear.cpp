#include "attn/linear.hpp"

#include "attn/matmul.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

// x (…, in), weight (out, in), bias (out): the shapes of nn.Linear; a map of no rows is allowed.
template <class Tensor>
void check_linear(const Tensor& x, const char* x_legend, const Matrix& weight, const std::optional<Vector>& bias,
                  const std::string& weight_name) {
    check_shapes("linear", {{"x", x, x_legend}, {weight_name, weight, "out,in"}, {"the bias of " + weight_name, bias, "out"}},
                 ZeroSizes::allowed);
}

}  // namespace

Matrix linear(const Matrix& x, const Matrix& weight, const std::string& weight_name) {
    check_linear(x, "N,in", weight, std::nullopt, weight_name);
    return matmul_transposed(x, weight);  // x Wᵀ
}

Matrix linear(const Matrix& x, const Matrix& weight, const Vector& bias, const std::string& weight_name) {
    check_linear(x, "N,in", weight, bias, weight_name);
    Matrix y = matmul_transposed(x, weight);  // x Wᵀ
    y += bias;                                // + b, on every row
    return y;
}

Tensor3 linear(const Tensor3& x, const Matrix& weight, const std::string& weight_name) {
    check_linear(x, "B,T,in", weight, std::nullopt, weight_name);
    return matmul_transposed(x, weight);
}

Tensor3 linear(const Tensor3& x, const Matrix& weight, const Vector& bias, const std::string& weight_name) {
    check_linear(x, "B,T,in", weight, bias, weight_name);
    Tensor3 y = matmul_transposed(x, weight);
    y += bias;
    return y;
}

}  // namespace attn
