// Multi-head attention backwards: the output projection, the heads, the input projections
// (attn/multi_head_attention_backward.hpp).
#include "attn/multi_head_attention_backward.hpp"

#include <cmath>
#include <string>

#include "attention_backward.hpp"
#include "attn/error.hpp"
#include "attn/linear_backward.hpp"
#include "attn/shape.hpp"
#include "finite.hpp"

namespace attn {

namespace {

// (B, h, m, n) → (B·h, m, n): the same row-major values, each (batch, head) one block.
Tensor3 blocks_of(const Tensor4& x) {
    Tensor3 blocks = Tensor3::from_shape({x.shape(0) * x.shape(1), x.shape(2), x.shape(3)});
    std::copy(x.begin(), x.end(), blocks.begin());
    return blocks;
}

// The inverse of blocks_of.
Tensor4 heads_of(const Tensor3& blocks, std::size_t B, std::size_t heads) {
    Tensor4 x = Tensor4::from_shape({B, heads, blocks.shape(1), blocks.shape(2)});
    std::copy(blocks.begin(), blocks.end(), x.begin());
    return x;
}

void check_backward_arguments(const std::string& f, const Tensor3& query, const Tensor3& key, const Tensor3& value,
                              const MultiHeadAttentionWeights& w, std::size_t heads,
                              const MultiHeadAttentionResult& forward, const Tensor3& grad_output) {
    if (heads == 0 || query.shape(2) % heads != 0) {
        throw ShapeError(f + ": the number of heads h = " + std::to_string(heads) + " must divide D = " +
                         std::to_string(query.shape(2)) + " (the last dimension of query)");
    }
    const std::string h = std::to_string(heads);
    check_shapes(f, {{"query", query, "B,T,D"}, {"key", key, "B,S,D"}, {"value", value, "B,S,D"},
                     {"w_q", w.w_q, "D,D"}, {"w_k", w.w_k, "D,D"}, {"w_v", w.w_v, "D,D"}, {"w_o", w.w_o, "D,D"},
                     {"forward.q_heads", forward.q_heads, "B," + h + ",T,d_k"},
                     {"forward.k_heads", forward.k_heads, "B," + h + ",S,d_k"},
                     {"forward.v_heads", forward.v_heads, "B," + h + ",S,d_k"},
                     {"forward.weights", forward.weights, "B," + h + ",T,S"},
                     {"forward.context", forward.context, "B,T,D"}, {"grad_output", grad_output, "B,T,D"}});
    require_output_projection_choice(f, w.no_output_projection, w.w_o.has_value(), w.b_o.has_value());
    detail::require_finite(f, "grad_output", grad_output, detail::upstream_gradient_advice);
}

}  // namespace

MultiHeadAttentionGradients multi_head_attention_backward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                          const MultiHeadAttentionWeights& w, std::size_t heads,
                                                          const MultiHeadAttentionResult& forward,
                                                          const Tensor3& grad_output, const AttentionOptions& options) {
    // query (B, T, D), key and value (B, S, D), heads (B, h, ·, d_k), weights (B, h, T, S), doutput (B, T, D)
    check_backward_arguments("multi_head_attention_backward", query, key, value, w, heads, forward, grad_output);
    const std::size_t B = query.shape(0), d_k = query.shape(2) / heads;
    MultiHeadAttentionGradients grad;
    grad.weights.no_output_projection = w.no_output_projection;

    // 1. output = context W_oᵀ + b_o, or output = context.
    Tensor3 grad_context = grad_output;
    if (w.w_o) {
        SequenceLinearGradients out = linear_backward(forward.context, *w.w_o, grad_output);
        grad_context = std::move(out.x);
        grad.weights.w_o = std::move(out.weight);
        if (w.b_o) grad.weights.b_o = std::move(out.bias);
    }
    // 2. context = merge_heads(context_heads): undone by split_heads.
    const Tensor4 grad_context_heads = split_heads(grad_context, heads);
    // 3. Every (batch, head) block's attention, backwards.
    const double scale = options.scale.value_or(1.0 / std::sqrt(double(d_k)));
    DropoutMask<Tensor3> weights_dropout;  // training's mask on the weights, if the forward drew one
    if (!forward.weights_dropout.identity()) {
        weights_dropout = {blocks_of(forward.weights_dropout.kept), forward.weights_dropout.scale};
    }
    const ScaledDotProductAttentionGradients per_head = detail::attention_blocks_backward(
        blocks_of(forward.q_heads), blocks_of(forward.k_heads), blocks_of(forward.v_heads), blocks_of(forward.weights),
        blocks_of(grad_context_heads), scale, weights_dropout);
    // 4. q_heads = split_heads(q) …: undone by merge_heads.  5. q = query W_qᵀ + b_q …, backwards.
    SequenceLinearGradients q = linear_backward(query, w.w_q, merge_heads(heads_of(per_head.query, B, heads)));
    SequenceLinearGradients k = linear_backward(key, w.w_k, merge_heads(heads_of(per_head.key, B, heads)));
    SequenceLinearGradients v = linear_backward(value, w.w_v, merge_heads(heads_of(per_head.value, B, heads)));
    grad.query = std::move(q.x), grad.weights.w_q = std::move(q.weight), grad.weights.b_q = std::move(q.bias);
    grad.key = std::move(k.x), grad.weights.w_k = std::move(k.weight), grad.weights.b_k = std::move(k.bias);
    grad.value = std::move(v.x), grad.weights.w_v = std::move(v.weight), grad.weights.b_v = std::move(v.bias);
    return grad;
}

}  // namespace attn
