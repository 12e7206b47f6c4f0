// torch.optim.Adam's step with bias correction, on flat buffers (attn/adam.hpp).
#include "attn/adam.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "finite.hpp"
#include "number_text.hpp"

namespace attn {

namespace {

constexpr const char* function = "adam_step";

// One stretch of parameters with its gradients: a tensor of a ParameterList, or a whole vector.
struct Stretch {
    double* parameters;
    const double* gradients;
    std::size_t count;
};

void require_in(bool inside, const std::string& option, double value, const std::string& range) {
    if (!inside)
        throw InputError(std::string(function) + ": " + option + " = " + detail::number_text(value) + " must be " + range);
}

void check_options(const AdamOptions& options) {
    // Written as "inside" tests so that NaN, which fails every comparison, is refused too.
    require_in(options.learning_rate >= 0 && std::isfinite(options.learning_rate), "learning_rate",
               options.learning_rate, "a finite number ≥ 0");
    require_in(options.beta1 >= 0 && options.beta1 < 1, "beta1", options.beta1, "in [0, 1)");
    require_in(options.beta2 >= 0 && options.beta2 < 1, "beta2", options.beta2, "in [0, 1)");
    require_in(options.eps >= 0 && std::isfinite(options.eps), "eps", options.eps, "a finite number ≥ 0");
    require_in(options.weight_decay >= 0 && std::isfinite(options.weight_decay), "weight_decay", options.weight_decay,
               "a finite number ≥ 0");
}

// A new state gets its moments here; a used one must have been sized for a buffer of this size.
void check_state(AdamState& state, std::size_t size) {
    if (state.step == 0 && state.first_moment.empty() && state.second_moment.empty()) {
        state.first_moment.assign(size, 0.0);
        state.second_moment.assign(size, 0.0);
        return;
    }
    if (state.first_moment.size() != size || state.second_moment.size() != size)
        throw InputError(std::string(function) + ": the state's moments hold " + std::to_string(state.first_moment.size()) +
                         " and " + std::to_string(state.second_moment.size()) + " values (after " +
                         std::to_string(state.step) + " steps) but the parameters are " + std::to_string(size) +
                         ": a state belongs to one flat buffer, in one order");
}

void check_gradients(const std::vector<Stretch>& stretches, std::size_t size) {
    std::size_t offset = 0;  // named by the flat index: the order of ParameterList::gather
    for (const Stretch& stretch : stretches) {
        const std::size_t at = detail::first_non_finite(stretch.gradients, stretch.count);
        if (at != stretch.count)
            detail::throw_non_finite(function, "gradients", {size}, offset + at, stretch.gradients[at],
                                     detail::upstream_gradient_advice);
        offset += stretch.count;
    }
}

void adam_on_stretches(const std::vector<Stretch>& stretches, std::size_t size, AdamState& state,
                       const AdamOptions& options) {
    check_options(options);
    check_gradients(stretches, size);
    check_state(state, size);  // last: it sizes a new state, and nothing may change before every check passed
    const double t = static_cast<double>(state.step + 1);
    const double beta1 = options.beta1, beta2 = options.beta2;
    const double step_size = options.learning_rate / (1.0 - std::pow(beta1, t));
    const double bias_correction2_sqrt = std::sqrt(1.0 - std::pow(beta2, t));
    std::size_t i = 0;  // the flat index: the moments are one buffer for all stretches
    for (const Stretch& stretch : stretches) {
        for (std::size_t k = 0; k < stretch.count; ++k, ++i) {
            double& theta = stretch.parameters[k];
            double g = stretch.gradients[k];
            if (options.weight_decay != 0.0) g += options.weight_decay * theta;
            double& m = state.first_moment[i];
            double& v = state.second_moment[i];
            m = m * beta1 + (1.0 - beta1) * g;
            v = v * beta2 + (1.0 - beta2) * g * g;
            const double denom = std::sqrt(v) / bias_correction2_sqrt + options.eps;
            theta -= step_size * m / denom;
        }
    }
    state.step += 1;
}

}  // namespace

void ParameterList::add(double* values, std::size_t count) {
    buffers_.push_back({values, count});
    size_ += count;
}

std::vector<double> ParameterList::gather() const {
    std::vector<double> flat;
    flat.reserve(size_);
    for (const Buffer& buffer : buffers_) flat.insert(flat.end(), buffer.values, buffer.values + buffer.count);
    return flat;
}

void ParameterList::scatter(const std::vector<double>& flat) const {
    if (flat.size() != size_)
        throw InputError("ParameterList::scatter: flat holds " + std::to_string(flat.size()) + " values but the " +
                         std::to_string(buffers_.size()) + " tensors hold " + std::to_string(size_));
    std::size_t offset = 0;
    for (const Buffer& buffer : buffers_) {
        std::copy(flat.begin() + static_cast<std::ptrdiff_t>(offset),
                  flat.begin() + static_cast<std::ptrdiff_t>(offset + buffer.count), buffer.values);
        offset += buffer.count;
    }
}

void adam_step(std::vector<double>& parameters, const std::vector<double>& gradients, AdamState& state,
               const AdamOptions& options) {
    if (gradients.size() != parameters.size())
        throw InputError(std::string(function) + ": gradients holds " + std::to_string(gradients.size()) +
                         " values but parameters holds " + std::to_string(parameters.size()) +
                         ": one gradient per parameter");
    adam_on_stretches({{parameters.data(), gradients.data(), parameters.size()}}, parameters.size(), state, options);
}

void adam_step(ParameterList& parameters, const ParameterList& gradients, AdamState& state, const AdamOptions& options) {
    const auto& mine = parameters.buffers();
    const auto& theirs = gradients.buffers();
    if (mine.size() != theirs.size())
        throw InputError(std::string(function) + ": gradients lists " + std::to_string(theirs.size()) +
                         " tensors but parameters lists " + std::to_string(mine.size()));
    std::vector<Stretch> stretches;
    for (std::size_t k = 0; k < mine.size(); ++k) {
        if (mine[k].count != theirs[k].count)
            throw InputError(std::string(function) + ": tensor " + std::to_string(k) + " of gradients holds " +
                             std::to_string(theirs[k].count) + " values but tensor " + std::to_string(k) +
                             " of parameters holds " + std::to_string(mine[k].count) +
                             ": add the tensors to both lists in the same order");
        stretches.push_back({mine[k].values, theirs[k].values, mine[k].count});
    }
    adam_on_stretches(stretches, parameters.size(), state, options);
}

}  // namespace attn
