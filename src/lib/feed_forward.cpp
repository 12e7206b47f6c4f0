#include "attn/feed_forward.hpp"

#include <cmath>

#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/shape.hpp"

namespace attn {

Activation parse_activation(const std::string& name) {
    if (name == "relu") return Activation::relu;
    if (name == "gelu") return Activation::gelu;
    throw InputError("unknown activation '" + name + "'; expected relu or gelu");
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

FeedForwardStep feed_forward(const Matrix& x, const Matrix& linear1_weight, const Vector& linear1_bias,
                             const Matrix& linear2_weight, const Vector& linear2_bias, Activation activation) {
    check_shapes("feed_forward", {{"x", x, "N,D"}, {"linear1_weight", linear1_weight, "F,D"}, {"linear1_bias", linear1_bias, "F"},
                                  {"linear2_weight", linear2_weight, "D,F"}, {"linear2_bias", linear2_bias, "D"}},
                 ZeroSizes::allowed);
    FeedForwardStep step;
    step.hidden_preactivation = linear(x, linear1_weight, linear1_bias, "linear1_weight");  // x W1ᵀ + b1   (N, F)
    step.hidden = activation == Activation::relu ? relu(step.hidden_preactivation) : gelu(step.hidden_preactivation);
    step.output = linear(step.hidden, linear2_weight, linear2_bias, "linear2_weight");     // h W2ᵀ + b2   (N, D)
    return step;
}

}  // namespace attn
