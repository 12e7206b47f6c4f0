#include "attn/scaled_dot_product_attention.hpp"

#include <cmath>

#include "attention_block.hpp"
#include "finite.hpp"
#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

std::string described(const char* name, const Tensor3& t) { return std::string(name) + " has shape " + shape_string(t.shape()); }

void check_shapes(const Tensor3& Q, const Tensor3& K, const Tensor3& V, const AttentionOptions& options) {
    const std::string all = "Q " + shape_string(Q.shape()) + " (B, T, d_k), K " + shape_string(K.shape()) +
                            " (B, S, d_k), V " + shape_string(V.shape()) + " (B, S, d_v)";
    for (const auto* t : {&Q, &K, &V}) {
        for (std::size_t size : t->shape()) {
            if (size == 0) throw ShapeError("scaled_dot_product_attention: a size is zero in " + all + "; every dimension must be at least 1");
        }
    }
    if (K.shape(0) != Q.shape(0) || V.shape(0) != Q.shape(0)) {
        throw ShapeError("scaled_dot_product_attention: the batch sizes B differ: " + all);
    }
    if (K.shape(2) != Q.shape(2)) {
        throw ShapeError("scaled_dot_product_attention: " + described("Q", Q) + " but " + described("K", K) +
                         "; queries and keys must have the same width d_k (their last dimension)");
    }
    if (V.shape(1) != K.shape(1)) {
        throw ShapeError("scaled_dot_product_attention: " + described("K", K) + " but " + described("V", V) +
                         "; there must be one value per key (the same S)");
    }
    if (options.attention_mask) {
        const Matrix& mask = *options.attention_mask;
        if (mask.shape(0) != Q.shape(0) || mask.shape(1) != K.shape(1)) {
            throw ShapeError("scaled_dot_product_attention: attention_mask has shape " + shape_string(mask.shape()) +
                             " but it must be (B, S) = " + shape_string(std::vector<std::size_t>{Q.shape(0), K.shape(1)}) +
                             ", one value per key of each batch item: " + all);
        }
        check_attention_mask(mask);
    }
    if (options.scale && !std::isfinite(*options.scale)) {
        throw InputError("scaled_dot_product_attention: the scale must be a finite number");
    }
}

}  // namespace

ScaledDotProductAttentionResult scaled_dot_product_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                                             const AttentionOptions& options) {
    check_shapes(Q, K, V, options);
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1), dk = Q.shape(2), dv = V.shape(2);
    ScaledDotProductAttentionResult result;
    result.scores = Tensor3::from_shape({B, T, S});
    result.masked_scores = Tensor3::from_shape({B, T, S});
    result.weights = Tensor3::from_shape({B, T, S});
    result.output = Tensor3::from_shape({B, T, dv});
    detail::AttentionBlock block;
    block.queries = T;
    block.keys = S;
    block.key_width = dk;
    block.value_width = dv;
    block.scale = options.scale ? *options.scale : 1.0 / std::sqrt(double(dk));
    block.causal = options.causal;
    for (std::size_t b = 0; b < B; ++b) {
        block.q = Q.data() + b * T * dk;
        block.k = K.data() + b * S * dk;
        block.v = V.data() + b * S * dv;
        block.keep_key = options.attention_mask ? options.attention_mask->data() + b * S : nullptr;
        const detail::NonFiniteAt bad =
            detail::attend_block(block, result.scores.data() + b * T * S, result.masked_scores.data() + b * T * S,
                                 result.weights.data() + b * T * S, result.output.data() + b * T * dv);
        if (bad.tensor == detail::NonFiniteAt::Tensor::scores) {
            const std::size_t t = bad.index / S, s = bad.index % S;
            detail::throw_non_finite("scaled_dot_product_attention", "scores", {B, T, S}, b * T * S + bad.index,
                                     result.scores.data()[b * T * S + bad.index],
                                     "scale · Q[" + std::to_string(b) + ", " + std::to_string(t) + "] · K[" + std::to_string(b) +
                                         ", " + std::to_string(s) + "]; " + detail::overflow_advice);
        }
        if (bad.tensor == detail::NonFiniteAt::Tensor::output) {
            detail::throw_non_finite("scaled_dot_product_attention", "output", {B, T, dv}, b * T * dv + bad.index,
                                     result.output.data()[b * T * dv + bad.index],
                                     std::string("the weighted sum of the rows of V; ") + detail::overflow_advice);
        }
    }
    return result;
}

}  // namespace attn
