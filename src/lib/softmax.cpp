#include "attn/softmax.hpp"

#include <cmath>
#include <limits>

namespace attn {

void softmax_rows_in_place(double* data, std::size_t rows, std::size_t columns) {
    for (std::size_t row = 0; row < rows; ++row) {
        double* x = data + row * columns;
        // Pass 1: the row maximum, subtracted so that exp never overflows.
        double maximum = -std::numeric_limits<double>::infinity();
        bool has_nan = false;
        for (std::size_t j = 0; j < columns; ++j) {
            if (std::isnan(x[j])) has_nan = true;
            if (x[j] > maximum) maximum = x[j];
        }
        if (has_nan) {
            for (std::size_t j = 0; j < columns; ++j) x[j] = std::numeric_limits<double>::quiet_NaN();
            continue;
        }
        if (maximum == -std::numeric_limits<double>::infinity()) {
            // Every key is masked: the policy is zero weight everywhere (see the header).
            for (std::size_t j = 0; j < columns; ++j) x[j] = 0.0;
            continue;
        }
        if (maximum == std::numeric_limits<double>::infinity()) {
            // exp(inf - inf) would be NaN: the +∞ entries share all the weight.
            std::size_t infinite = 0;
            for (std::size_t j = 0; j < columns; ++j) infinite += (x[j] == maximum);
            for (std::size_t j = 0; j < columns; ++j) x[j] = (x[j] == maximum) ? 1.0 / double(infinite) : 0.0;
            continue;
        }
        // Pass 2: exponentials and their sum.
        double sum = 0.0;
        for (std::size_t j = 0; j < columns; ++j) {
            x[j] = std::exp(x[j] - maximum);
            sum += x[j];
        }
        // Pass 3: normalise. sum >= 1 because the maximum contributes exp(0) = 1.
        const double inverse = 1.0 / sum;
        for (std::size_t j = 0; j < columns; ++j) x[j] *= inverse;
    }
}

namespace {

template <class Container>
Container softmax_copy(const Container& scores) {
    Container result = scores;
    const std::size_t columns = result.dimension() == 0 ? 1 : result.shape().back();
    const std::size_t rows = columns == 0 ? 0 : result.size() / columns;
    softmax_rows_in_place(result.data(), rows, columns);
    return result;
}

}  // namespace

Vector softmax_last_axis(const Vector& scores) { return softmax_copy(scores); }
Matrix softmax_last_axis(const Matrix& scores) { return softmax_copy(scores); }
Tensor3 softmax_last_axis(const Tensor3& scores) { return softmax_copy(scores); }
Tensor4 softmax_last_axis(const Tensor4& scores) { return softmax_copy(scores); }

}  // namespace attn
