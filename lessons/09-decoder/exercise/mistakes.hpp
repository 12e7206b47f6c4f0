// lessons/09-decoder/exercise/mistakes.hpp — lesson 9's classic mistakes (cross-attention and one
// cached decoding step with grouped-query attention), made on purpose.
//
//   cross-attention: tgt (B, T, D), memory (B, S, D), weights w_q … w_o (nn.Linear layout), h
//   heads, memory_mask (B, S) 1 = attend → attn::multi_head_attention(tgt, memory, memory, …)
//   decoding step: q (B, h, n, d_k), k and v (B, g, n, d_k), k_cache and v_cache (B, g, P, d_k)
//   → the grown cache (B, g, P + n, d_k), weights (B, h, n, P + n), context (B, h, n, d_k)
//
// Each computes the whole result the way its mistake does, with the library's PyTorch-tested
// attention (attn::multi_head_attention, attn::scaled_dot_product_attention); nothing else changes.
//
//   attn::mistakes::cross_attention_causal(tgt, memory, w, 2, mask).weights;  // query 0 sees memory token 0 only
#pragma once

#include <cstddef>
#include <functional>

#include "attn/multi_head_attention.hpp"

namespace attn::mistakes {

/// Cross-attention with the decoder's causal mask (top-left, PyTorch's tgt_mask passed as
/// memory_mask): decoder position t sees memory positions 0 … t only, where it may see all of
/// them. The same when T = 1.
MultiHeadAttentionResult cross_attention_causal(const Tensor3& tgt, const Tensor3& memory,
                                                const MultiHeadAttentionWeights& weights, std::size_t heads,
                                                const Matrix& memory_mask);

/// Cross-attention with the queries projected from the memory instead of the decoder: the
/// encoder's self-attention, (B, S, …) where (B, T, …) is expected — a shape that differs when
/// T ≠ S, numbers that differ when T = S.
MultiHeadAttentionResult cross_attention_queries_from_memory(const Tensor3& memory,
                                                             const MultiHeadAttentionWeights& weights,
                                                             std::size_t heads, const Matrix& memory_mask);

/// Cross-attention that ignores the memory's padding mask: the padding positions get weight. The
/// same when nothing is padding.
MultiHeadAttentionResult cross_attention_mask_ignored(const Tensor3& tgt, const Tensor3& memory,
                                                      const MultiHeadAttentionWeights& weights, std::size_t heads);

/// One cached decoding step, every tensor it returns.
struct CachedDecodingStep {
    Tensor4 k_cache, v_cache;  // (B, g, P + n, d_k)
    Tensor4 masked_scores;     // (B, h, n, keys) q · k / √d_k, −∞ where the causal mask hides a key
    Tensor4 weights;           // (B, h, n, keys)
    Tensor4 context;           // (B, h, n, d_k)
};

/// Which K/V head query head j reads, out of h query heads and g K/V heads.
using KvHeadOf = std::function<std::size_t(std::size_t j, std::size_t h, std::size_t g)>;

/// repeat_interleave (Hugging Face's repeat_kv): query heads j·(h/g) … (j+1)·(h/g) − 1 read K/V head j.
std::size_t kv_head_interleaved(std::size_t j, std::size_t h, std::size_t g);

/// attn::scaled_dot_product_attention for each query head j of q (B, h, n, d_k) over K/V head
/// kv_head_of(j, h, g) of keys and values (B, g, S, d_k), with the causal mask aligned
/// `alignment`: masked scores and weights (B, h, n, S), context (B, h, n, d_k). With kv_head_interleaved and
/// bottom_right over the grown cache, the right step.
void attend_query_heads(const Tensor4& q, const Tensor4& keys, const Tensor4& values, const KvHeadOf& kv_head_of,
                        CausalAlignment alignment, CachedDecodingStep& step);

/// cache (B, g, P, d_k) with fresh (B, g, n, d_k) appended along the positions: (B, g, P + n, d_k).
Tensor4 appended_to_cache(const Tensor4& cache, const Tensor4& fresh);

/// The cache used before the new keys and values are appended: the new tokens attend over the P
/// cached positions only (bottom-right over those), so none sees itself; the returned cache is
/// grown right. weights (B, h, n, P).
CachedDecodingStep cache_appended_after_use(const Tensor4& q, const Tensor4& k, const Tensor4& v, const Tensor4& k_cache,
                                            const Tensor4& v_cache);

/// The causal mask aligned top-left over the grown cache: new query i sees keys 0 … i, the
/// oldest cached positions, instead of 0 … P + i.
CachedDecodingStep cached_step_top_left(const Tensor4& q, const Tensor4& k, const Tensor4& v, const Tensor4& k_cache,
                                        const Tensor4& v_cache);

/// The K/V heads shared by `repeat` (a tile) instead of `repeat_interleave`: query head j reads
/// K/V head j mod g instead of j / (h/g). The same when g = 1 or g = h.
CachedDecodingStep cached_step_kv_heads_tiled(const Tensor4& q, const Tensor4& k, const Tensor4& v,
                                              const Tensor4& k_cache, const Tensor4& v_cache);

}  // namespace attn::mistakes
