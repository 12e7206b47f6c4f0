// ds = p ∘ (dp − rowsum(dp ∘ p)), row by row (attn/softmax_backward.hpp).
#include "attn/softmax_backward.hpp"

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

void softmax_rows_backward(const double* weights, const double* grad_weights, double* grad_scores, std::size_t rows,
                           std::size_t columns) {
    for (std::size_t row = 0; row < rows; ++row) {
        const double* p = weights + row * columns;
        const double* dp = grad_weights + row * columns;
        double* ds = grad_scores + row * columns;
        // dp · p: how much the loss moves when the whole row moves together, which the softmax
        // cannot do (its outputs always sum to 1), so it is taken away from every entry.
        double along_row = 0.0;
        for (std::size_t j = 0; j < columns; ++j) along_row += dp[j] * p[j];
        for (std::size_t j = 0; j < columns; ++j) ds[j] = p[j] * (dp[j] - along_row);
    }
}

namespace {

template <class Tensor>
Tensor softmax_backward_copy(const Tensor& weights, const Tensor& grad_weights) {
    if (weights.shape() != grad_weights.shape()) {
        throw ShapeError("softmax_backward: grad_weights has shape " + shape_string(grad_weights.shape()) +
                         " but weights has shape " + shape_string(weights.shape()) + "; they must be the same");
    }
    detail::require_finite("softmax_backward", "grad_weights", grad_weights, detail::upstream_gradient_advice);
    Tensor grad_scores = Tensor::from_shape(weights.shape());
    const std::size_t columns = weights.shape().back();
    const std::size_t rows = columns == 0 ? 0 : weights.size() / columns;
    softmax_rows_backward(weights.data(), grad_weights.data(), grad_scores.data(), rows, columns);
    return grad_scores;
}

}  // namespace

Vector softmax_backward(const Vector& weights, const Vector& grad_weights) {
    return softmax_backward_copy(weights, grad_weights);
}
Matrix softmax_backward(const Matrix& weights, const Matrix& grad_weights) {
    return softmax_backward_copy(weights, grad_weights);
}
Tensor3 softmax_backward(const Tensor3& weights, const Tensor3& grad_weights) {
    return softmax_backward_copy(weights, grad_weights);
}
Tensor4 softmax_backward(const Tensor4& weights, const Tensor4& grad_weights) {
    return softmax_backward_copy(weights, grad_weights);
}

}  // namespace attn
