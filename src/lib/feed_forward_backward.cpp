// The feed-forward network backwards: linear2, the activation, linear1 (attn/feed_forward_backward.hpp).
#include "attn/feed_forward_backward.hpp"

#include <cmath>
#include <stdexcept>

#include "attn/error.hpp"
#include "attn/linear_backward.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

constexpr double pi = 3.14159265358979323846;

double relu_derivative(double u) { return u > 0.0 ? 1.0 : 0.0; }

// d/du [u Φ(u)] = Φ(u) + u φ(u).
double gelu_derivative(double u) {
    const double cdf = 0.5 * (1.0 + std::erf(u / std::sqrt(2.0)));
    const double density = std::exp(-0.5 * u * u) / std::sqrt(2.0 * pi);
    return cdf + u * density;
}

// d/du [½ u (1 + tanh(k (u + c u³)))], written as PyTorch's GeluBackward writes it.
double gelu_tanh_derivative(double u) {
    const double k = std::sqrt(2.0 / pi), c = 0.044715;
    const double t = std::tanh(k * (u + c * u * u * u));
    return 0.5 * (1.0 + t) + 0.5 * u * (1.0 - t * t) * k * (1.0 + 3.0 * c * u * u);
}

double derivative(double u, Activation activation) {
    switch (activation) {
        case Activation::relu: return relu_derivative(u);
        case Activation::gelu: return gelu_derivative(u);
        case Activation::gelu_tanh: return gelu_tanh_derivative(u);
    }
    throw std::logic_error("activation_backward: unknown Activation");
}

}  // namespace

Matrix activation_backward(const Matrix& preactivation, const Matrix& grad_hidden, Activation activation) {
    check_shapes("activation_backward", {{"preactivation", preactivation, "N,F"}, {"grad_hidden", grad_hidden, "N,F"}},
                 ZeroSizes::allowed);
    Matrix grad = Matrix::from_shape(preactivation.shape());
    for (std::size_t i = 0; i < grad.size(); ++i) {
        grad.data()[i] = grad_hidden.data()[i] * derivative(preactivation.data()[i], activation);
    }
    return grad;
}

FeedForwardGradients feed_forward_backward(const Matrix& x, const Matrix& linear1_weight, const Matrix& linear2_weight,
                                           const FeedForwardStep& forward, Activation activation,
                                           const Matrix& grad_output) {
    // x (N, D), W1 (F, D), W2 (D, F), u and h (N, F), dy (N, D) → dx (N, D), dW1 (F, D), db1 (F), dW2 (D, F), db2 (D)
    check_shapes("feed_forward_backward",
                 {{"x", x, "N,D"}, {"linear1_weight", linear1_weight, "F,D"}, {"linear2_weight", linear2_weight, "D,F"},
                  {"forward.hidden_preactivation", forward.hidden_preactivation, "N,F"},
                  {"forward.hidden", forward.hidden, "N,F"}, {"grad_output", grad_output, "N,D"}},
                 ZeroSizes::allowed);
    detail::require_finite("feed_forward_backward", "grad_output", grad_output, detail::upstream_gradient_advice);
    // Backwards through the steps of the forward, last first; training's dropout (its mask from the
    // forward) is the identity when it was off.
    const Matrix dropped_hidden = apply_dropout(forward.hidden_dropout, forward.hidden, "forward.hidden");
    const LinearGradients second = linear_backward(dropped_hidden, linear2_weight, grad_output);
    const Matrix grad_hidden = dropout_backward(forward.hidden_dropout, second.x);
    const Matrix grad_preactivation = activation_backward(forward.hidden_preactivation, grad_hidden, activation);
    LinearGradients first = linear_backward(x, linear1_weight, grad_preactivation);
    return {std::move(first.x), std::move(first.weight), std::move(first.bias), second.weight, second.bias};
}

}  // namespace attn
