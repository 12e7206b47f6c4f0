// Multi-head attention (lessons/05-multi-head-attention/README.md).
//
// The lesson's formulas in order: project the inputs (q = query W_qᵀ + b_q, …), cut the width D
// into h heads of d_k = D / h, run lessons/04-causal-self-attention's attention in every head at
// once, put the heads back side by side, and project the result with W_o when there is one. Shapes:
// query (B, T, D), key and value (B, S, D); every head's scores and weights (B, h, T, S).
#include "attn/multi_head_attention.hpp"

#include <cmath>

#include <xtensor/xbuilder.hpp>

#include "attention_arguments.hpp"
#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/masks.hpp"
#include "attn/matmul.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "finite.hpp"

namespace attn {

namespace {

void check_heads(const std::string& function, std::size_t D, std::size_t heads, const std::string& owner) {
    if (heads == 0) throw ShapeError(function + ": the number of heads must be at least 1");
    if (D % heads != 0) {
        throw ShapeError(function + ": d_model D = " + std::to_string(D) + " (the last dimension of " + owner +
                         ") is not a multiple of the number of heads h = " + std::to_string(heads) +
                         "; each head gets d_k = D / h features, so h must divide D");
    }
}

void check_output_projection(const std::string& f, const MultiHeadAttentionWeights& w) {
    require_output_projection_choice(f, w.no_output_projection, w.w_o.has_value(), w.b_o.has_value());
}

// g, the number of K/V heads: options.kv_heads, or h when it is 0 (ordinary multi-head attention).
std::size_t kv_heads_of(const MultiHeadAttentionOptions& options, std::size_t heads) {
    return options.kv_heads == 0 ? heads : options.kv_heads;
}

// Every rule of multi-head attention, checked before any arithmetic so that the message names the
// argument at fault rather than the first product that fails. With g < h K/V heads, w_k, w_v, b_k
// and b_v are (g·d_k, D) and (g·d_k): check_shapes makes them agree, check_kv_heads checks g·d_k.
void check_arguments(const std::string& f, const Tensor3& query, const Tensor3& key, const Tensor3& value,
                     const MultiHeadAttentionWeights& w, std::size_t heads, const MultiHeadAttentionOptions& options) {
    const bool grouped = kv_heads_of(options, heads) != heads;
    const std::string kv_width = grouped ? "g·d_k" : "D";
    check_shapes(f, {{"query", query, "B,T,D"}, {"key", key, "B,S,D"}, {"value", value, "B,S,D"},
                     {"w_q", w.w_q, "D,D"}, {"w_k", w.w_k, kv_width + ",D"}, {"w_v", w.w_v, kv_width + ",D"},
                     {"b_q", w.b_q, "D"}, {"b_k", w.b_k, kv_width}, {"b_v", w.b_v, kv_width},
                     {"w_o", w.w_o, "D,D"}, {"b_o", w.b_o, "D"}, {"attention_mask", options.attention_mask, "B,S"}});
    check_output_projection(f, w);
    check_heads(f, query.shape(2), heads, "query " + shape_string(query.shape()));
    detail::check_kv_heads(f, "w_k", w.w_k, query.shape(2), heads, kv_heads_of(options, heads));
    detail::check_mask_and_scale(f, options.attention_mask, options.scale);
    if (options.additive_mask) {
        check_additive_mask(f, *options.additive_mask, query.shape(0) * heads, "B·h", query.shape(1), key.shape(1));
    }
}

// The scores with every mask: causal and padding (−∞), then PyTorch's additive attn_mask.
Tensor4 masked_scores(const Tensor4& scores, const AttentionOptions& options) {
    Tensor4 masked = add_masks(scores, options.causal, options.causal_alignment, options.attention_mask);
    return options.additive_mask ? add_additive_mask(std::move(masked), *options.additive_mask, "multi_head_attention") : masked;
}

// Head j's rows of a (1 or B·h, T, S) additive mask: (1 or B, T, S), for one head at a time.
std::optional<Tensor3> head_rows(const std::optional<Tensor3>& mask, std::size_t B, std::size_t heads, std::size_t j) {
    if (!mask || mask->shape(0) == 1) return mask;
    const std::size_t T = mask->shape(1), S = mask->shape(2);
    Tensor3 rows = Tensor3::from_shape({B, T, S});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < S; ++s) rows(b, t, s) = (*mask)(b * heads + j, t, s);
    return rows;
}

// The projections q, k, v, checked before the heads use them: an overflow there is named where
// it happened, not in the scores it spoils.
void require_finite_projections(const std::string& f, const MultiHeadAttentionResult& r) {
    const std::string why = std::string("the projection x · Wᵀ + b; ") + detail::overflow_advice;
    detail::require_finite(f, "q", r.q, why);
    detail::require_finite(f, "k", r.k, why);
    detail::require_finite(f, "v", r.v, why);
}

double scale_for(const AttentionOptions& options, std::size_t d_k) {
    return options.scale.value_or(1.0 / std::sqrt(double(d_k)));
}

}  // namespace

