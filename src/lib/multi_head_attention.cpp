#include "attn/multi_head_attention.hpp"

#include <cmath>

#include "attention_block.hpp"
#include "finite.hpp"
#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/masks.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

std::string with_shape(const std::string& name, const std::vector<std::size_t>& shape) {
    return name + " " + shape_string(shape);
}

template <class Tensor>
std::vector<std::size_t> shape_of(const Tensor& t) {
    return std::vector<std::size_t>(t.shape().begin(), t.shape().end());
}

std::string heads_message(const char* function, std::size_t D, std::size_t heads, const std::string& owner) {
    return std::string(function) + ": d_model D = " + std::to_string(D) + " (the last dimension of " + owner +
           ") is not a multiple of the number of heads h = " + std::to_string(heads) +
           "; each head gets d_k = D / h features, so h must divide D";
}

void check_heads(const char* function, std::size_t D, std::size_t heads, const std::string& owner) {
    if (heads == 0) throw ShapeError(std::string(function) + ": the number of heads must be at least 1");
    if (D % heads != 0) throw ShapeError(heads_message(function, D, heads, owner));
}

// Every shape rule of multi-head attention, checked before any arithmetic so that the message
// names the argument at fault rather than the first product that fails.
void check_arguments(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                     const MultiHeadAttentionWeights& w, std::size_t heads, const AttentionOptions& options) {
    const char* f = "multi_head_attention";
    const std::string inputs = with_shape("query", shape_of(query)) + " (B, T, D), " + with_shape("key", shape_of(key)) +
                               " (B, S, D), " + with_shape("value", shape_of(value)) + " (B, S, D)";
    for (const auto* t : {&query, &key, &value}) {
        for (std::size_t size : t->shape()) {
            if (size == 0) throw ShapeError(std::string(f) + ": a size is zero in " + inputs + "; every dimension must be at least 1");
        }
    }
    if (key.shape(0) != query.shape(0) || value.shape(0) != query.shape(0)) {
        throw ShapeError(std::string(f) + ": the batch sizes B differ: " + inputs);
    }
    if (key.shape(2) != query.shape(2) || value.shape(2) != query.shape(2)) {
        throw ShapeError(std::string(f) + ": query, key and value must have the same width D: " + inputs);
    }
    if (value.shape(1) != key.shape(1)) {
        throw ShapeError(std::string(f) + ": key and value must have the same number of positions S: " + inputs);
    }
    const std::size_t D = query.shape(2);
    const std::string square = shape_string(std::vector<std::size_t>{D, D});
    const std::string vector = shape_string(std::vector<std::size_t>{D});
    auto check_weight = [&](const char* name, const Matrix& m) {
        if (m.shape(0) != D || m.shape(1) != D) {
            throw ShapeError(std::string(f) + ": " + with_shape(name, shape_of(m)) + " but it must be (D, D) = " + square +
                             " for D = " + std::to_string(D) + ", the width of " + with_shape("query", shape_of(query)));
        }
    };
    auto check_bias = [&](const char* name, const Vector& b) {
        if (b.shape(0) != D) {
            throw ShapeError(std::string(f) + ": " + with_shape(name, shape_of(b)) + " but it must be (D) = " + vector +
                             " for D = " + std::to_string(D) + ", the width of " + with_shape("query", shape_of(query)));
        }
    };
    check_weight("w_q", w.w_q);
    check_weight("w_k", w.w_k);
    check_weight("w_v", w.w_v);
    check_bias("b_q", w.b_q);
    check_bias("b_k", w.b_k);
    check_bias("b_v", w.b_v);
    if (w.w_o) check_weight("w_o", *w.w_o);
    if (w.b_o) {
        if (!w.w_o) throw InputError(std::string(f) + ": b_o is given without w_o; the output projection needs its weight w_o (D, D)");
        check_bias("b_o", *w.b_o);
    }
    check_heads(f, D, heads, with_shape("query", shape_of(query)));
    if (options.attention_mask) {
        const Matrix& mask = *options.attention_mask;
        if (mask.shape(0) != query.shape(0) || mask.shape(1) != key.shape(1)) {
            throw ShapeError(std::string(f) + ": attention_mask has shape " + shape_string(mask.shape()) +
                             " but it must be (B, S) = " +
                             shape_string(std::vector<std::size_t>{query.shape(0), key.shape(1)}) +
                             ", one value per key of each batch item: " + inputs);
        }
        check_attention_mask(mask);
    }
    if (options.scale && !std::isfinite(*options.scale)) throw InputError(std::string(f) + ": the scale must be a finite number");
}

