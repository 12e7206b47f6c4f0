// The backward of softmax(scale · Q Kᵀ + M) V (attn/scaled_dot_product_attention_backward.hpp),
// one line per step of the chain rule, in the reverse order of the forward.
#include "attn/scaled_dot_product_attention_backward.hpp"

#include <cmath>

#include "attention_backward.hpp"
#include "attn/matmul.hpp"
#include "attn/shape.hpp"
#include "attn/softmax_backward.hpp"
#include "finite.hpp"

namespace attn {

namespace {

// (M, m, n) → (M, n, m): each block transposed, so that Pᵀ dO and dSᵀ Q are plain products.
Tensor3 transpose_blocks(const Tensor3& x) {
    const std::size_t M = x.shape(0), m = x.shape(1), n = x.shape(2);
    Tensor3 y = Tensor3::from_shape({M, n, m});
    for (std::size_t b = 0; b < M; ++b)
        for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) y(b, j, i) = x(b, i, j);
    return y;
}

}  // namespace

namespace detail {

ScaledDotProductAttentionGradients attention_blocks_backward(const Tensor3& Q, const Tensor3& K, const Tensor3& V,
                                                             const Tensor3& weights, const Tensor3& grad_output,
                                                             double scale, const DropoutMask<Tensor3>& weights_dropout) {
    ScaledDotProductAttentionGradients grad;
    const bool dropped = !weights_dropout.identity();
    const Tensor3 dropped_weights = dropped ? apply_dropout(weights_dropout, weights, "weights") : Tensor3();
    const Tensor3& attended = dropped ? dropped_weights : weights;           // P' = dropout(P), or P
    grad.value = matmul(transpose_blocks(attended), grad_output);             // dV = P'ᵀ dO     (M, S, d_v)
    Tensor3 grad_weights = matmul_transposed(grad_output, V);                 // dP' = dO Vᵀ     (M, T, S)
    if (dropped) grad_weights = dropout_backward(weights_dropout, grad_weights);  // dP
    const Tensor3 grad_scores = softmax_backward(weights, grad_weights);      // dS              (M, T, S)
    grad.query = scale * matmul(grad_scores, K);                              // dQ = scale dS K (M, T, d_k)
    grad.key = scale * matmul(transpose_blocks(grad_scores), Q);              // dK = scale dSᵀ Q (M, S, d_k)
    return grad;
}

}  // namespace detail

ScaledDotProductAttentionGradients scaled_dot_product_attention_backward(const Tensor3& query, const Tensor3& key,
                                                                         const Tensor3& value,
                                                                         const ScaledDotProductAttentionResult& forward,
                                                                         const Tensor3& grad_output,
                                                                         const AttentionOptions& options) {
    check_shapes("scaled_dot_product_attention_backward",
                 {{"query", query, "B,T,d_k"}, {"key", key, "B,S,d_k"}, {"value", value, "B,S,d_v"},
                  {"forward.weights", forward.weights, "B,T,S"}, {"grad_output", grad_output, "B,T,d_v"}});
    detail::require_finite("scaled_dot_product_attention_backward", "grad_output", grad_output,
                           detail::upstream_gradient_advice);
    const double scale = options.scale.value_or(1.0 / std::sqrt(double(query.shape(2))));
    return detail::attention_blocks_backward(query, key, value, forward.weights, grad_output, scale);
}

}  // namespace attn