Tensor4 split_heads(const Tensor3& x, std::size_t heads) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    check_heads("split_heads", D, heads, "x " + shape_string(x.shape()));
    const std::size_t dk = D / heads;
    Tensor4 out = Tensor4::from_shape({B, heads, T, dk});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t i = 0; i < dk; ++i) out(b, j, t, i) = x(b, t, j * dk + i);
    return out;
}

Tensor4 repeat_kv(const Tensor4& x, std::size_t n_rep) {
    if (n_rep == 0) throw InputError("repeat_kv: n_rep must be at least 1");
    const std::size_t B = x.shape(0), g = x.shape(1), S = x.shape(2), dk = x.shape(3);
    Tensor4 out = Tensor4::from_shape({B, g * n_rep, S, dk});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < g * n_rep; ++j)
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t i = 0; i < dk; ++i) out(b, j, s, i) = x(b, j / n_rep, s, i);  // interleaved, not tiled
    return out;
}

Tensor3 merge_heads(const Tensor4& x) {
    const std::size_t B = x.shape(0), heads = x.shape(1), T = x.shape(2), dk = x.shape(3);
    Tensor3 out = Tensor3::from_shape({B, T, heads * dk});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t i = 0; i < dk; ++i) out(b, t, j * dk + i) = x(b, j, t, i);
    return out;
}

// A forgotten out_proj.weight must not pass for seed 000's block without one.
void require_output_projection_choice(const std::string& function, bool no_output_projection, bool has_w_o,
                                      bool has_b_o) {
    if (no_output_projection && (has_w_o || has_b_o)) {
        throw InputError(function + ": no_output_projection is set and " + (has_w_o ? "w_o" : "b_o") +
                         " is given; choose one: the output projection (w_o, b_o) or none");
    }
    if (!no_output_projection && !has_w_o) {
        throw InputError(function + std::string(": w_o is missing") + (has_b_o ? " (b_o is given)" : "") +
                         "; give the output projection's weight w_o (D, D) (PyTorch's out_proj.weight), or set "
                         "no_output_projection = true for a block without one (seed 000)");
    }
}

MultiHeadAttentionWeights split_in_proj(const Matrix& in_proj_weight, const std::optional<Vector>& in_proj_bias) {
    const std::size_t rows = in_proj_weight.shape(0), D = in_proj_weight.shape(1);
    if (rows != 3 * D || D == 0) {
        throw ShapeError("split_in_proj: in_proj_weight " + shape_string(in_proj_weight.shape()) +
                         " must be (3D, D): w_q, w_k and w_v stacked row-wise, as nn.MultiheadAttention stores them");
    }
    if (in_proj_bias && in_proj_bias->shape(0) != 3 * D) {
        throw ShapeError("split_in_proj: in_proj_bias " + shape_string(in_proj_bias->shape()) + " must be (3D) = (" +
                         std::to_string(3 * D) + ") for in_proj_weight " + shape_string(in_proj_weight.shape()));
    }
    auto rows_of_part = [&](std::size_t part) {
        Matrix w = Matrix::from_shape({D, D});
        for (std::size_t i = 0; i < D; ++i)
            for (std::size_t j = 0; j < D; ++j) w(i, j) = in_proj_weight(part * D + i, j);
        return w;
    };
    auto bias_of_part = [&](std::size_t part) {
        Vector b = xt::zeros<double>({D});
        if (in_proj_bias)
            for (std::size_t i = 0; i < D; ++i) b(i) = (*in_proj_bias)(part * D + i);
        return b;
    };
    MultiHeadAttentionWeights w;
    w.w_q = rows_of_part(0), w.w_k = rows_of_part(1), w.w_v = rows_of_part(2);
    w.b_q = bias_of_part(0), w.b_k = bias_of_part(1), w.b_v = bias_of_part(2);
    return w;
}

Tensor3 output_projection(const Tensor3& context, const MultiHeadAttentionWeights& weights) {
    check_output_projection("output_projection", weights);
    if (!weights.w_o) return context;
    return weights.b_o ? linear(context, *weights.w_o, *weights.b_o, "w_o") : linear(context, *weights.w_o, "w_o");
}

