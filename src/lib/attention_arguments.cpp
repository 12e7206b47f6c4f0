#include "attention_arguments.hpp"

#include <cmath>

#include "attn/error.hpp"
#include "attn/masks.hpp"

namespace attn::detail {

void check_mask_and_scale(const std::string& function, const std::optional<Matrix>& attention_mask,
                          const std::optional<double>& scale) {
    if (attention_mask) check_attention_mask(*attention_mask);
    if (scale && !std::isfinite(*scale)) throw InputError(function + ": the scale must be a finite number");
}

}  // namespace attn::detail
