#include "09-decoder/exercise/mistakes.hpp"

#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include "attn/scaled_dot_product_attention.hpp"

namespace attn::mistakes {

MultiHeadAttentionResult cross_attention_causal(const Tensor3& tgt, const Tensor3& memory,
                                                const MultiHeadAttentionWeights& weights, std::size_t heads,
                                                const Matrix& memory_mask) {
    AttentionOptions options;
    options.causal = true;
    options.attention_mask = memory_mask;
    return multi_head_attention(tgt, memory, memory, weights, heads, options);
}

MultiHeadAttentionResult cross_attention_queries_from_memory(const Tensor3& memory,
                                                             const MultiHeadAttentionWeights& weights,
                                                             std::size_t heads, const Matrix& memory_mask) {
    AttentionOptions options;
    options.attention_mask = memory_mask;
    return multi_head_attention(memory, memory, memory, weights, heads, options);
}

MultiHeadAttentionResult cross_attention_mask_ignored(const Tensor3& tgt, const Tensor3& memory,
                                                      const MultiHeadAttentionWeights& weights, std::size_t heads) {
    return multi_head_attention(tgt, memory, memory, weights, heads);
}

std::size_t kv_head_interleaved(std::size_t j, std::size_t h, std::size_t g) { return j / (h / g); }

void attend_query_heads(const Tensor4& q, const Tensor4& keys, const Tensor4& values, const KvHeadOf& kv_head_of,
                        CausalAlignment alignment, CachedDecodingStep& step) {
    const std::size_t h = q.shape(1), g = keys.shape(1);
    step.weights = Tensor4::from_shape({q.shape(0), h, q.shape(2), keys.shape(2)});
    step.masked_scores = step.weights;
    step.context = Tensor4::from_shape({q.shape(0), h, q.shape(2), values.shape(3)});
    AttentionOptions options;
    options.causal = true;
    options.causal_alignment = alignment;
    for (std::size_t j = 0; j < h; ++j) {
        const std::size_t kv = kv_head_of(j, h, g);
        const Tensor3 Q = xt::view(q, xt::all(), j), K = xt::view(keys, xt::all(), kv), V = xt::view(values, xt::all(), kv);
        const ScaledDotProductAttentionResult head = scaled_dot_product_attention(Q, K, V, options);
        xt::view(step.masked_scores, xt::all(), j) = head.masked_scores;
        xt::view(step.weights, xt::all(), j) = head.weights;
        xt::view(step.context, xt::all(), j) = head.output;
    }
}

Tensor4 appended_to_cache(const Tensor4& cache, const Tensor4& fresh) {
    return xt::concatenate(xt::xtuple(cache, fresh), 2);
}

namespace {

// The grown cache, and attention over `keys`/`values` with the K/V heads and alignment given.
CachedDecodingStep step_with(const Tensor4& q, const Tensor4& k, const Tensor4& v, const Tensor4& k_cache,
                             const Tensor4& v_cache, bool over_old_cache, const KvHeadOf& kv_head_of,
                             CausalAlignment alignment) {
    CachedDecodingStep step;
    step.k_cache = appended_to_cache(k_cache, k);
    step.v_cache = appended_to_cache(v_cache, v);
    attend_query_heads(q, over_old_cache ? k_cache : step.k_cache, over_old_cache ? v_cache : step.v_cache, kv_head_of,
                       alignment, step);
    return step;
}

std::size_t kv_head_tiled(std::size_t j, std::size_t, std::size_t g) { return j % g; }

}  // namespace

CachedDecodingStep cache_appended_after_use(const Tensor4& q, const Tensor4& k, const Tensor4& v, const Tensor4& k_cache,
                                            const Tensor4& v_cache) {
    return step_with(q, k, v, k_cache, v_cache, true, kv_head_interleaved, CausalAlignment::bottom_right);
}

CachedDecodingStep cached_step_top_left(const Tensor4& q, const Tensor4& k, const Tensor4& v, const Tensor4& k_cache,
                                        const Tensor4& v_cache) {
    return step_with(q, k, v, k_cache, v_cache, false, kv_head_interleaved, CausalAlignment::top_left);
}

CachedDecodingStep cached_step_kv_heads_tiled(const Tensor4& q, const Tensor4& k, const Tensor4& v,
                                              const Tensor4& k_cache, const Tensor4& v_cache) {
    return step_with(q, k, v, k_cache, v_cache, false, kv_head_tiled, CausalAlignment::bottom_right);
}

}  // namespace attn::mistakes
