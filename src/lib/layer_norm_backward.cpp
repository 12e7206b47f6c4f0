// nn.LayerNorm backwards, row by row (attn/layer_norm_backward.hpp).
#include "attn/layer_norm_backward.hpp"

#include <cmath>

#include <xtensor/xbuilder.hpp>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

LayerNormGradients layer_norm_backward(const LayerNormStep& forward, const Vector& weight, const Matrix& grad_output,
                                       double eps) {
    // x̂ (N, D), σ² (N), γ (D), dy (N, D) → dx (N, D), dγ (D), dβ (D)
    const std::string f = "layer_norm_backward";
    check_shapes(f, {{"forward.normalized", forward.normalized, "N,D"}, {"forward.variance", forward.variance, "N"},
                     {"weight", weight, "D"}, {"grad_output", grad_output, "N,D"}},
                 ZeroSizes::allowed);
    if (!(eps > 0.0) || !std::isfinite(eps)) throw InputError(f + ": eps must be a positive number, got " + std::to_string(eps));
    detail::require_finite(f, "grad_output", grad_output, detail::upstream_gradient_advice);
    const std::size_t N = grad_output.shape(0), D = grad_output.shape(1);
    LayerNormGradients grad;
    grad.x = Matrix::from_shape({N, D});
    grad.weight = xt::zeros<double>({D});
    grad.bias = xt::zeros<double>({D});
    for (std::size_t n = 0; n < N; ++n) {
        const double* dy = grad_output.data() + n * D;
        const double* x_hat = forward.normalized.data() + n * D;
        const double r = 1.0 / std::sqrt(forward.variance(n) + eps);
        // The two row means: of dx̂ (through μ) and of dx̂ ∘ x̂ (through σ²).
        double mean_grad = 0.0, mean_grad_x_hat = 0.0;
        for (std::size_t d = 0; d < D; ++d) {
            const double grad_x_hat = dy[d] * weight(d);
            mean_grad += grad_x_hat;
            mean_grad_x_hat += grad_x_hat * x_hat[d];
            grad.weight(d) += dy[d] * x_hat[d];
            grad.bias(d) += dy[d];
        }
        mean_grad /= double(D);
        mean_grad_x_hat /= double(D);
        for (std::size_t d = 0; d < D; ++d) {
            grad.x(n, d) = r * (dy[d] * weight(d) - mean_grad - x_hat[d] * mean_grad_x_hat);
        }
    }
    return grad;
}

}  // namespace attn
