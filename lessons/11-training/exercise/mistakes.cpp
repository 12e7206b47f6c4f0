#include "11-training/exercise/mistakes.hpp"

#include <algorithm>
#include <cmath>

#include "attn/cross_entropy.hpp"
#include "attn/learning_rate.hpp"

namespace attn::mistakes {

namespace {

// The Annotated Transformer's Adam: β = (0.9, 0.98), ε = 1e-9.
constexpr double beta1 = 0.9, beta2 = 0.98, adam_eps = 1e-9;

// The smoothed loss with ε / (V − 1) on every class but the target (the padding class too), padding
// rows still skipped: q, the KL divergence averaged over the counted rows, and (p − q) / counted.
SmoothedLossSteps smoothing_spread_over_padding(const Matrix& logits, const std::vector<std::int64_t>& targets,
                                                std::int64_t padding, double smoothing) {
    const std::size_t N = logits.shape(0), V = logits.shape(1);
    // The right log-probabilities: the slip is in q only.
    CrossEntropyOptions options;
    options.padding_index = padding;
    const Matrix log_p = cross_entropy(logits, targets, options).log_probabilities;
    SmoothedLossSteps steps{Matrix::from_shape({N, V}), 0.0, Matrix::from_shape({N, V})};
    std::size_t counted = 0;
    for (std::size_t n = 0; n < N; ++n) counted += targets[n] != padding;
    for (std::size_t n = 0; n < N; ++n) {
        for (std::size_t c = 0; c < V; ++c) {
            const bool counts = targets[n] != padding;
            const double q = !counts ? 0.0 : std::int64_t(c) == targets[n] ? 1.0 - smoothing : smoothing / double(V - 1);
            steps.target_distribution(n, c) = q;
            if (q > 0) steps.loss += q * (std::log(q) - log_p(n, c));
            steps.grad_logits(n, c) = counts ? (std::exp(log_p(n, c)) - q) / double(counted) : 0.0;
        }
    }
    steps.loss /= double(counted);
    return steps;
}

}  // namespace

Matrix unshifted_targets(const Matrix& tgt) {
    const std::size_t B = tgt.shape(0), T = tgt.shape(1) - 1;
    Matrix targets = Matrix::from_shape({B, T});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) targets(b, t) = tgt(b, t);
    return targets;
}

SmoothedLossSteps smoothed_loss_with(const Matrix& logits, const std::vector<std::int64_t>& targets,
                                     std::int64_t padding, double smoothing, bool smoothing_on_padding) {
    if (smoothing_on_padding) return smoothing_spread_over_padding(logits, targets, padding, smoothing);
    CrossEntropyOptions options;
    options.padding_index = padding;
    options.label_smoothing = smoothing;
    const CrossEntropyResult right = cross_entropy(logits, targets, options);
    return {right.target_distribution, right.loss, cross_entropy_backward(right)};
}

double noam_with(std::size_t step, std::size_t d_model, double factor, std::size_t warmup, TrainingSlip slip) {
    if (slip != TrainingSlip::warmup_branch_inverted) return noam_learning_rate(step, d_model, factor, warmup);
    const double s = double(std::max<std::size_t>(step, 1));
    return factor / std::sqrt(double(d_model)) * std::max(1.0 / std::sqrt(s), s * std::pow(double(warmup), -1.5));
}

void adam_update_with(std::vector<double>& parameters, const std::vector<double>& gradients, AdamState& state,
                      double learning_rate, TrainingSlip slip) {
    if (slip != TrainingSlip::bias_correction_missing) {
        AdamOptions options;
        options.learning_rate = learning_rate;
        options.beta1 = beta1;
        options.beta2 = beta2;
        options.eps = adam_eps;
        adam_step(parameters, gradients, state, options);
        return;
    }
    if (state.first_moment.empty()) state.first_moment.assign(parameters.size(), 0.0);
    if (state.second_moment.empty()) state.second_moment.assign(parameters.size(), 0.0);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        double& m = state.first_moment[i];
        double& v = state.second_moment[i];
        m = beta1 * m + (1 - beta1) * gradients[i];
        v = beta2 * v + (1 - beta2) * gradients[i] * gradients[i];
        parameters[i] -= learning_rate * m / (std::sqrt(v) + adam_eps);
    }
    ++state.step;
}

TrainingRecord train_with(const Vector& initial, const QuadraticBatches& batches, const NoamSchedule& schedule,
                          TrainingSlip slip) {
    const std::size_t K = batches.centres.shape(0), P = initial.size();
    TrainingRecord record{Vector::from_shape({K}), Matrix::from_shape({K, P}), Matrix::from_shape({K, P})};
    std::vector<double> parameters(initial.begin(), initial.end()), gradients(P, 0.0);
    AdamState state;
    for (std::size_t k = 0; k < K; ++k) {
        if (slip != TrainingSlip::gradients_not_zeroed) std::fill(gradients.begin(), gradients.end(), 0.0);
        for (std::size_t i = 0; i < P; ++i)
            gradients[i] += batches.curvatures(k, i) * (parameters[i] - batches.centres(k, i));
        // Update k + 1 (1-based) uses the schedule after k scheduler steps, as LambdaLR does.
        const double rate = noam_with(k, schedule.d_model, schedule.factor, schedule.warmup, slip);
        adam_update_with(parameters, gradients, state, rate, slip);
        record.learning_rates(k) = rate;
        for (std::size_t i = 0; i < P; ++i) {
            record.gradients_used(k, i) = gradients[i];
            record.parameters(k, i) = parameters[i];
        }
    }
    return record;
}

}  // namespace attn::mistakes
