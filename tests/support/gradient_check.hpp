// tests/support/gradient_check.hpp — checking a backward against central finite differences, and
// against PyTorch's autograd fixtures (tests/data/backward, tools/make_backward_fixtures.py).
//
// The loss every check differentiates is L = Σ output ∘ upstream (weighted_sum): its gradient
// with respect to the output is exactly `upstream`, so the backward under test is called with
// grad_output = upstream and its gradient of each input must equal ∂L/∂input measured by
// perturbing that input's elements one at a time:
//
//   ∂L/∂x_i ≈ (L(x + h e_i) − L(x − h e_i)) / 2h
//
// The step h = 1e-5, from the two errors of that quotient in double: truncation, h²/6 · L''' (the
// first term the symmetric difference does not cancel), about 2e-11 for the O(1) inputs of the
// small layers here; rounding, about ε · |L| / h with ε = 2.2e-16, about 1e-10 for |L| up to 10.
// Their sum is minimal near h = ε^(1/3) ≈ 6e-6; 1e-5 keeps both near 1e-10, a thousand times
// below the 1e-7 the checks demand. (A kink, ReLU's at 0, must be further than h from every
// pre-activation: the seeded inputs are.)
//
//   auto loss = [&] { return weighted_sum(attn::linear(x, W, b), upstream); };
//   auto grad = attn::linear_backward(x, W, upstream);
//   CHECK_GRADIENT("weight", W, loss, grad.weight);   // perturbs W in place, restores it
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::testing {

constexpr double finite_difference_step = 1e-5;

/// The largest |numerical − analytic| over a tensor, divided by its largest |analytic| (floored
/// at 1e-3, so that a gradient that is zero everywhere is held to 1e-10 absolutely), must be below this.
constexpr double finite_difference_tolerance = 1e-7;

/// Σ output ∘ upstream: a scalar loss whose gradient with respect to output is upstream.
template <class Tensor>
double weighted_sum(const Tensor& output, const Tensor& upstream) {
    REQUIRE(output.shape() == upstream.shape());
    double sum = 0.0;
    for (std::size_t i = 0; i < output.size(); ++i) sum += output.data()[i] * upstream.data()[i];
    return sum;
}

/// ∂loss/∂values by central differences: each of the `shape`'s values perturbed by ±h in place,
/// `loss` evaluated (it must read them), and restored.
DynamicTensor central_differences(double* values, const std::vector<std::size_t>& shape,
                                  const std::function<double()>& loss);

template <class Tensor>
DynamicTensor central_differences(Tensor& x, const std::function<double()>& loss) {
    return central_differences(x.data(), std::vector<std::size_t>(x.shape().begin(), x.shape().end()), loss);
}

struct GradientComparison {
    bool passed;
    std::string report;  // the name, expected (numerical), got (analytic), max |Δ| and the relative error
};

GradientComparison compare_with_differences(const std::string& name, const DynamicTensor& numerical,
                                            const DynamicTensor& analytic);

/// One case of tests/data/backward: its inputs, options and PyTorch's gradients.
struct BackwardCase {
    std::filesystem::path folder;
    std::map<std::string, std::string> options;

    bool has(const std::string& name) const;
    DynamicTensor input(const std::string& name) const;           // in/<name>.npy
    DynamicTensor autograd(const std::string& name) const;        // expected/grad_<name>.npy
    bool option(const std::string& key) const;                    // "1" → true
};

/// The cases tests/data/backward/<module>-*, sorted by name; at least one (REQUIREd).
std::vector<BackwardCase> backward_cases(const std::string& module);

/// PyTorch's gradients in double agree with the library's to this, absolute and relative.
constexpr double autograd_tolerance = 1e-10;

}  // namespace attn::testing

/// Perturbs `tensor` (named `name`) element by element, measures ∂loss/∂tensor and compares it
/// with `analytic`; on failure prints expected, got and the max difference.
#define CHECK_GRADIENT(name, tensor, loss, analytic)                                                                  \
    do {                                                                                                             \
        const auto attn_comparison_ = ::attn::testing::compare_with_differences(                                     \
            (name), ::attn::testing::central_differences((tensor), (loss)), ::attn::DynamicTensor(analytic));        \
        INFO(attn_comparison_.report);                                                                               \
        CHECK(attn_comparison_.passed);                                                                              \
    } while (false)

/// The library's gradient of input `name` against PyTorch's, in the case's folder.
#define CHECK_AUTOGRAD(fixture, name, got)                                                                           \
    do {                                                                                                             \
        INFO((fixture).folder.filename().string() + ": grad_" + (name));                                             \
        CHECK_TENSOR_CLOSE((fixture).autograd(name), (got), ::attn::testing::autograd_tolerance,                     \
                           ::attn::testing::autograd_tolerance);                                                     \
    } while (false)
