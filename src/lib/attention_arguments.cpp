#include "attention_arguments.hpp"

#include <cmath>
#include <vector>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "attn/shape.hpp"

namespace attn::detail {

void check_mask_and_scale(const std::string& function, const std::optional<Matrix>& attention_mask,
                          const std::optional<double>& scale) {
    if (attention_mask) check_attention_mask(*attention_mask);
    if (scale && !std::isfinite(*scale)) throw InputError(function + ": the scale must be a finite number");
}

void check_kv_heads(const std::string& f, const std::string& w_k_name, const Matrix& w_k, std::size_t D,
                    std::size_t heads, std::size_t kv_heads) {
    if (kv_heads == 0 || heads % kv_heads != 0) {
        throw InputError(f + ": kv_heads g = " + std::to_string(kv_heads) + " does not divide the number of heads h = " +
                         std::to_string(heads) + "; each K/V head is shared by h / g query heads, so g must divide h");
    }
    const std::size_t rows = kv_heads * (D / heads);
    if (w_k.shape(0) != rows) {
        throw ShapeError(f + ": " + w_k_name + " has shape " + shape_string(w_k.shape()) + " but with kv_heads g = " +
                         std::to_string(kv_heads) + " heads of d_k = D / h = " + std::to_string(D / heads) +
                         " it must be (g·d_k, D) = " + shape_string(std::vector<std::size_t>{rows, D}));
    }
}

}  // namespace attn::detail
