// attn/kv_cache.hpp — lesson 9: generating with a KV cache, the keys and values of the tokens
// already seen, kept instead of recomputed.
//
// Why: a decoder generates one token at a time, and with a causal mask a token's key and value
// never change once computed — later tokens cannot alter what an earlier position sees. Re-running
// the whole prefix at every step recomputes all of them (step t costs t projections); the cache
// keeps them, so step t projects only the new token, appends its k and v, and attends with its
// one query over the P cached positions. The new token must see itself: append, then attend.
//
// The new queries are the cache's last n positions, so the causal mask is lesson 4's bottom-right
// alignment: new query t sees cached keys 0 … P − n + t. With grouped-query attention the cache
// holds g K/V heads, and query head j reads K/V head j / (h/g) (repeat_kv): the cache shrinks by
// h / g, which is why it is there.
//
// Shapes: B batch · g K/V heads · h query heads · n new tokens · P cached positions · d_k head width
//   append: k_new, v_new (B, g, n, d_k)          keys(), values() (B, g, P, d_k)
//   attend: q_new (B, h, n, d_k) → scores, weights (B, h, n, P), context (B, h, n, d_k)
//
//   attn::KVCache cache(1, 1, 2);                       // B = 1, g = 1, d_k = 2
//   cache.append(attn::Tensor4{{{{1, 0}}}}, attn::Tensor4{{{{10, 0}}}});
//   cache.append(attn::Tensor4{{{{0, 1}}}}, attn::Tensor4{{{{0, 10}}}});
//   auto r = attn::attend(attn::Tensor4{{{{0, 1}}}}, cache);   // the second token's query
//   // r.scores {{{{0, 0.7071}}}}  r.weights {{{{0.3302, 0.6698}}}}  r.context {{{{3.302, 6.698}}}}
//   attn::kv_cache_bytes_per_token(12, 12, 64, 2);      // GPT-2 small in float16: 36864 bytes
#pragma once

#include <cstddef>
#include <optional>

#include "attn/tensor.hpp"

namespace attn {

/// The keys and values of one attention layer for the positions generated so far.
class KVCache {
public:
    /// An empty cache (P = 0). InputError when a size is 0.
    KVCache(std::size_t batch, std::size_t kv_heads, std::size_t d_k);

    /// Adds n positions at the end: keys() becomes (B, g, P + n, d_k). ShapeError naming k_new or
    /// v_new and the shape they must have (B, g, n, d_k), both the same n ≥ 1; InputError when a
    /// value is NaN or ±∞ (a cached NaN would poison every later step).
    void append(const Tensor4& k_new, const Tensor4& v_new);

    std::size_t length() const;          // P, the positions cached
    std::size_t batch() const;           // B
    std::size_t kv_heads() const;        // g
    std::size_t head_width() const;      // d_k
    const Tensor4& keys() const;         // (B, g, P, d_k)
    const Tensor4& values() const;       // (B, g, P, d_k)

private:
    Tensor4 keys_, values_;
};

/// Every intermediate of the new queries' attention over the cache.
struct CachedAttentionResult {
    Tensor4 scores;   // (B, h, n, P) q k_jᵀ · scale, before the causal mask
    Tensor4 weights;  // (B, h, n, P) softmax over the visible cached positions
    Tensor4 context;  // (B, h, n, d_k) weights · v
};

/// The n new queries attend over the cache, whose last n positions they are (bottom-right causal
/// alignment; n = 1 sees everything). Call append first: the new token must see itself. scale
/// defaults to 1/√d_k. ShapeError when q_new's B or d_k differs from the cache's, InputError when
/// the cache's g does not divide h, when n is more than the cached P, or when a score or the
/// context is NaN or ±∞.
CachedAttentionResult attend(const Tensor4& q_new, const KVCache& cache, std::optional<double> scale = {});

/// The cache's size per generated token: 2 (keys and values) · layers · g · d_k · bytes per value.
/// InputError when the product does not fit in std::size_t.
std::size_t kv_cache_bytes_per_token(std::size_t layers, std::size_t kv_heads, std::size_t d_k,
                                     std::size_t bytes_per_value);

}  // namespace attn
