#include "attention_block.hpp"

#include <algorithm>
#include <cblas.h>
#include <limits>

#include "attn/masks.hpp"
#include "finite.hpp"
#include "attn/softmax.hpp"

namespace attn::detail {

NonFiniteAt attend_block(const AttentionBlock& block, double* scores, double* masked_scores, double* weights,
                         double* output) {
    const std::size_t T = block.queries, S = block.keys, dk = block.key_width, dv = block.value_width;
    // scores (T × S) = scale · q (T × d_k) · kᵀ (d_k × S)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(T), int(S), int(dk), block.scale, block.q, int(dk),
                block.k, int(dk), 0.0, scores, int(S));
    // Every raw score, hidden or not, must be a number: −∞ may only come from the masks below.
    if (const std::size_t at = first_non_finite(scores, T * S); at < T * S) return {NonFiniteAt::Tensor::scores, at};
    // The softmax works in place on `weights`; it starts as the masked scores.
    const double hidden = -std::numeric_limits<double>::infinity();
    std::copy(scores, scores + T * S, weights);
    for (std::size_t t = 0; t < T; ++t) {
        for (std::size_t s = 0; s < S; ++s) {
            const bool hide = (block.causal && is_future_key(t, s, T, S, block.causal_alignment)) ||
                              (block.keep_key && block.keep_key[s] == 0.0);
            if (hide) weights[t * S + s] = hidden;
        }
    }
    if (masked_scores != nullptr) std::copy(weights, weights + T * S, masked_scores);
    softmax_rows_in_place(weights, T, S);
    // output (T × d_v) = weights (T × S) · v (S × d_v)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(T), int(dv), int(S), 1.0, weights, int(S), block.v,
                int(dv), 0.0, output, int(dv));
    if (const std::size_t at = first_non_finite(output, T * dv); at < T * dv) return {NonFiniteAt::Tensor::output, at};
    return {};
}

}  // namespace attn::detail
