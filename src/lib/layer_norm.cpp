#include "attn/layer_norm.hpp"

#include <cmath>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

enum class Variant { pytorch, annotated };

void check_arguments(const char* function, const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    const std::size_t D = x.shape(1);
    check_shapes(function, {{"x", x, "N,D"}, {"weight", weight, "D"}, {"bias", bias, "D"}}, ZeroSizes::allowed);
    if (!(eps > 0.0) || !std::isfinite(eps)) {
        throw InputError(std::string(function) + ": eps must be a positive number, got " + std::to_string(eps));
    }
    if (D == 0) throw ShapeError(std::string(function) + ": x has shape " + shape_string(x.shape()) + "; D must be at least 1");
}

LayerNormStep normalize(const Matrix& x, const Vector& weight, const Vector& bias, double eps, Variant variant) {
    const std::size_t N = x.shape(0), D = x.shape(1);
    LayerNormStep step;
    step.mean = Vector::from_shape({N});
    step.variance = Vector::from_shape({N});
    step.normalized = Matrix::from_shape({N, D});
    step.output = Matrix::from_shape({N, D});
    for (std::size_t n = 0; n < N; ++n) {
        const double* row = x.data() + n * D;
        // Pass 1: the mean. Pass 2: the squared deviations from it (two passes are more accurate
        // than E[x²] − E[x]², which cancels badly when the mean is large).
        double sum = 0.0;
        for (std::size_t d = 0; d < D; ++d) sum += row[d];
        const double mean = sum / double(D);
        double squares = 0.0;
        for (std::size_t d = 0; d < D; ++d) squares += (row[d] - mean) * (row[d] - mean);
        double scale;
        if (variant == Variant::pytorch) {
            step.variance(n) = squares / double(D);
            scale = std::sqrt(step.variance(n) + eps);
        } else {
            step.variance(n) = squares / double(D - 1);
            scale = std::sqrt(step.variance(n)) + eps;
        }
        step.mean(n) = mean;
        // Pass 3: normalise, then the learned per-feature scale and shift.
        for (std::size_t d = 0; d < D; ++d) {
            const double normalized = (row[d] - mean) / scale;
            step.normalized(n, d) = normalized;
            step.output(n, d) = normalized * weight(d) + bias(d);
        }
    }
    return step;
}

}  // namespace

LayerNormStep layer_norm(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    check_arguments("layer_norm", x, weight, bias, eps);
    return normalize(x, weight, bias, eps, Variant::pytorch);
}

LayerNormStep annotated_layer_norm(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    check_arguments("annotated_layer_norm", x, weight, bias, eps);
    if (x.shape(1) < 2) {
        throw ShapeError("annotated_layer_norm: x has shape " + shape_string(x.shape()) +
                         "; the unbiased standard deviation needs D ≥ 2");
    }
    return normalize(x, weight, bias, eps, Variant::annotated);
}

Tensor3 layer_norm(const Tensor3& x, const Vector& weight, const Vector& bias, double eps) {
    // Every position of every sequence is one row: normalise (B·T, D) as a matrix.
    return positions_of(layer_norm(rows_of(x), weight, bias, eps).output, x.shape(0), x.shape(1));
}

}  // namespace attn
