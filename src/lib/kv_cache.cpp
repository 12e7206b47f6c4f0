// The KV cache (lesson 9): keys and values appended position by position, and the new queries'
// attention over them with lesson 4's bottom-right causal mask.
#include "attn/kv_cache.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "attn/matmul.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "finite.hpp"

namespace attn {

namespace {

// The positions of `cached` (B, g, P, d_k) followed by those of `added` (B, g, n, d_k).
Tensor4 concatenated_positions(const Tensor4& cached, const Tensor4& added) {
    const std::size_t B = cached.shape(0), g = cached.shape(1), P = cached.shape(2), n = added.shape(2),
                      dk = cached.shape(3);
    Tensor4 out = Tensor4::from_shape({B, g, P + n, dk});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < g; ++j)
            for (std::size_t p = 0; p < P + n; ++p)
                for (std::size_t i = 0; i < dk; ++i) out(b, j, p, i) = p < P ? cached(b, j, p, i) : added(b, j, p - P, i);
    return out;
}

// ShapeError unless `name` (one of the letters' owners) has the cache's sizes for B, g (when
// `with_kv_heads`) and d_k: a tensor meant for another cache, another layer or another model.
void require_cache_sizes(const std::string& f, const std::string& name, const std::vector<std::size_t>& shape,
                         const ShapeLetters& letters, const KVCache& cache, bool with_kv_heads) {
    const bool fits = letters.at("B") == cache.batch() && letters.at("d_k") == cache.head_width() &&
                      (!with_kv_heads || letters.at("g") == cache.kv_heads());
    if (fits) return;
    const std::string B = std::to_string(cache.batch()), g = std::to_string(cache.kv_heads()),
                      dk = std::to_string(cache.head_width());
    throw ShapeError(f + ": " + name + " has shape " + shape_string(shape) + " but the cache holds B = " + B +
                     " sequences of g = " + g + " K/V heads of d_k = " + dk + ": " + name + " must be " +
                     (with_kv_heads ? "(B, g, n, d_k) = (" + B + ", " + g + ", n, " + dk + ")"
                                    : "(B, h, n, d_k) = (" + B + ", h, n, " + dk + ")"));
}

}  // namespace

KVCache::KVCache(std::size_t batch, std::size_t kv_heads, std::size_t d_k) {
    if (batch == 0 || kv_heads == 0 || d_k == 0) {
        throw InputError("KVCache: batch B = " + std::to_string(batch) + ", kv_heads g = " + std::to_string(kv_heads) +
                         " and d_k = " + std::to_string(d_k) + " must all be at least 1");
    }
    keys_ = Tensor4::from_shape({batch, kv_heads, 0, d_k});
    values_ = keys_;
}

void KVCache::append(const Tensor4& k_new, const Tensor4& v_new) {
    const std::string f = "KVCache::append";
    const ShapeLetters letters = check_shapes(f, {{"k_new", k_new, "B,g,n,d_k"}, {"v_new", v_new, "B,g,n,d_k"}});
    require_cache_sizes(f, "k_new", {k_new.shape().begin(), k_new.shape().end()}, letters, *this, true);
    checked_value_count({batch(), kv_heads(), length() + k_new.shape(2), head_width()}, "the KV cache");
    detail::require_finite(f, "k_new", k_new, "a key appended to the cache");
    detail::require_finite(f, "v_new", v_new, "a value appended to the cache");
    keys_ = concatenated_positions(keys_, k_new);
    values_ = concatenated_positions(values_, v_new);
}

std::size_t KVCache::length() const { return keys_.shape(2); }
std::size_t KVCache::batch() const { return keys_.shape(0); }
std::size_t KVCache::kv_heads() const { return keys_.shape(1); }
std::size_t KVCache::head_width() const { return keys_.shape(3); }
const Tensor4& KVCache::keys() const { return keys_; }
const Tensor4& KVCache::values() const { return values_; }

CachedAttentionResult attend(const Tensor4& q_new, const KVCache& cache, std::optional<double> scale) {
    const std::string f = "attend";
    const ShapeLetters letters = check_shapes(f, {{"q_new", q_new, "B,h,n,d_k"}});
    require_cache_sizes(f, "q_new", {q_new.shape().begin(), q_new.shape().end()}, letters, cache, false);
    const std::size_t heads = q_new.shape(1), n = q_new.shape(2), g = cache.kv_heads(), P = cache.length();
    if (heads % g != 0) {
        throw InputError(f + ": q_new " + shape_string(q_new.shape()) + " has h = " + std::to_string(heads) +
                         " query heads, which the cache's kv_heads g = " + std::to_string(g) +
                         " does not divide; each K/V head serves h / g query heads");
    }
    if (n > P) {
        throw InputError(f + ": q_new " + shape_string(q_new.shape()) + " holds n = " + std::to_string(n) +
                         " new queries but the cache holds P = " + std::to_string(P) +
                         " positions; append the new tokens' keys and values first (a new token must see itself)");
    }
    if (scale && !std::isfinite(*scale)) throw InputError(f + ": the scale must be a finite number");
    const double factor = scale.value_or(1.0 / std::sqrt(double(cache.head_width())));
    const std::size_t n_rep = heads / g;

    CachedAttentionResult r;
    r.scores = factor * matmul_transposed(q_new, repeat_kv(cache.keys(), n_rep));  // q kᵀ / √d_k  (B, h, n, P)
    detail::require_finite_scores(f, r.scores, "q_new", "keys");
    // The n new queries are positions P − n … P − 1: bottom-right, each sees itself and its past.
    r.weights = softmax_last_axis(add_masks(r.scores, true, CausalAlignment::bottom_right, std::nullopt));
    r.context = matmul(r.weights, repeat_kv(cache.values(), n_rep));              // (B, h, n, d_k)
    detail::require_finite(f, "context", r.context,
                           std::string("the weighted sum of the cached values; ") + detail::overflow_advice);
    return r;
}

std::size_t kv_cache_bytes_per_token(std::size_t layers, std::size_t kv_heads, std::size_t d_k,
                                     std::size_t bytes_per_value) {
    std::size_t bytes = 2;
    for (std::size_t factor : {layers, kv_heads, d_k, bytes_per_value}) {
        if (factor != 0 && bytes > std::numeric_limits<std::size_t>::max() / factor) {
            throw InputError("kv_cache_bytes_per_token: 2 · layers · kv_heads · d_k · bytes_per_value does not fit in " +
                             std::to_string(std::numeric_limits<std::size_t>::max()));
        }
        bytes *= factor;
    }
    return bytes;
}

}  // namespace attn
