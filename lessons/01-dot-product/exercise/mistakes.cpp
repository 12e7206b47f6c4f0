#include "01-dot-product/exercise/mistakes.hpp"

#include <algorithm>
#include <cmath>

namespace attn::mistakes {

namespace {

// e^x / Σ e^x over `rows` consecutive rows of `columns` values, without the maximum subtracted.
template <class Tensor>
Tensor unshifted(Tensor scores) {
    const std::size_t columns = scores.shape().back();
    for (std::size_t row = 0; columns > 0 && row < scores.size() / columns; ++row) {
        double* x = scores.data() + row * columns;
        double sum = 0.0;
        for (std::size_t j = 0; j < columns; ++j) sum += x[j] = std::exp(x[j]);  // the mistake: no − max
        for (std::size_t j = 0; j < columns; ++j) x[j] /= sum;
    }
    return scores;
}

}  // namespace

Matrix softmax_down_columns(const Matrix& scores) {
    const std::size_t B = scores.shape(0), S = scores.shape(1);
    Matrix weights = Matrix::from_shape({B, S});
    for (std::size_t s = 0; s < S; ++s) {
        double maximum = scores(0, s);
        for (std::size_t b = 0; b < B; ++b) maximum = std::max(maximum, scores(b, s));
        double sum = 0.0;
        for (std::size_t b = 0; b < B; ++b) sum += weights(b, s) = std::exp(scores(b, s) - maximum);
        for (std::size_t b = 0; b < B; ++b) weights(b, s) /= sum;
    }
    return weights;
}

Matrix softmax_without_max_subtraction(const Matrix& scores) { return unshifted(scores); }
Tensor3 softmax_without_max_subtraction(const Tensor3& scores) { return unshifted(scores); }
Tensor4 softmax_without_max_subtraction(const Tensor4& scores) { return unshifted(scores); }

Matrix weighted_sum(const Matrix& weights, const Tensor3& encoder_outputs) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    Matrix context = xt::zeros<double>({B, H});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t h = 0; h < H; ++h) context(b, h) += weights(b, s) * encoder_outputs(b, s, h);
    return context;
}

}  // namespace attn::mistakes