struct Projections {
    Tensor3 q, k, v;
};

Projections project(const Tensor3& query, const Tensor3& key, const Tensor3& value, const MultiHeadAttentionWeights& w) {
    return {linear(query, w.w_q, w.b_q, "w_q"), linear(key, w.w_k, w.b_k, "w_k"), linear(value, w.w_v, w.b_v, "w_v")};
}

Tensor3 output_projection(const Tensor3& context, const MultiHeadAttentionWeights& w) {
    if (!w.w_o) return context;
    return w.b_o ? linear(context, *w.w_o, *w.b_o, "w_o") : linear(context, *w.w_o, "w_o");
}

// What both forms start with: the projections, and room for the per-head results.
MultiHeadAttentionResult projected(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                   const MultiHeadAttentionWeights& weights, std::size_t heads) {
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), dk = query.shape(2) / heads;
    MultiHeadAttentionResult r;
    Projections p = project(query, key, value, weights);
    r.q = std::move(p.q);
    r.k = std::move(p.k);
    r.v = std::move(p.v);
    r.scores = Tensor4::from_shape({B, heads, T, S});
    r.weights = Tensor4::from_shape({B, heads, T, S});
    r.context_heads = Tensor4::from_shape({B, heads, T, dk});
    return r;
}

// The projections q, k, v, checked before the heads use them: an overflow there is named where
// it happened, not in the scores it spoils.
void require_finite_projections(const MultiHeadAttentionResult& r) {
    const std::string why = std::string("the projection x · Wᵀ + b; ") + detail::overflow_advice;
    detail::require_finite("multi_head_attention", "q", r.q, why);
    detail::require_finite("multi_head_attention", "k", r.k, why);
    detail::require_finite("multi_head_attention", "v", r.v, why);
}

// The error for a non-finite score or context value of head j of batch item b.
void report_non_finite(const detail::NonFiniteAt& bad, const MultiHeadAttentionResult& r, std::size_t b, std::size_t j) {
    const std::size_t heads = r.scores.shape(1), T = r.scores.shape(2), S = r.scores.shape(3), dk = r.context_heads.shape(3);
    const std::size_t head = b * heads + j;
    if (bad.tensor == detail::NonFiniteAt::Tensor::scores) {
        const std::size_t t = bad.index / S, s = bad.index % S;
        const std::string at = std::to_string(b) + ", " + std::to_string(j) + ", ";
        detail::throw_non_finite("multi_head_attention", "scores", {r.scores.shape().begin(), r.scores.shape().end()},
                                 head * T * S + bad.index, r.scores.data()[head * T * S + bad.index],
                                 "q_heads[" + at + std::to_string(t) + "] · k_heads[" + at + std::to_string(s) +
                                     "] / √d_k; " + detail::overflow_advice);
    }
    if (bad.tensor == detail::NonFiniteAt::Tensor::output) {
        detail::throw_non_finite("multi_head_attention", "context_heads",
                                 {r.context_heads.shape().begin(), r.context_heads.shape().end()}, head * T * dk + bad.index,
                                 r.context_heads.data()[head * T * dk + bad.index],
                                 std::string("the weighted sum of the value rows of the head; ") + detail::overflow_advice);
    }
}

double scale_for(const AttentionOptions& options, std::size_t dk) {
    return options.scale ? *options.scale : 1.0 / std::sqrt(double(dk));
}

}  // namespace

