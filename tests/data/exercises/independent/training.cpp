// Exercise 11, a second correct implementation written from lessons/11-training/exercise/exercise.hpp
// alone: no library function; teacher forcing by index; the loss as the cross-entropy −Σ q log p
// minus the entropy −Σ q log q, with log p from log1p of the other classes' share; the schedule as
// an explicit choice of branch (step < warmup); Adam in the paper's form m̂ / (√v̂ + ε); the
// training loop's buffer cleared with assign().
// A few `#ifdef PLANTED_…` lines make it one of the mistakes the checker names
// (tests/data/exercises/planted/).
#include <cmath>
#include <vector>

#include "exercise.hpp"

namespace exercise {

TeacherForcing teacher_forcing(const Tokens& tgt) {
    TeacherForcing split{Tokens(tgt.size()), Tokens(tgt.size())};
    for (std::size_t b = 0; b < tgt.size(); ++b) {
        const std::size_t L = tgt[b].size();
        for (std::size_t t = 0; t + 1 < L; ++t) {
            split.decoder_input[b].push_back(tgt[b][t]);
#ifdef PLANTED_TARGETS_NOT_SHIFTED
            split.targets[b].push_back(tgt[b][t]);
#else
            split.targets[b].push_back(tgt[b][t + 1]);
#endif
        }
    }
    return split;
}

namespace {

// log p_c of one row: log p_c = −log(1 + Σ_{j ≠ c} e^(x_j − x_c)) computed around the row's maximum.
std::vector<double> log_probabilities(const attn::Matrix& logits, std::size_t n) {
    const std::size_t V = logits.shape(1);
    std::size_t top = 0;
    for (std::size_t c = 1; c < V; ++c)
        if (logits(n, c) > logits(n, top)) top = c;
    double others = 0.0;  // Σ_{j ≠ top} e^(x_j − x_top), each ≤ 1
    for (std::size_t c = 0; c < V; ++c)
        if (c != top) others += std::exp(logits(n, c) - logits(n, top));
    const double log_p_top = -std::log1p(others);
    std::vector<double> out(V);
    for (std::size_t c = 0; c < V; ++c) out[c] = logits(n, c) - logits(n, top) + log_p_top;
    return out;
}

}  // namespace

SmoothedLoss smoothed_cross_entropy(const attn::Matrix& logits, const std::vector<int>& targets, int padding,
                                    double smoothing) {
    const std::size_t N = logits.shape(0), V = logits.shape(1);
    SmoothedLoss out{attn::Matrix::from_shape({N, V}), 0.0, attn::Matrix::from_shape({N, V})};
    double counted = 0.0;
    for (const int target : targets) counted += target != padding ? 1.0 : 0.0;
#ifdef PLANTED_SMOOTHING_ON_PADDING
    const double share = smoothing / double(V - 1);
#else
    const double share = smoothing / double(V - 2);
#endif
    double cross_entropy = 0.0, entropy = 0.0;
    for (std::size_t n = 0; n < N; ++n) {
        const bool counts = targets[n] != padding;
        const std::vector<double> log_p = log_probabilities(logits, n);
        for (std::size_t c = 0; c < V; ++c) {
            double q = 0.0;
            if (counts && int(c) == targets[n]) {
                q = 1.0 - smoothing;
#ifdef PLANTED_SMOOTHING_ON_PADDING
            } else if (counts) {
#else
            } else if (counts && int(c) != padding) {
#endif
                q = share;
            }
            out.target_distribution(n, c) = q;
            out.grad_logits(n, c) = counts ? (std::exp(log_p[c]) - q) / counted : 0.0;
            if (q == 0.0) continue;
            cross_entropy -= q * log_p[c];
            entropy -= q * std::log(q);
        }
    }
    out.loss = (cross_entropy - entropy) / counted;  // KL = cross-entropy − entropy
    return out;
}

double noam_rate(std::size_t step, std::size_t d_model, double factor, std::size_t warmup) {
    const double s = step > 0 ? double(step) : 1.0;
    const double scale = factor * std::pow(double(d_model), -0.5);
#ifdef PLANTED_WARMUP_BRANCH_INVERTED
    const bool warming_up = s >= double(warmup);
#else
    const bool warming_up = s < double(warmup);  // then s · warmup^(−3/2) < s^(−1/2)
#endif
    return warming_up ? scale * s * std::pow(double(warmup), -1.5) : scale * std::pow(s, -0.5);
}

void adam_update(std::vector<double>& parameters, const std::vector<double>& gradients, AdamMemory& memory,
                 double learning_rate) {
    memory.m.resize(parameters.size(), 0.0);
    memory.v.resize(parameters.size(), 0.0);
    const int t = int(memory.steps_taken) + 1;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const double g = gradients[i];
        memory.m[i] += 0.1 * (g - memory.m[i]);      // 0.9 m + 0.1 g
        memory.v[i] += 0.02 * (g * g - memory.v[i]);  // 0.98 v + 0.02 g²
#ifdef PLANTED_BIAS_CORRECTION_MISSING
        const double m_hat = memory.m[i], v_hat = memory.v[i];
#else
        const double m_hat = memory.m[i] / (1.0 - std::pow(0.9, t)), v_hat = memory.v[i] / (1.0 - std::pow(0.98, t));
#endif
        parameters[i] -= learning_rate * m_hat / (std::sqrt(v_hat) + 1e-9);
    }
    memory.steps_taken = std::size_t(t);
}

TrainingLog train(std::vector<double> parameters, const std::vector<Backward>& batches, const Schedule& schedule) {
    TrainingLog log;
    AdamMemory memory;
    std::vector<double> grad(parameters.size(), 0.0);
    std::size_t scheduler_steps = 0;  // LambdaLR's count: 0 before the first update
    for (const Backward& backward : batches) {
#ifndef PLANTED_GRADIENTS_NOT_ZEROED
        grad.assign(parameters.size(), 0.0);
#endif
        backward(parameters, grad);
        const double rate = noam_rate(scheduler_steps, schedule.d_model, schedule.factor, schedule.warmup);
        adam_update(parameters, grad, memory, rate);
        ++scheduler_steps;
        log.learning_rates.push_back(rate);
        log.gradients_used.push_back(grad);
        log.parameters.push_back(parameters);
    }
    return log;
}

}  // namespace exercise
