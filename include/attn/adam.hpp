// attn/adam.hpp — the Adam optimiser, as torch.optim.Adam computes it (lesson 11: training).
//
// Why Adam: each parameter gets its own step size. It keeps two running means per parameter —
// m of the gradient (the direction) and v of its square (how large the gradients have been) —
// and moves the parameter by m / √v, so a parameter whose gradients are small still moves.
// Both means start at 0 and are therefore too small in the first steps; dividing by 1 − βᵗ
// ("bias correction") undoes that. One step t = 1, 2, … with gradient g of parameter θ:
//
//   g  ← g + weight_decay · θ                 (only when weight_decay ≠ 0: L2, not AdamW)
//   m  ← β1 · m + (1 − β1) · g
//   v  ← β2 · v + (1 − β2) · g²
//   θ  ← θ − step_size · m / denom,   step_size = lr / (1 − β1ᵗ),   denom = √v / √(1 − β2ᵗ) + ε
//
// That is PyTorch 1.13's form (torch/optim/adam.py, _single_tensor_adam): ε is added *after*
// √v is divided by √(1 − β2ᵗ). The paper's form, m̂ / (√v̂ + ε) with m̂ = m / (1 − β1ᵗ) and
// v̂ = v / (1 − β2ᵗ), is the same; the "efficient" form of the paper's section 2,
// lr·√(1 − β2ᵗ)/(1 − β1ᵗ) · m / (√v + ε), puts ε elsewhere and differs when v is near 0.
// The Annotated Transformer's copy task uses β = (0.9, 0.98), ε = 1e-9.
//
// A whole model's parameters as one flat buffer: a model has many tensors (embeddings, every
// layer's weights); Adam treats every number alike, so it works on flat vectors of double.
// ParameterList lists the tensors' buffers in a fixed order (pointers, not copies), so that
//
//   attn::ParameterList parameters, gradients;
//   parameters.add(weights.src_embedding);  gradients.add(grads.src_embedding);   // … every tensor, same order
//   attn::adam_step(parameters, gradients, state, options);     // updates weights in place
//
// or, with plain vectors: std::vector<double> flat = parameters.gather(); adam_step(flat, …);
// parameters.scatter(flat). The state (step and both moments) belongs to the flat order: keep the
// order of add() the same from step to step. Gradients are not accumulated here: give each step
// the gradient of that step's loss (PyTorch's zero_grad between steps).
//
//   std::vector<double> theta = {1.0}, g = {0.5};
//   attn::AdamState state;
//   attn::adam_step(theta, g, state, {0.1});   // m = 0.05, v = 0.00025, θ = 1 − 0.1 · 0.5/(0.5 + 1e-8) ≈ 0.9
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

struct AdamOptions {
    double learning_rate = 1e-3;
    double beta1 = 0.9, beta2 = 0.999;  // each in [0, 1)
    double eps = 1e-8;                  // ≥ 0: keeps the step finite where v = 0
    double weight_decay = 0;            // ≥ 0: torch.optim.Adam's L2 term, added to the gradient
};

/// What Adam remembers between steps, for one flat buffer. A new state (step 0, empty moments)
/// is sized by the first step; from then on the buffer's size must not change.
struct AdamState {
    std::size_t step = 0;               // steps taken: the t of the next step is step + 1
    std::vector<double> first_moment;   // m, one per parameter
    std::vector<double> second_moment;  // v, one per parameter
};

/// The buffers of a model's tensors in one fixed order: the flat view Adam works on. Holds
/// pointers: the tensors must outlive the list and must not be resized while it is in use.
class ParameterList {
public:
    /// Any contiguous container of double with data() and size(): an xtensor Matrix or Vector, a std::vector.
    template <class Tensor>
    void add(Tensor& tensor) {
        add(tensor.data(), tensor.size());
    }
    void add(double* values, std::size_t count);

    std::size_t tensors() const { return buffers_.size(); }
    std::size_t size() const { return size_; }  // the number of doubles in all the buffers

    /// The buffers one after another, in the order they were added.
    std::vector<double> gather() const;
    /// The inverse of gather: flat's values back into the buffers. Throws InputError when flat's
    /// size is not size().
    void scatter(const std::vector<double>& flat) const;

    struct Buffer {
        double* values;
        std::size_t count;
    };
    const std::vector<Buffer>& buffers() const { return buffers_; }

private:
    std::vector<Buffer> buffers_;
    std::size_t size_ = 0;
};

/// One Adam step on a flat buffer: parameters updated in place, state advanced. Throws
/// InputError — before changing anything — when gradients' size differs from parameters', the
/// state's moments are sized for another buffer, an option is out of its range (learning_rate
/// < 0, β outside [0, 1), eps < 0, weight_decay < 0, or any not finite), or a gradient is NaN or
/// ±∞ (named with its index).
void adam_step(std::vector<double>& parameters, const std::vector<double>& gradients, AdamState& state,
               const AdamOptions& options);

/// The same step on a model's tensors in place: gradients must list tensors of the same sizes
/// in the same order as parameters (InputError naming the first that differs).
void adam_step(ParameterList& parameters, const ParameterList& gradients, AdamState& state, const AdamOptions& options);

}  // namespace attn
