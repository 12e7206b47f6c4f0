#include "10-backward/exercise/mistakes.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "attn/scaled_dot_product_attention.hpp"
#include "attn/scaled_dot_product_attention_backward.hpp"
#include "attn/softmax_backward.hpp"

namespace attn::mistakes {

namespace {

// Per batch item, op(a) op(b) · factor, where op transposes the last two axes when asked:
// a (B, M, K) or (B, K, M), b (B, K, N) or (B, N, K) → (B, M, N).
Tensor3 batched_product(const Tensor3& a, bool transpose_a, const Tensor3& b, bool transpose_b, double factor = 1.0) {
    const std::size_t B = a.shape(0), M = a.shape(transpose_a ? 2 : 1), K = a.shape(transpose_a ? 1 : 2);
    const std::size_t N = b.shape(transpose_b ? 1 : 2);
    Tensor3 out = Tensor3::from_shape({B, M, N});
    for (std::size_t n = 0; n < B; ++n)
        for (std::size_t i = 0; i < M; ++i)
            for (std::size_t j = 0; j < N; ++j) {
                double sum = 0.0;
                for (std::size_t k = 0; k < K; ++k)
                    sum += (transpose_a ? a(n, k, i) : a(n, i, k)) * (transpose_b ? b(n, j, k) : b(n, k, j));
                out(n, i, j) = sum * factor;
            }
    return out;
}

// The forward's weights with NaN in every row whose scores are all hidden.
Tensor3 nan_where_fully_masked(const ScaledDotProductAttentionResult& forward) {
    Tensor3 weights = forward.weights;
    const std::size_t S = weights.shape(2);
    for (std::size_t row = 0; row < weights.size() / S; ++row) {
        bool all_hidden = true;
        for (std::size_t s = 0; s < S && all_hidden; ++s) all_hidden = std::isinf(forward.masked_scores.data()[row * S + s]);
        if (!all_hidden) continue;
        for (std::size_t s = 0; s < S; ++s) weights.data()[row * S + s] = std::numeric_limits<double>::quiet_NaN();
    }
    return weights;
}

}  // namespace

Tensor3 additive_mask_of(const Tensor3& mask) {
    Tensor3 additive = Tensor3::from_shape(mask.shape());
    for (std::size_t i = 0; i < mask.size(); ++i)
        additive.data()[i] = mask.data()[i] == 0.0 ? -std::numeric_limits<double>::infinity() : 0.0;
    return additive;
}

Matrix softmax_backward_without_row_sum(const Matrix& weights, const Matrix& grad_weights) {
    return weights * grad_weights;
}

AttentionBackwardSteps attention_backward_with(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                               const std::optional<Tensor3>& mask, const Tensor3& grad_output,
                                               BackwardSlip slip) {
    AttentionOptions options;
    if (mask && slip != BackwardSlip::mask_ignored) options.additive_mask = additive_mask_of(*mask);
    const ScaledDotProductAttentionResult forward = scaled_dot_product_attention(query, key, value, options);
    AttentionBackwardSteps steps;
    steps.weights = slip == BackwardSlip::nan_for_fully_masked ? nan_where_fully_masked(forward) : forward.weights;
    steps.grad_weights = batched_product(grad_output, false, value, true);  // dP = dO Vᵀ
    if (slip == BackwardSlip::none) {
        steps.grad_scores = softmax_backward(steps.weights, steps.grad_weights);
        const ScaledDotProductAttentionGradients right =
            scaled_dot_product_attention_backward(query, key, value, forward, grad_output, options);
        steps.grad_query = right.query;
        steps.grad_key = right.key;
        steps.grad_value = right.value;
        return steps;
    }
    // The slipped step, then the chain rule's later steps recomputed from it (NaN spreads as it would).
    steps.grad_scores = Tensor3::from_shape(steps.weights.shape());
    if (slip == BackwardSlip::row_sum_forgotten)
        steps.grad_scores = steps.weights * steps.grad_weights;
    else
        softmax_rows_backward(steps.weights.data(), steps.grad_weights.data(), steps.grad_scores.data(),
                              steps.weights.size() / steps.weights.shape(2), steps.weights.shape(2));
    const double scale = slip == BackwardSlip::scale_left_out ? 1.0 : 1.0 / std::sqrt(double(query.shape(2)));
    steps.grad_query = batched_product(steps.grad_scores, false, key, false, scale);  // dS K
    steps.grad_key = batched_product(steps.grad_scores, true, query, false, scale);   // dSᵀ Q
    steps.grad_value = batched_product(steps.weights, slip != BackwardSlip::value_transpose_forgotten, grad_output, false);
    if (slip == BackwardSlip::query_key_swapped) std::swap(steps.grad_query, steps.grad_key);
    return steps;
}

}  // namespace attn::mistakes
