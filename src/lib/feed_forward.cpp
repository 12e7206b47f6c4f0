#include "attn/feed_forward.hpp"

#include <cmath>
#include <stdexcept>

#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/shape.hpp"

namespace attn {

Activation parse_activation(const std::string& name) {
    if (name == "relu") return Activation::relu;
    if (name == "gelu") return Activation::gelu;
    if (name == "gelu-tanh") return Activation::gelu_tanh;
    throw InputError("unknown activation '" + name + "'; expected relu, gelu (the exact erf form) or gelu-tanh "
                     "(PyTorch's approximate=\"tanh\")");
}

Matrix relu(const Matrix& x) {
    Matrix y = x;
    for (double& value : y) value = value > 0.0 ? value : 0.0;
    return y;
}

Matrix gelu(const Matrix& x) {
    Matrix y = x;
    for (double& value : y) value = 0.5 * value * (1.0 + std::erf(value / std::sqrt(2.0)));
    return y;
}

Matrix gelu_tanh(const Matrix& x) {
    const double k = std::sqrt(2.0 / 3.14159265358979323846);  // √(2/π)
    Matrix y = x;
    for (double& value : y) value = 0.5 * value * (1.0 + std::tanh(k * (value + 0.044715 * value * value * value)));
    return y;
}

Matrix activate(const Matrix& x, Activation activation) {
    switch (activation) {
        case Activation::relu: return relu(x);
        case Activation::gelu: return gelu(x);
        case Activation::gelu_tanh: return gelu_tanh(x);
    }
    throw std::logic_error("activate: unknown Activation");
}

FeedForwardStep feed_forward(const Matrix& x, const Matrix& linear1_weight, const Vector& linear1_bias,
                             const Matrix& linear2_weight, const Vector& linear2_bias, Activation activation,
                             const Dropout& dropout) {
    check_shapes("feed_forward", {{"x", x, "N,D"}, {"linear1_weight", linear1_weight, "F,D"}, {"linear1_bias", linear1_bias, "F"},
                                  {"linear2_weight", linear2_weight, "D,F"}, {"linear2_bias", linear2_bias, "D"}},
                 ZeroSizes::allowed);
    FeedForwardStep step;
    step.hidden_preactivation = linear(x, linear1_weight, linear1_bias, "linear1_weight");  // x W1ᵀ + b1   (N, F)
    step.hidden = activate(step.hidden_preactivation, activation);
    DropoutStep<Matrix> dropped = attn::dropout(step.hidden, dropout);                      // training only
    step.hidden_dropout = std::move(dropped.mask);
    step.output = linear(dropped.output, linear2_weight, linear2_bias, "linear2_weight");   // h W2ᵀ + b2   (N, D)
    return step;
}

}  // namespace attn
