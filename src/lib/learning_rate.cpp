// The warm-up then 1/√step learning rate of the Transformer (attn/learning_rate.hpp).
#include "attn/learning_rate.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "number_text.hpp"

namespace attn {

double noam_learning_rate(std::size_t step, std::size_t d_model, double factor, std::size_t warmup) {
    const std::string function = "noam_learning_rate";
    if (d_model == 0) throw InputError(function + ": d_model = 0: the rate is scaled by d_model^(−1/2)");
    if (warmup == 0) throw InputError(function + ": warmup = 0: the warm-up branch is step · warmup^(−3/2)");
    if (!(factor > 0 && std::isfinite(factor)))
        throw InputError(function + ": factor = " + detail::number_text(factor) + " must be a finite number > 0");
    const double n = static_cast<double>(std::max<std::size_t>(step, 1));  // LambdaLR starts at 0: counted as 1
    const double decay = std::pow(n, -0.5);                                 // after the warm-up
    const double warming = n * std::pow(static_cast<double>(warmup), -1.5);  // during the warm-up
    return factor * (std::pow(static_cast<double>(d_model), -0.5) * std::min(decay, warming));
}

}  // namespace attn
