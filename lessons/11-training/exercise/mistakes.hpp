// lessons/11-training/exercise/mistakes.hpp — lesson 11's classic mistakes (teacher forcing, the
// smoothed cross-entropy, Adam and the warm-up schedule, the training loop), made on purpose.
//
//   teacher forcing: tgt (B, L) → decoder_input, targets (B, L − 1)
//   loss: logits (N, V), targets (N), padding, ε → q (N, V), loss, grad_logits (N, V)
//   Adam: θ, g (P), state → θ, m, v (P);  training: θ (P), K quadratic batches → rates (K),
//   gradients used (K, P), θ after each update (K, P)
//
// The right values come from the library's PyTorch-tested functions (attn::cross_entropy and
// its backward, attn::adam_step, attn::noam_learning_rate); each slip changes one step and
// recomputes the steps after it.
//
//   attn::mistakes::train_with(theta, batches, schedule, TrainingSlip::gradients_not_zeroed).parameters;
#pragma once

#include <cstdint>
#include <vector>

#include "attn/adam.hpp"
#include "attn/tensor.hpp"

namespace attn::mistakes {

/// Teacher forcing's targets without the shift: tgt[:, :-1], the decoder's own input (B, L − 1).
Matrix unshifted_targets(const Matrix& tgt);

/// Every step of the smoothed cross-entropy.
struct SmoothedLossSteps {
    Matrix target_distribution;
    double loss;
    Matrix grad_logits;
};

/// The smoothed cross-entropy (padding class `padding`, ε = `smoothing`): right (the library's), or
/// with ε spread as ε / (V − 1) over every class but the target, the padding class included.
SmoothedLossSteps smoothed_loss_with(const Matrix& logits, const std::vector<std::int64_t>& targets,
                                     std::int64_t padding, double smoothing, bool smoothing_on_padding);

/// One slip of Adam, the schedule or the training loop (or none).
enum class TrainingSlip {
    none,
    bias_correction_missing,  // θ ← θ − lr · m / (√v + ε): m and v not divided by 1 − βᵗ
    warmup_branch_inverted,   // the schedule's max(step^(−1/2), step · warmup^(−3/2)) instead of its min
    gradients_not_zeroed,     // the gradient buffer never cleared: update k reads the sum of batches 1 … k
};

/// The noam rate at `step` (0 counted as 1), right or with the branch inverted.
double noam_with(std::size_t step, std::size_t d_model, double factor, std::size_t warmup, TrainingSlip slip);

/// One Adam update (β 0.9, 0.98, ε 1e-9) of `parameters` in place, right or without bias correction.
void adam_update_with(std::vector<double>& parameters, const std::vector<double>& gradients, AdamState& state,
                      double learning_rate, TrainingSlip slip);

/// A toy training problem: batch k's loss is ½ Σ_i curvature(k, i) · (θ_i − centre(k, i))², whose
/// gradient is curvature(k, i) · (θ_i − centre(k, i)).
struct QuadraticBatches {
    Matrix centres;     // (K, P)
    Matrix curvatures;  // (K, P)
};

/// The learning-rate schedule's arguments.
struct NoamSchedule {
    std::size_t d_model;
    double factor;
    std::size_t warmup;
};

/// What the training loop records, one row per update.
struct TrainingRecord {
    Vector learning_rates;  // (K)
    Matrix gradients_used;  // (K, P)
    Matrix parameters;      // (K, P)
};

/// K updates from `initial` (P) and a fresh Adam state: update k adds batch k's gradient to the
/// buffer (cleared first unless the slip says otherwise), then takes an Adam step at the rate
/// noam(k − 1).
TrainingRecord train_with(const Vector& initial, const QuadraticBatches& batches, const NoamSchedule& schedule,
                          TrainingSlip slip);

}  // namespace attn::mistakes
