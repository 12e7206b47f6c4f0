// The Annotated Transformer's label-smoothed loss and its gradient (attn/cross_entropy.hpp).
#include "attn/cross_entropy.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"
#include "number_text.hpp"

namespace attn {

namespace {

constexpr const char* function = "cross_entropy";

void check_options(const CrossEntropyOptions& options, std::size_t V) {
    const double epsilon = options.label_smoothing;
    if (!(epsilon >= 0.0 && epsilon < 1.0))  // also refuses NaN
        throw InputError(std::string(function) + ": label_smoothing = " + detail::number_text(epsilon) +
                         " must be in [0, 1): the target keeps 1 − ε of the probability");
    if (options.padding_index && (*options.padding_index < 0 || static_cast<std::uint64_t>(*options.padding_index) >= V))
        throw InputError(std::string(function) + ": padding_index = " + std::to_string(*options.padding_index) +
                         " is not a class of logits' V = " + std::to_string(V) + " classes (0 … " +
                         std::to_string(V - 1) + ")");
    // ε is spread over the classes that are neither the target nor the padding class: there must be one.
    const std::size_t others = V - 1 - (options.padding_index ? 1 : 0);
    if (epsilon > 0.0 && (V < 2 || others == 0))
        throw InputError(std::string(function) + ": label_smoothing = " + detail::number_text(epsilon) + " needs a class " +
                         "besides the target" + (options.padding_index ? " and the padding class" : "") +
                         " to spread over, but logits has V = " + std::to_string(V) + " classes");
}

void check_targets(const std::vector<std::int64_t>& targets, std::size_t N, std::size_t V) {
    for (std::size_t n = 0; n < N; ++n) {
        const std::int64_t target = targets[n];
        if (target < 0 || static_cast<std::uint64_t>(target) >= V)
            throw InputError(std::string(function) + ": targets[" + std::to_string(n) + "] = " + std::to_string(target) +
                             " is not a class of logits (" + std::to_string(N) + ", " + std::to_string(V) +
                             "): a target must be 0 … " + std::to_string(V - 1));
    }
}

// log_softmax of each row, shifted by the row's maximum so that exp never overflows.
Matrix log_softmax_rows(const Matrix& logits) {
    const std::size_t N = logits.shape(0), V = logits.shape(1);
    Matrix log_probabilities = Matrix::from_shape({N, V});
    for (std::size_t n = 0; n < N; ++n) {
        const double* row = logits.data() + n * V;
        const double maximum = *std::max_element(row, row + V);
        double sum = 0.0;
        for (std::size_t c = 0; c < V; ++c) sum += std::exp(row[c] - maximum);
        const double log_sum = maximum + std::log(sum);
        for (std::size_t c = 0; c < V; ++c) log_probabilities(n, c) = row[c] - log_sum;
    }
    return log_probabilities;
}

// q of the header: 1 − ε on the target, ε shared by the other classes, the padding class and
// the padding rows left at 0.
Matrix smoothed_targets(const std::vector<std::int64_t>& targets, const std::vector<bool>& row_counted, std::size_t V,
                        const CrossEntropyOptions& options) {
    const double epsilon = options.label_smoothing;
    const std::size_t others = V - 1 - (options.padding_index ? 1 : 0);
    const double share = epsilon > 0.0 ? epsilon / static_cast<double>(others) : 0.0;
    Matrix q = Matrix::from_shape({targets.size(), V});
    q.fill(0.0);
    for (std::size_t n = 0; n < targets.size(); ++n) {
        if (!row_counted[n]) continue;
        for (std::size_t c = 0; c < V; ++c) q(n, c) = share;
        if (options.padding_index) q(n, static_cast<std::size_t>(*options.padding_index)) = 0.0;
        q(n, static_cast<std::size_t>(targets[n])) = 1.0 - epsilon;
    }
    return q;
}

}  // namespace

CrossEntropyResult cross_entropy(const Matrix& logits, const std::vector<std::int64_t>& targets,
                                 const CrossEntropyOptions& options) {
    const ShapeLetters sizes = check_shapes(function, {{"logits", logits, "N,V"}, {"targets", {targets.size()}, "N"}});
    const std::size_t N = sizes.at("N"), V = sizes.at("V");
    check_options(options, V);
    check_targets(targets, N, V);
    detail::require_finite(function, "logits", logits, detail::overflow_advice);

    CrossEntropyResult result;
    result.row_counted.resize(N);
    for (std::size_t n = 0; n < N; ++n) result.row_counted[n] = !options.padding_index || targets[n] != *options.padding_index;
    result.counted = static_cast<std::size_t>(std::count(result.row_counted.begin(), result.row_counted.end(), true));
    if (result.counted == 0)
        throw InputError(std::string(function) + ": every one of the " + std::to_string(N) + " targets is the padding " +
                         "class " + std::to_string(*options.padding_index) + ": no token to average the loss over");
    result.log_probabilities = log_softmax_rows(logits);
    result.target_distribution = smoothed_targets(targets, result.row_counted, V, options);

    // Σ q (log q − log p): a class with q = 0 adds nothing (0 · log 0 = 0, and 0 · −∞ must not become NaN).
    double total = 0.0;
    for (std::size_t i = 0; i < result.target_distribution.size(); ++i) {
        const double q = result.target_distribution.data()[i];
        if (q > 0.0) total += q * (std::log(q) - result.log_probabilities.data()[i]);
    }
    result.loss = total / static_cast<double>(result.counted);
    if (!std::isfinite(result.loss))
        throw InputError(std::string(function) + ": the loss of logits " + shape_string(logits.shape()) +
                         " is not a finite number: a target's probability underflowed to 0; " + detail::overflow_advice);
    return result;
}

Matrix cross_entropy_backward(const CrossEntropyResult& forward, double grad_loss) {
    const std::string name = "cross_entropy_backward";
    const ShapeLetters sizes = check_shapes(name, {{"forward.log_probabilities", forward.log_probabilities, "N,V"},
                                                   {"forward.target_distribution", forward.target_distribution, "N,V"},
                                                   {"forward.row_counted", {forward.row_counted.size()}, "N"}});
    const std::size_t N = sizes.at("N"), V = sizes.at("V");
    if (!std::isfinite(grad_loss))
        throw InputError(name + ": grad_loss is " + detail::number_text(grad_loss) + ", not a finite number: " +
                         detail::upstream_gradient_advice);
    const auto counted = static_cast<std::size_t>(std::count(forward.row_counted.begin(), forward.row_counted.end(), true));
    if (forward.counted == 0 || counted != forward.counted)
        throw InputError(name + ": forward.counted = " + std::to_string(forward.counted) + " but forward.row_counted " +
                         "marks " + std::to_string(counted) + " of " + std::to_string(N) +
                         " rows: pass the result of cross_entropy as it was returned");
    // The loss is a mean over the counted rows: each row's (p − q) is scaled by grad_loss / counted.
    const double scale = grad_loss / static_cast<double>(forward.counted);
    Matrix grad = Matrix::from_shape({N, V});
    grad.fill(0.0);
    for (std::size_t n = 0; n < N; ++n) {
        if (!forward.row_counted[n]) continue;
        for (std::size_t c = 0; c < V; ++c)
            grad(n, c) = (std::exp(forward.log_probabilities(n, c)) - forward.target_distribution(n, c)) * scale;
    }
    return grad;
}

}  // namespace attn
