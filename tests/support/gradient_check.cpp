#include "support/gradient_check.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"

namespace attn::testing {

DynamicTensor central_differences(double* values, const std::vector<std::size_t>& shape,
                                  const std::function<double()>& loss) {
    DynamicTensor gradient = DynamicTensor::from_shape(shape);
    const double h = finite_difference_step;
    for (std::size_t i = 0; i < gradient.size(); ++i) {
        const double original = values[i];
        values[i] = original + h;
        const double above = loss();
        values[i] = original - h;
        const double below = loss();
        values[i] = original;
        gradient.data()[i] = (above - below) / (2.0 * h);
    }
    return gradient;
}

GradientComparison compare_with_differences(const std::string& name, const DynamicTensor& numerical,
                                            const DynamicTensor& analytic) {
    if (numerical.shape() != analytic.shape()) return {false, name + ": the gradient has the wrong shape"};
    double largest = 0.0, difference = 0.0;
    for (std::size_t i = 0; i < analytic.size(); ++i) {
        largest = std::max(largest, std::abs(analytic.data()[i]));
        difference = std::max(difference, std::abs(numerical.data()[i] - analytic.data()[i]));
    }
    const double scale = std::max(largest, 1e-3);
    const double relative = difference / scale;
    std::ostringstream report;
    report << "gradient of " << name << " (expected: central differences, got: the backward)\n"
           << match_tensors(numerical, analytic, finite_difference_tolerance * scale, 0.0).report
           << "\nrelative error " << relative << " (max |Δ| " << difference << " / " << scale << "), limit "
           << finite_difference_tolerance;
    return {std::isfinite(relative) && relative < finite_difference_tolerance, report.str()};
}

bool BackwardCase::has(const std::string& name) const { return std::filesystem::exists(folder / "in" / (name + ".npy")); }
DynamicTensor BackwardCase::input(const std::string& name) const { return load_tensor(folder / "in" / (name + ".npy")); }
DynamicTensor BackwardCase::autograd(const std::string& name) const {
    return load_tensor(folder / "expected" / ("grad_" + name + ".npy"));
}
bool BackwardCase::option(const std::string& key) const {
    const auto found = options.find(key);
    return found != options.end() && found->second == "1";
}

std::vector<BackwardCase> backward_cases(const std::string& module) {
    std::vector<BackwardCase> cases;
    for (const auto& folder : fixture_cases(ATTN_SOURCE_DIR "/tests/data/backward", module)) {
        cases.push_back({folder, read_key_values(folder / "options.txt")});
    }
    REQUIRE(!cases.empty());
    return cases;
}

}  // namespace attn::testing
