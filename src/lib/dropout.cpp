// Inverted dropout (attn/dropout.hpp): one seeded draw per value, the kept values scaled by 1 / (1 − p).
#include "attn/dropout.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

Dropout::Dropout(double p, std::mt19937& generator) : p_(p), generator_(&generator) {
    if (!(p >= 0.0 && p <= 1.0)) {
        throw InputError("dropout: the probability p must be a number from 0 to 1, got " + std::to_string(p));
    }
}

double Dropout::next_unit() const { return (double((*generator_)()) + 0.5) / 4294967296.0; }

namespace {

// x's shape, every value kept with probability 1 − p: u < 1 − p. p = 1 draws nothing (u < 0 never holds).
template <class Tensor>
DropoutMask<Tensor> draw_mask(const typename Tensor::shape_type& shape, const Dropout& dropout) {
    DropoutMask<Tensor> mask;
    mask.kept = Tensor::from_shape(shape);
    if (dropout.p() >= 1.0) {
        mask.kept.fill(0.0);
        mask.scale = 0.0;
        return mask;
    }
    const double keep = 1.0 - dropout.p();
    for (double& kept : mask.kept) kept = dropout.next_unit() < keep ? 1.0 : 0.0;
    mask.scale = 1.0 / keep;
    return mask;
}

template <class Tensor>
Tensor apply_mask(const DropoutMask<Tensor>& mask, const Tensor& x, const char* name) {
    if (mask.identity()) return x;
    if (x.shape() != mask.kept.shape()) {
        throw ShapeError(std::string("dropout: ") + name + " has shape " + shape_string(x.shape()) +
                         " but the mask was drawn for " + shape_string(mask.kept.shape()));
    }
    Tensor y = Tensor::from_shape(x.shape());
    for (std::size_t i = 0; i < y.size(); ++i) {
        // A dropped value is 0 even when x is not finite (0 · ∞ would be NaN).
        y.data()[i] = mask.kept.data()[i] != 0.0 ? x.data()[i] * mask.scale : 0.0;
    }
    return y;
}

template <class Tensor>
DropoutStep<Tensor> dropout_forward(const Tensor& x, const Dropout& dropout) {
    DropoutStep<Tensor> step;
    if (!dropout.active()) {
        step.output = x;  // off or p = 0: the identity, nothing drawn
        return step;
    }
    step.mask = draw_mask<Tensor>(x.shape(), dropout);
    step.output = apply_mask(step.mask, x, "x");
    return step;
}

}  // namespace

DropoutStep<Matrix> dropout(const Matrix& x, const Dropout& d) { return dropout_forward(x, d); }
DropoutStep<Tensor3> dropout(const Tensor3& x, const Dropout& d) { return dropout_forward(x, d); }
DropoutStep<Tensor4> dropout(const Tensor4& x, const Dropout& d) { return dropout_forward(x, d); }

Matrix apply_dropout(const DropoutMask<Matrix>& mask, const Matrix& x, const char* name) {
    return apply_mask(mask, x, name);
}
Tensor3 apply_dropout(const DropoutMask<Tensor3>& mask, const Tensor3& x, const char* name) {
    return apply_mask(mask, x, name);
}
Tensor4 apply_dropout(const DropoutMask<Tensor4>& mask, const Tensor4& x, const char* name) {
    return apply_mask(mask, x, name);
}

}  // namespace attn
