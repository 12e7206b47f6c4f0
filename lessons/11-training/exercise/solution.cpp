// Exercise 11 — a solution (CI checks that it passes: -DATTN_EXERCISE_SOLUTIONS=ON).
//
// Teacher forcing splits each target sequence in two overlapping views; the loss builds q row by
// row, takes log p by log-sum-exp (the largest logit subtracted first, so logits in the hundreds
// stay finite) and averages the KL divergence over the rows that count; Adam keeps m and v per
// parameter and divides each by 1 − βᵗ; the training loop clears its gradient buffer before
// every batch's backward, as optimizer.zero_grad() does.
//
// Shapes: B sequences · L symbols · N rows (one per predicted position) · V vocabulary ·
// P parameters · K updates.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace exercise {

TeacherForcing teacher_forcing(const Tokens& tgt) {
    TeacherForcing split;
    for (const std::vector<int>& sequence : tgt) {
        split.decoder_input.emplace_back(sequence.begin(), sequence.end() - 1);  // reads 0 … L − 2
        split.targets.emplace_back(sequence.begin() + 1, sequence.end());        // scored on 1 … L − 1
    }
    return split;
}

namespace {

// log softmax of one row: x − max − log Σ e^(x − max).
std::vector<double> log_softmax_row(const attn::Matrix& logits, std::size_t n) {
    const std::size_t V = logits.shape(1);
    double largest = logits(n, 0);
    for (std::size_t c = 1; c < V; ++c) largest = std::max(largest, logits(n, c));
    double sum = 0.0;
    for (std::size_t c = 0; c < V; ++c) sum += std::exp(logits(n, c) - largest);
    std::vector<double> log_p(V);
    for (std::size_t c = 0; c < V; ++c) log_p[c] = logits(n, c) - largest - std::log(sum);
    return log_p;
}

}  // namespace

SmoothedLoss smoothed_cross_entropy(const attn::Matrix& logits, const std::vector<int>& targets, int padding,
                                    double smoothing) {
    const std::size_t N = logits.shape(0), V = logits.shape(1);
    SmoothedLoss result{attn::Matrix::from_shape({N, V}), 0.0, attn::Matrix::from_shape({N, V})};
    result.target_distribution.fill(0.0);
    result.grad_logits.fill(0.0);
    std::size_t counted = 0;
    for (std::size_t n = 0; n < N; ++n) counted += targets[n] != padding;
    for (std::size_t n = 0; n < N; ++n) {
        if (targets[n] == padding) continue;  // a padding position predicts nothing
        const std::vector<double> log_p = log_softmax_row(logits, n);
        for (std::size_t c = 0; c < V; ++c) {
            // The target keeps 1 − ε; the padding class gets nothing; the V − 2 others share ε.
            double q = smoothing / double(V - 2);
            if (int(c) == targets[n]) q = 1.0 - smoothing;
            if (int(c) == padding) q = 0.0;
            result.target_distribution(n, c) = q;
            if (q > 0.0) result.loss += q * (std::log(q) - log_p[c]);
            result.grad_logits(n, c) = (std::exp(log_p[c]) - q) / double(counted);
        }
    }
    result.loss /= double(counted);
    return result;
}

double noam_rate(std::size_t step, std::size_t d_model, double factor, std::size_t warmup) {
    const double s = step == 0 ? 1.0 : double(step);
    const double decay = 1.0 / std::sqrt(s);                   // after the warm-up
    const double warming = s / std::pow(double(warmup), 1.5);  // during the warm-up
    return factor / std::sqrt(double(d_model)) * std::min(decay, warming);
}

void adam_update(std::vector<double>& parameters, const std::vector<double>& gradients, AdamMemory& memory,
                 double learning_rate) {
    const double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;
    if (memory.m.empty()) memory.m.assign(parameters.size(), 0.0);
    if (memory.v.empty()) memory.v.assign(parameters.size(), 0.0);
    const double t = double(memory.steps_taken + 1);
    const double correction1 = 1.0 - std::pow(beta1, t), correction2 = 1.0 - std::pow(beta2, t);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        memory.m[i] = beta1 * memory.m[i] + (1.0 - beta1) * gradients[i];
        memory.v[i] = beta2 * memory.v[i] + (1.0 - beta2) * gradients[i] * gradients[i];
        const double m_hat = memory.m[i] / correction1, v_hat = memory.v[i] / correction2;
        parameters[i] -= learning_rate * m_hat / (std::sqrt(v_hat) + eps);
    }
    memory.steps_taken += 1;
}

TrainingLog train(std::vector<double> parameters, const std::vector<Backward>& batches, const Schedule& schedule) {
    TrainingLog log;
    AdamMemory memory;
    std::vector<double> gradients(parameters.size());
    for (std::size_t k = 1; k <= batches.size(); ++k) {
        std::fill(gradients.begin(), gradients.end(), 0.0);  // zero_grad: backward adds
        batches[k - 1](parameters, gradients);
        const double rate = noam_rate(k - 1, schedule.d_model, schedule.factor, schedule.warmup);
        adam_update(parameters, gradients, memory, rate);
        log.learning_rates.push_back(rate);
        log.gradients_used.push_back(gradients);
        log.parameters.push_back(parameters);
    }
    return log;
}

}  // namespace exercise
