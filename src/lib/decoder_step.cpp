// One cached step of a Transformer decoder layer (attn/generation.hpp, lesson 9).
//
// The layer of src/lib/decoder_layer.cpp on the n new rows only: self-attention through the
// layer's KV cache (append, then attend: bottom-right), cross-attention over the memory's keys and
// values projected once, the feed-forward network, each with its residual and norm. Shapes:
// x_new (B, n, D); cached keys and values (B, g, P, d_k); the memory's (B, g, S, d_k).
#include <cmath>

#include "attention_arguments.hpp"
#include "attn/error.hpp"
#include "attn/generation.hpp"
#include "attn/linear.hpp"
#include "attn/masks.hpp"
#include "attn/matmul.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "finite.hpp"

namespace attn {

namespace {

// The weights of one attention block ("self_attention" or "cross_attention") for h heads of which
// g are K/V heads: w_q, w_o (D, D), w_k, w_v (g·d_k, D), biases to match, D fixed by `x`.
void check_attention_block(const std::string& f, const std::string& block, const MultiHeadAttentionWeights& w,
                           const NamedShape& x, std::size_t heads, std::size_t kv_heads) {
    const std::string p = block + ".", kv = kv_heads == heads ? "D" : "g·d_k";
    const ShapeLetters letters = check_shapes(
        f, {x, {p + "w_q", w.w_q, "D,D"}, {p + "w_k", w.w_k, kv + ",D"}, {p + "w_v", w.w_v, kv + ",D"},
            {p + "b_q", w.b_q, "D"}, {p + "b_k", w.b_k, kv}, {p + "b_v", w.b_v, kv}, {p + "w_o", w.w_o, "D,D"},
            {p + "b_o", w.b_o, "D"}});
    require_output_projection_choice(f, w.no_output_projection, w.w_o.has_value(), w.b_o.has_value());
    const std::size_t D = letters.at("D");
    if (heads == 0) {
        throw InputError(f + ": the number of heads is not set; give DecoderLayerOptions::heads (nn.TransformerDecoderLayer's "
                         "nhead)");
    }
    if (D % heads != 0) {
        throw ShapeError(f + ": d_model D = " + std::to_string(D) + " is not a multiple of the number of heads h = " +
                         std::to_string(heads) + "; each head gets d_k = D / h features, so h must divide D");
    }
    detail::check_kv_heads(f, p + "w_k", w.w_k, D, heads, kv_heads);
}

// x Wᵀ + b split into `heads` heads: (B, P, D) → (B, heads, P, d_k).
Tensor4 projected_heads(const Tensor3& x, const Matrix& w, const Vector& b, std::size_t heads, const std::string& name) {
    return split_heads(linear(x, w, b, name), heads);
}

// What the decoder layer refuses to do with a cache: every mask but the memory's padding.
void check_step_options(const std::string& f, const DecoderLayerOptions& options) {
    if (!options.causal) {
        throw InputError(f + ": options.causal is false, but a cached step is causal by construction (the cache holds "
                         "only the past); set causal = true, as for transformer_decoder_layer on the whole prefix");
    }
    if (options.tgt_mask || options.tgt_attention_mask || options.memory_mask) {
        throw InputError(f + ": tgt_mask, tgt_attention_mask and memory_mask are not supported by a cached step (their "
                         "(T, ·) grids grow with the prefix); only memory_attention_mask (B, S) applies");
    }
    if (!(options.eps > 0.0)) throw InputError(f + ": eps must be a positive number, got " + std::to_string(options.eps));
}

// The new queries' attention over the whole memory: no causal mask, its padding hidden.
Tensor3 cross_attention(const Tensor3& queries, const DecoderLayerCache& cache, const MultiHeadAttentionWeights& w,
                        std::size_t heads, const std::optional<Matrix>& memory_attention_mask, Tensor4& weights) {
    const Tensor4 q = projected_heads(queries, w.w_q, w.b_q, heads, "cross_attention.w_q");  // (B, h, n, d_k)
    const std::size_t n_rep = heads / cache.memory_keys.shape(1);
    const Tensor4 scores = (1.0 / std::sqrt(double(q.shape(3)))) * matmul_transposed(q, repeat_kv(cache.memory_keys, n_rep));
    detail::require_finite_scores("decoder_layer_step", scores, "cross_attention q", "memory_keys");
    weights = softmax_last_axis(add_masks(scores, false, CausalAlignment::top_left, memory_attention_mask));
    const Tensor4 context = matmul(weights, repeat_kv(cache.memory_values, n_rep));  // (B, h, n, d_k)
    return output_projection(merge_heads(context), w);
}

}  // namespace

DecoderLayerCache start_decoder_layer_cache(const Tensor3& memory, const DecoderLayerWeights& weights, std::size_t heads,
                                            std::size_t kv_heads) {
    const std::string f = "start_decoder_layer_cache";
    const std::size_t g = kv_heads == 0 ? heads : kv_heads;
    const NamedShape memory_shape("memory", memory, "B,S,D");
    check_attention_block(f, "self_attention", weights.self_attention, memory_shape, heads, g);
    check_attention_block(f, "cross_attention", weights.cross_attention, memory_shape, heads, g);
    detail::require_finite(f, "memory", memory, detail::overflow_advice);
    const auto& w = weights.cross_attention;
    DecoderLayerCache cache{KVCache(memory.shape(0), g, memory.shape(2) / heads),
                            projected_heads(memory, w.w_k, w.b_k, g, "cross_attention.w_k"),
                            projected_heads(memory, w.w_v, w.b_v, g, "cross_attention.w_v")};
    detail::require_finite(f, "memory_keys", cache.memory_keys, detail::overflow_advice);
    detail::require_finite(f, "memory_values", cache.memory_values, detail::overflow_advice);
    return cache;
}

DecoderLayerCachedStep decoder_layer_step(const Tensor3& x_new, DecoderLayerCache& cache, const DecoderLayerWeights& w,
                                          const DecoderLayerOptions& options) {
    const std::string f = "decoder_layer_step";
    check_step_options(f, options);
    const std::size_t heads = options.heads, g = cache.self_attention.kv_heads();
    const NamedShape x_shape("x_new", x_new, "B,n,D");
    check_attention_block(f, "self_attention", w.self_attention, x_shape, heads, g);
    check_attention_block(f, "cross_attention", w.cross_attention, x_shape, heads, cache.memory_keys.shape(1));
    check_shapes(f, {x_shape, {"the cache's memory_keys", cache.memory_keys, "B,g,S,d_k"},
                     {"the cache's memory_values", cache.memory_values, "B,g,S,d_k"},
                     {"norm1_weight", w.norm1_weight, "D"}, {"norm1_bias", w.norm1_bias, "D"},
                     {"norm2_weight", w.norm2_weight, "D"}, {"norm2_bias", w.norm2_bias, "D"},
                     {"norm3_weight", w.norm3_weight, "D"}, {"norm3_bias", w.norm3_bias, "D"},
                     {"linear1_weight", w.linear1_weight, "F,D"}, {"linear1_bias", w.linear1_bias, "F"},
                     {"linear2_weight", w.linear2_weight, "D,F"}, {"linear2_bias", w.linear2_bias, "D"},
                     {"memory_attention_mask", options.memory_attention_mask, "B,S"}});
    const std::size_t d_k = x_new.shape(2) / heads;
    if (cache.self_attention.batch() != x_new.shape(0) || cache.self_attention.head_width() != d_k ||
        cache.memory_keys.shape(3) != d_k) {
        throw ShapeError(f + ": x_new " + shape_string(x_new.shape()) + " with h = " + std::to_string(heads) +
                         " heads of d_k = " + std::to_string(d_k) + " does not fit the cache, whose keys are " +
                         shape_string(cache.self_attention.keys().shape()) + " (B, g, P, d_k); start the cache with "
                         "start_decoder_layer_cache for this layer");
    }
    detail::require_finite(f, "x_new", x_new, detail::overflow_advice);
    const auto norm = [&](const Tensor3& y, const Vector& weight, const Vector& bias) {
        return layer_norm(y, weight, bias, options.eps);
    };
    const bool pre_norm = options.norm_first;
    const auto& sa = w.self_attention;

    DecoderLayerCachedStep step;
    // 1. Self-attention: the new rows' k and v join the cache, then their queries attend over it.
    step.self_attention_input = pre_norm ? norm(x_new, w.norm1_weight, w.norm1_bias) : x_new;
    const Tensor3& a = step.self_attention_input;
    cache.self_attention.append(projected_heads(a, sa.w_k, sa.b_k, g, "self_attention.w_k"),
                                projected_heads(a, sa.w_v, sa.b_v, g, "self_attention.w_v"));
    step.self_attention = attend(projected_heads(a, sa.w_q, sa.b_q, heads, "self_attention.w_q"), cache.self_attention);
    step.self_attention_output = output_projection(merge_heads(step.self_attention.context), sa);
    const Tensor3 self_residual = x_new + step.self_attention_output;
    step.after_self_attention = pre_norm ? self_residual : norm(self_residual, w.norm1_weight, w.norm1_bias);
    // 2. Cross-attention over the memory, whose keys and values the cache already holds.
    step.cross_attention_input = pre_norm ? norm(step.after_self_attention, w.norm2_weight, w.norm2_bias)
                                          : step.after_self_attention;
    step.cross_attention_output = cross_attention(step.cross_attention_input, cache, w.cross_attention, heads,
                                                  options.memory_attention_mask, step.cross_attention_weights);
    const Tensor3 cross_residual = step.after_self_attention + step.cross_attention_output;
    step.after_cross_attention = pre_norm ? cross_residual : norm(cross_residual, w.norm2_weight, w.norm2_bias);
    // 3. The feed-forward network on the new rows.
    const Tensor3 ffn_input = pre_norm ? norm(step.after_cross_attention, w.norm3_weight, w.norm3_bias)
                                       : step.after_cross_attention;
    const FeedForwardStep ffn = feed_forward(rows_of(ffn_input), w.linear1_weight, w.linear1_bias, w.linear2_weight,
                                             w.linear2_bias, options.activation);
    step.ffn_output = positions_of(ffn.output, x_new.shape(0), x_new.shape(1));
    const Tensor3 ffn_residual = step.after_cross_attention + step.ffn_output;
    step.output = pre_norm ? ffn_residual : norm(ffn_residual, w.norm3_weight, w.norm3_bias);
    detail::require_finite(f, "output", step.output, detail::overflow_advice);
    return step;
}

}  // namespace attn
