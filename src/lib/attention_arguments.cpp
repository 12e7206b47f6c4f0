#include "attention_arguments.hpp"

#include <cmath>
#include <vector>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "attn/shape.hpp"

namespace attn::detail {

namespace {

std::string described(const char* name, const Tensor3& t) { return std::string(name) + " has shape " + shape_string(t.shape()); }

}  // namespace

void check_attention_arguments(const std::string& function, const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                               const std::optional<Matrix>& attention_mask, const std::optional<double>& scale) {
    const std::string all = "Q " + shape_string(Q.shape()) + " (B, T, d_k), K " + shape_string(K.shape()) +
                            " (B, S, d_k), V " + shape_string(V.shape()) + " (B, S, d_v)";
    for (const auto* t : {&Q, &K, &V}) {
        for (std::size_t size : t->shape()) {
            if (size == 0) throw ShapeError(function + ": a size is zero in " + all + "; every dimension must be at least 1");
        }
    }
    if (K.shape(0) != Q.shape(0) || V.shape(0) != Q.shape(0)) {
        throw ShapeError(function + ": the batch sizes B differ: " + all);
    }
    if (K.shape(2) != Q.shape(2)) {
        throw ShapeError(function + ": " + described("Q", Q) + " but " + described("K", K) +
                         "; queries and keys must have the same width d_k (their last dimension)");
    }
    if (V.shape(1) != K.shape(1)) {
        throw ShapeError(function + ": " + described("K", K) + " but " + described("V", V) +
                         "; there must be one value per key (the same S)");
    }
    if (attention_mask) {
        const Matrix& mask = *attention_mask;
        if (mask.shape(0) != Q.shape(0) || mask.shape(1) != K.shape(1)) {
            throw ShapeError(function + ": attention_mask has shape " + shape_string(mask.shape()) +
                             " but it must be (B, S) = " + shape_string(std::vector<std::size_t>{Q.shape(0), K.shape(1)}) +
                             ", one value per key of each batch item: " + all);
        }
        check_attention_mask(mask);
    }
    if (scale && !std::isfinite(*scale)) {
        throw InputError(function + ": the scale must be a finite number");
    }
}

}  // namespace attn::detail
