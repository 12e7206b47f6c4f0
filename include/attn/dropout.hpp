// attn/dropout.hpp — inverted dropout, as torch.nn.Dropout computes it in training mode (lesson 11).
//
// Why: a network that can rely on any one activation learns to; dropout removes each value with
// probability p at every training step, so that none can be relied on. The kept values are
// multiplied by 1 / (1 − p) so that every value's expectation is what it was: evaluation then
// simply does nothing (PyTorch's model.eval()), with no rescaling of its own.
//
//   kept_i ~ Bernoulli(1 − p)                 1 kept, 0 dropped, one independent draw per value
//   y_i = kept_i · x_i / (1 − p)              forward
//   dx_i = kept_i · dy_i / (1 − p)            backward: the same mask, the same factor
//
// p = 0 is the identity and draws nothing; p = 1 drops everything (y = 0, as PyTorch). The masks
// come from a generator the caller seeds, drawn with the recipe of the lessons' seeded tensors so
// that a seed gives the same masks with every standard library: each raw 32-bit draw r of
// std::mt19937 (whose output the C++ standard fixes) becomes u = (r + 0.5) / 2³², and the value is
// kept when u < 1 − p; one draw per value, row-major. (PyTorch's own generator differs: its masks
// are not these, which is why comparisons with PyTorch run with dropout 0.)
//
// Shapes: any tensor x (Matrix, Tensor3, Tensor4) → output and mask.kept of x's shape
//
//   std::mt19937 generator(7);
//   attn::Dropout training(0.1, generator);                 // p = 0.1, masks from `generator`
//   auto step = attn::dropout(x, training);                 // step.output, step.mask
//   auto dx = attn::dropout_backward(step.mask, dy);        // dy ∘ kept / (1 − p)
#pragma once

#include <random>

#include "attn/tensor.hpp"

namespace attn {

/// A dropout that is on (a probability and the generator its masks come from) or off (the
/// default: evaluation, the identity, nothing drawn). Copies share the generator, so a model's
/// layers given copies of one Dropout draw their masks one after the other from it.
class Dropout {
public:
    Dropout() = default;

    /// InputError unless 0 ≤ p ≤ 1 (NaN included). p = 0 is off.
    Dropout(double p, std::mt19937& generator);

    double p() const { return p_; }
    /// True when masks are drawn: p > 0 and a generator.
    bool active() const { return p_ > 0.0 && generator_ != nullptr; }
    /// The next uniform draw u in (0, 1): (r + 0.5) / 2³². Only for an active dropout.
    double next_unit() const;

private:
    double p_ = 0.0;
    std::mt19937* generator_ = nullptr;
};

/// Which values one dropout kept, and the factor the kept ones were multiplied by.
template <class Tensor>
struct DropoutMask {
    Tensor kept;         // 1 kept, 0 dropped, x's shape; empty (no values) when the dropout was off
    double scale = 1.0;  // 1 / (1 − p); 0 when p = 1 (nothing is kept)

    /// True when nothing was drawn: the dropout was off and is the identity.
    bool identity() const { return kept.size() == 0; }
};

template <class Tensor>
struct DropoutStep {
    Tensor output;              // x ∘ kept · scale, or x itself when the dropout is off
    DropoutMask<Tensor> mask;
};

/// The forward: a fresh mask drawn from `dropout` (nothing drawn when it is off) and applied to x.
DropoutStep<Matrix> dropout(const Matrix& x, const Dropout& dropout);
DropoutStep<Tensor3> dropout(const Tensor3& x, const Dropout& dropout);
DropoutStep<Tensor4> dropout(const Tensor4& x, const Dropout& dropout);

/// A mask already drawn, applied to x: x ∘ kept · scale (x itself for an identity mask); a
/// dropped value is 0 whatever x holds. ShapeError naming `name` and both shapes when x's shape
/// is not the mask's.
Matrix apply_dropout(const DropoutMask<Matrix>& mask, const Matrix& x, const char* name = "x");
Tensor3 apply_dropout(const DropoutMask<Tensor3>& mask, const Tensor3& x, const char* name = "x");
Tensor4 apply_dropout(const DropoutMask<Tensor4>& mask, const Tensor4& x, const char* name = "x");

/// The backward: dx = dy ∘ kept · scale, with the forward's mask. ShapeError naming grad_output
/// when its shape is not the mask's.
template <class Tensor>
Tensor dropout_backward(const DropoutMask<Tensor>& mask, const Tensor& grad_output) {
    return apply_dropout(mask, grad_output, "grad_output");
}

}  // namespace attn
