// The Annotated Transformer's label-smoothed loss on float32 logits (label_smoothing_loss.hpp).
#include "label_smoothing_loss.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/error.hpp"

namespace attn::fast::detail {

double label_smoothing_loss(const float* logits, const std::int64_t* targets, std::size_t rows, std::size_t V,
                            std::int64_t padding_index, double label_smoothing, float* grad_logits) {
    std::size_t counted = 0;
    for (std::size_t n = 0; n < rows; ++n) {
        if (targets[n] < 0 || targets[n] >= static_cast<std::int64_t>(V)) {
            throw InputError("seq2seq loss: targets[" + std::to_string(n) + "] = " + std::to_string(targets[n]) +
                             " is outside the vocabulary 0 … " + std::to_string(V - 1));
        }
        counted += targets[n] != padding_index ? 1 : 0;
    }
    if (counted == 0) throw InputError("seq2seq loss: every target is the padding symbol; there is nothing to score");
    // ε spread over the classes that are neither the target nor the padding one.
    const double smooth = V > 2 ? label_smoothing / double(V - 2) : 0.0;
    std::vector<double> q(V);
    double loss = 0;
    for (std::size_t n = 0; n < rows; ++n) {
        const float* row = logits + n * V;
        float* grad = grad_logits + n * V;
        if (targets[n] == padding_index) {
            std::fill(grad, grad + V, 0.0f);
            continue;
        }
        double largest = row[0];
        for (std::size_t c = 0; c < V; ++c) {
            if (!std::isfinite(row[c])) {
                throw InputError("seq2seq loss: the logit at row " + std::to_string(n) + ", class " + std::to_string(c) +
                                 " is not finite (the training diverged)");
            }
            largest = std::max(largest, double(row[c]));
        }
        double sum = 0;
        for (std::size_t c = 0; c < V; ++c) sum += std::exp(double(row[c]) - largest);
        const double log_sum = largest + std::log(sum);
        for (std::size_t c = 0; c < V; ++c) {
            q[c] = static_cast<std::int64_t>(c) == targets[n] ? 1.0 - label_smoothing
                   : static_cast<std::int64_t>(c) == padding_index ? 0.0
                                                                    : smooth;
            const double log_p = double(row[c]) - log_sum;
            if (q[c] > 0) loss += q[c] * (std::log(q[c]) - log_p);
            grad[c] = static_cast<float>((std::exp(log_p) - q[c]) / double(counted));
        }
    }
    return loss / double(counted);
}

}  // namespace attn::fast::detail