MultiHeadAttentionResult multi_head_attention(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                              const MultiHeadAttentionWeights& w, std::size_t heads,
                                              const MultiHeadAttentionOptions& options) {
    const std::string f = "multi_head_attention";
    check_arguments(f, query, key, value, w, heads, options);
    const double scale = scale_for(options, query.shape(2) / heads);
    const std::size_t kv_heads = kv_heads_of(options, heads), n_rep = heads / kv_heads;

    MultiHeadAttentionResult r;
    r.q = linear(query, w.w_q, w.b_q, "w_q");                       // q = query W_qᵀ + b_q   (B, T, D)
    r.k = linear(key, w.w_k, w.b_k, "w_k");                         // k = key W_kᵀ + b_k     (B, S, g·d_k)
    r.v = linear(value, w.w_v, w.b_v, "w_v");                       // v = value W_vᵀ + b_v   (B, S, g·d_k)
    require_finite_projections(f, r);
    r.q_heads = split_heads(r.q, heads);                            // (B, h, T, d_k)
    r.k_heads = split_heads(r.k, kv_heads);                         // (B, g, S, d_k)
    r.v_heads = split_heads(r.v, kv_heads);                         // (B, g, S, d_k)
    const Tensor4 k_shared = n_rep == 1 ? r.k_heads : repeat_kv(r.k_heads, n_rep);  // (B, h, S, d_k)
    const Tensor4 v_shared = n_rep == 1 ? r.v_heads : repeat_kv(r.v_heads, n_rep);  // (B, h, S, d_k)
    r.scores = scale * matmul_transposed(r.q_heads, k_shared);      // q_j k_jᵀ / √d_k       (B, h, T, S)
    detail::require_finite_scores(f, r.scores, "q_heads", "k_heads");
    r.weights = softmax_last_axis(masked_scores(r.scores, options));
    DropoutStep<Tensor4> attended = dropout(r.weights, options.weights_dropout);  // training only
    r.weights_dropout = std::move(attended.mask);
    r.context_heads = matmul(attended.output, v_shared);            // weights_j v_j          (B, h, T, d_k)
    detail::require_finite(f, "context_heads", r.context_heads,
                           std::string("the weighted sum of the value rows of the head; ") + detail::overflow_advice);
    r.context = merge_heads(r.context_heads);                       // the heads side by side (B, T, D)
    r.output = output_projection(r.context, w);                     // context W_oᵀ + b_o     (B, T, D)
    detail::require_finite(f, "output", r.output,
                           std::string("the output projection context · w_oᵀ + b_o; ") + detail::overflow_advice);
    return r;
}

MultiHeadAttentionResult multi_head_attention_per_head(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                       const MultiHeadAttentionWeights& w, std::size_t heads,
                                                       const MultiHeadAttentionOptions& options) {
    const std::string f = "multi_head_attention_per_head";
    check_arguments(f, query, key, value, w, heads, options);
    if (options.weights_dropout.active()) {
        throw InputError(f + ": dropout on the attention weights is multi_head_attention's only; the per-head "
                             "form computes the same attention without it");
    }
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), D = query.shape(2), dk = D / heads;
    const std::size_t kv_heads = kv_heads_of(options, heads), n_rep = heads / kv_heads;
    MultiHeadAttentionResult r;
    r.q = linear(query, w.w_q, w.b_q, "w_q");
    r.k = linear(key, w.w_k, w.b_k, "w_k");
    r.v = linear(value, w.w_v, w.b_v, "w_v");
    require_finite_projections(f, r);
    r.q_heads = Tensor4::from_shape({B, heads, T, dk});
    r.k_heads = Tensor4::from_shape({B, kv_heads, S, dk});
    r.v_heads = Tensor4::from_shape({B, kv_heads, S, dk});
    r.scores = Tensor4::from_shape({B, heads, T, S});
    r.weights = Tensor4::from_shape({B, heads, T, S});
    r.context_heads = Tensor4::from_shape({B, heads, T, dk});
    r.context = Tensor3::from_shape({B, T, D});
    AttentionOptions head_options = options;
    head_options.scale = scale_for(options, dk);
    // Head `head` of x: its features head·d_k … (head+1)·d_k − 1.
    auto columns = [&](const Tensor3& x, std::size_t positions, std::size_t head) {
        Tensor3 slice = Tensor3::from_shape({B, positions, dk});
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t t = 0; t < positions; ++t)
                for (std::size_t i = 0; i < dk; ++i) slice(b, t, i) = x(b, t, head * dk + i);
        return slice;
    };
    for (std::size_t j = 0; j < heads; ++j) {
        // Query head j reads K/V head j / (h/g): the group it belongs to.
        const std::size_t kv = j / n_rep;
        const Tensor3 qj = columns(r.q, T, j), kj = columns(r.k, S, kv), vj = columns(r.v, S, kv);
        head_options.additive_mask = head_rows(options.additive_mask, B, heads, j);
        const ScaledDotProductAttentionResult head = scaled_dot_product_attention(qj, kj, vj, head_options);
        for (std::size_t b = 0; b < B; ++b) {
            for (std::size_t t = 0; t < T; ++t) {
                for (std::size_t i = 0; i < dk; ++i) {
                    r.q_heads(b, j, t, i) = qj(b, t, i);
                    r.context_heads(b, j, t, i) = head.output(b, t, i);
                    r.context(b, t, j * dk + i) = head.output(b, t, i);  // concatenation, feature-wise
                }
                for (std::size_t s = 0; s < S; ++s) {
                    r.scores(b, j, t, s) = head.scores(b, t, s);
                    r.weights(b, j, t, s) = head.weights(b, t, s);
                }
            }
            for (std::size_t s = 0; s < S; ++s) {
                for (std::size_t i = 0; i < dk; ++i) {
                    r.k_heads(b, kv, s, i) = kj(b, s, i);
                    r.v_heads(b, kv, s, i) = vj(b, s, i);
                }
            }
        }
    }
    r.output = output_projection(r.context, w);
    detail::require_finite(f, "output", r.output,
                           std::string("the output projection context · w_oᵀ + b_o; ") + detail::overflow_advice);
    return r;
}

}  // namespace attn
