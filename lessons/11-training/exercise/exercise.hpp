// Exercise 11 — the functions you write (in lessons/11-training/exercise/exercise.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "attn/tensor.hpp"        // attn::Matrix
#include "not_implemented.hpp"    // NotImplementedYet, what the stub throws

namespace exercise {

/// Token ids, one sequence per row: (B, L).
using Tokens = std::vector<std::vector<int>>;

/// What teacher forcing hands the decoder and the loss.
struct TeacherForcing {
    Tokens decoder_input;  // (B, L − 1) what the decoder reads at each position
    Tokens targets;        // (B, L − 1) the symbol it is scored on at the same position
};

/// Teacher forcing from the target sequences tgt (B, L), L ≥ 2: the decoder reads every symbol
/// but the last and, at each position, is scored on the symbol that follows the one it read.
TeacherForcing teacher_forcing(const Tokens& tgt);

/// What smoothed_cross_entropy returns.
struct SmoothedLoss {
    attn::Matrix target_distribution;  // (N, V) q: the distribution each row is scored against
    double loss;                       // the mean over the counted rows of KL(q ‖ softmax(logits))
    attn::Matrix grad_logits;          // (N, V) ∂loss/∂logits
};

/// The cross-entropy of next-token prediction with label smoothing, as the Annotated
/// Transformer's LabelSmoothing computes it: for each row n,
///   q[n, c] = 1 − ε on the target c = targets[n], 0 on the padding class, ε / (V − 2) on every
///   other class; a row whose target is the padding class is not counted (its q is all 0).
///   loss = Σ over the counted rows of Σ_c q[n, c] · (log q[n, c] − log p[n, c]), divided by the
///   number of counted rows (0 · log 0 = 0), where p = softmax(logits[n, :]).
///   grad_logits[n, :] = (p[n, :] − q[n, :]) / counted on a counted row, 0 on the others.
///   logits (N, V); targets (N), each in 0 … V − 1; padding in 0 … V − 1; smoothing ε in [0, 1).
///   At least one target is not padding. Logits may be in the hundreds.
SmoothedLoss smoothed_cross_entropy(const attn::Matrix& logits, const std::vector<int>& targets, int padding,
                                    double smoothing);

/// The Transformer's warm-up schedule ("noam"):
///   factor · d_model^(−1/2) · min(step^(−1/2), step · warmup^(−3/2)),   step 0 counted as 1.
double noam_rate(std::size_t step, std::size_t d_model, double factor, std::size_t warmup);

/// What Adam remembers between updates.
struct AdamMemory {
    std::size_t steps_taken = 0;  // updates done so far: the next one is update t = steps_taken + 1
    std::vector<double> m, v;     // the running means of g and g²: empty before the first update
                                  // (read them as zeros), then one per parameter
};

/// One Adam update with bias correction, β1 = 0.9, β2 = 0.98, ε = 1e-9 (the Annotated
/// Transformer's), as torch.optim.Adam computes it: for each parameter, with t = steps_taken + 1,
///   m ← β1 m + (1 − β1) g;   v ← β2 v + (1 − β2) g²
///   θ ← θ − learning_rate · (m / (1 − β1ᵗ)) / (√(v / (1 − β2ᵗ)) + ε)
/// parameters θ and gradients g have the same size P; memory advances by one update.
void adam_update(std::vector<double>& parameters, const std::vector<double>& gradients, AdamMemory& memory,
                 double learning_rate);

/// One batch's loss as the training loop sees it: backward(parameters, gradients) ADDS
/// ∂loss/∂parameters, at the current parameters, to the buffer `gradients` (size P) — it adds, as
/// PyTorch's loss.backward() adds into each parameter's .grad.
using Backward = std::function<void(const std::vector<double>& parameters, std::vector<double>& gradients)>;

/// The learning-rate schedule of a training run (noam_rate's arguments besides the step).
struct Schedule {
    std::size_t d_model;
    double factor;
    std::size_t warmup;
};

/// What train records, one entry per update k = 1 … K.
struct TrainingLog {
    std::vector<double> learning_rates;               // (K) the rate update k used
    std::vector<std::vector<double>> gradients_used;  // (K, P) the gradient buffer when update k read it
    std::vector<std::vector<double>> parameters;      // (K, P) the parameters after update k
};

/// The training loop: K = batches.size() updates of `parameters` (P) from a fresh AdamMemory.
/// Update k runs batches[k − 1]'s backward at the current parameters into the gradient buffer,
/// then adam_update at the rate noam_rate(k − 1, …) — PyTorch's LambdaLR gives update k the
/// schedule's value after k − 1 scheduler steps, so updates 1 and 2 both use the rate of step 1.
TrainingLog train(std::vector<double> parameters, const std::vector<Backward>& batches, const Schedule& schedule);

}  // namespace exercise
