#include "attn/scaled_dot_product_attention.hpp"

#include <cmath>

#include "attention_arguments.hpp"
#include "attention_block.hpp"
#include "finite.hpp"

namespace attn {

ScaledDotProductAttentionResult scaled_dot_product_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                                             const AttentionOptions& options) {
    detail::check_attention_arguments("scaled_dot_product_attention", Q, K, V, options.attention_mask, options.scale);
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
    block.causal_alignment = options.causal_alignment;
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
