// dW = dYᵀ X, db = Σ dY, dX = dY W (attn/linear_backward.hpp).
#include "attn/linear_backward.hpp"

#include <xtensor/xbuilder.hpp>

#include "attn/matmul.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

// dYᵀ X without forming dYᵀ: column k of dY times column i of X, summed over the rows.
Matrix transposed_times(const Matrix& grad_output, const Matrix& x) {
    const std::size_t N = x.shape(0), in = x.shape(1), out = grad_output.shape(1);
    Matrix grad_weight = xt::zeros<double>({out, in});
    for (std::size_t n = 0; n < N; ++n)
        for (std::size_t k = 0; k < out; ++k) {
            const double dy = grad_output(n, k);
            for (std::size_t i = 0; i < in; ++i) grad_weight(k, i) += dy * x(n, i);
        }
    return grad_weight;
}

Vector column_sums(const Matrix& grad_output) {
    Vector sums = xt::zeros<double>({grad_output.shape(1)});
    for (std::size_t n = 0; n < grad_output.shape(0); ++n)
        for (std::size_t k = 0; k < grad_output.shape(1); ++k) sums(k) += grad_output(n, k);
    return sums;
}

}  // namespace

LinearGradients linear_backward(const Matrix& x, const Matrix& weight, const Matrix& grad_output) {
    check_shapes("linear_backward", {{"x", x, "N,in"}, {"weight", weight, "out,in"}, {"grad_output", grad_output, "N,out"}},
                 ZeroSizes::allowed);
    detail::require_finite("linear_backward", "grad_output", grad_output, detail::upstream_gradient_advice);
    LinearGradients grad;
    grad.weight = transposed_times(grad_output, x);  // dW = dYᵀ X   (out, in)
    grad.bias = column_sums(grad_output);            // db = Σ_n dY  (out)
    grad.x = matmul(grad_output, weight);            // dX = dY W    (N, in)
    return grad;
}

SequenceLinearGradients linear_backward(const Tensor3& x, const Matrix& weight, const Tensor3& grad_output) {
    check_shapes("linear_backward",
                 {{"x", x, "B,T,in"}, {"weight", weight, "out,in"}, {"grad_output", grad_output, "B,T,out"}},
                 ZeroSizes::allowed);
    // Checked here too, so that a bad value is named by its (b, t, k) index, not its row of (B·T, out).
    detail::require_finite("linear_backward", "grad_output", grad_output, detail::upstream_gradient_advice);
    // Every position of every sequence is one row of the map: the (B·T, ·) matrices.
    LinearGradients rows = linear_backward(rows_of(x), weight, rows_of(grad_output));
    return {positions_of(rows.x, x.shape(0), x.shape(1)), std::move(rows.weight), std::move(rows.bias)};
}

}  // namespace attn