Tensor4 split_heads(const Tensor3& x, std::size_t heads) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    check_heads("split_heads", D, heads, with_shape("x", shape_of(x)));
    const std::size_t dk = D / heads;
    Tensor4 out = Tensor4::from_shape({B, heads, T, dk});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t i = 0; i < dk; ++i) out(b, j, t, i) = x(b, t, j * dk + i);
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

MultiHeadAttentionResult multi_head_attention(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                              const MultiHeadAttentionWeights& weights, std::size_t heads,
                                              const AttentionOptions& options) {
    check_arguments(query, key, value, weights, heads, options);
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), D = query.shape(2), dk = D / heads;
    MultiHeadAttentionResult r = projected(query, key, value, weights, heads);
    require_finite_projections(r);
    r.q_heads = split_heads(r.q, heads);
    r.k_heads = split_heads(r.k, heads);
    r.v_heads = split_heads(r.v, heads);
    detail::AttentionBlock block;
    block.queries = T;
    block.keys = S;
    block.key_width = dk;
    block.value_width = dk;
    block.scale = scale_for(options, dk);
    block.causal = options.causal;
    block.causal_alignment = options.causal_alignment;
    // After split_heads every (b, j) block is contiguous: q_heads[b, j] is a (T × d_k) matrix.
    for (std::size_t b = 0; b < B; ++b) {
        block.keep_key = options.attention_mask ? options.attention_mask->data() + b * S : nullptr;
        for (std::size_t j = 0; j < heads; ++j) {
            const std::size_t head = b * heads + j;
            block.q = r.q_heads.data() + head * T * dk;
            block.k = r.k_heads.data() + head * S * dk;
            block.v = r.v_heads.data() + head * S * dk;
            const detail::NonFiniteAt bad = detail::attend_block(block, r.scores.data() + head * T * S, nullptr,
                                                                 r.weights.data() + head * T * S,
                                                                 r.context_heads.data() + head * T * dk);
            report_non_finite(bad, r, b, j);
        }
    }
    r.context = merge_heads(r.context_heads);
    r.output = output_projection(r.context, weights);
    detail::require_finite("multi_head_attention", "output", r.output,
                           std::string("the output projection context · w_oᵀ + b_o; ") + detail::overflow_advice);
    return r;
}

MultiHeadAttentionResult multi_head_attention_per_head(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                       const MultiHeadAttentionWeights& weights, std::size_t heads,
                                                       const AttentionOptions& options) {
    check_arguments(query, key, value, weights, heads, options);
    const std::size_t B = query.shape(0), T = query.shape(1), S = key.shape(1), D = query.shape(2), dk = D / heads;
    MultiHeadAttentionResult r = projected(query, key, value, weights, heads);
    require_finite_projections(r);
    r.q_heads = Tensor4::from_shape({B, heads, T, dk});
    r.k_heads = Tensor4::from_shape({B, heads, S, dk});
    r.v_heads = Tensor4::from_shape({B, heads, S, dk});
    r.context = Tensor3::from_shape({B, T, D});
    AttentionOptions head_options = options;
    head_options.scale = scale_for(options, dk);
    for (std::size_t j = 0; j < heads; ++j) {
        // Head j sees features j·d_k … (j+1)·d_k − 1 of q, k and v.
        auto columns = [&](const Tensor3& x, std::size_t positions) {
            Tensor3 slice = Tensor3::from_shape({B, positions, dk});
            for (std::size_t b = 0; b < B; ++b)
                for (std::size_t t = 0; t < positions; ++t)
                    for (std::size_t i = 0; i < dk; ++i) slice(b, t, i) = x(b, t, j * dk + i);
            return slice;
        };
        const Tensor3 qj = columns(r.q, T), kj = columns(r.k, S), vj = columns(r.v, S);
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
                    r.k_heads(b, j, s, i) = kj(b, s, i);
                    r.v_heads(b, j, s, i) = vj(b, s, i);
                }
            }
        }
    }
    r.output = output_projection(r.context, weights);
    detail::require_finite("multi_head_attention_per_head", "output", r.output,
                           std::string("the output projection context · w_oᵀ + b_o; ") + detail::overflow_advice);
    return r;
}

}  // namespace attn
