// softmax(Q Kᵀ / √d_k + M) V (lessons/04-causal-self-attention/README.md).
//
// The formula, one line per step: the scores, the mask M added (0 where a key is visible, −∞ where
// it is hidden), the softmax over the keys, the weighted sum of the values. Every step is kept in
// the result for the lesson to print. Shapes: Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v).
#include "attn/scaled_dot_product_attention.hpp"

#include <cmath>

#include "attention_arguments.hpp"
#include "attn/masks.hpp"
#include "attn/matmul.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "finite.hpp"

namespace attn {

ScaledDotProductAttentionResult scaled_dot_product_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                                             const AttentionOptions& options) {
    const std::string f = "scaled_dot_product_attention";
    check_shapes(f, {{"Q", Q, "B,T,d_k"}, {"K", K, "B,S,d_k"}, {"V", V, "B,S,d_v"},
                     {"attention_mask", options.attention_mask, "B,S"}});
    detail::check_mask_and_scale(f, options.attention_mask, options.scale);
    if (options.additive_mask) check_additive_mask(f, *options.additive_mask, Q.shape(0), "B", Q.shape(1), K.shape(1));
    const double scale = options.scale.value_or(1.0 / std::sqrt(double(Q.shape(2))));

    ScaledDotProductAttentionResult r;
    r.scores = scale * matmul_transposed(Q, K);                    // Q Kᵀ / √d_k        (B, T, S)
    detail::require_finite_scores(f, r.scores, "Q", "K");          // only M may put −∞ in the scores
    r.masked_scores = add_masks(r.scores, options.causal, options.causal_alignment, options.attention_mask);  // + M
    if (options.additive_mask) r.masked_scores = add_additive_mask(r.masked_scores, *options.additive_mask, f);
    r.weights = softmax_last_axis(r.masked_scores);                // softmax over the keys S
    r.output = matmul(r.weights, V);                               // weights V          (B, T, d_v)
    detail::require_finite(f, "output", r.output, std::string("the weighted sum of the rows of V; ") + detail::overflow_advice);
    return r;
}

}  // namespace attn
