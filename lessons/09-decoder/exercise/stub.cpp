// Exercise 9 — the decoder: cross-attention and one cached decoding step with grouped-query
// attention.
//
// Implement the two functions below (lessons/09-decoder/README.md): cross_attention, the
// decoder's attention over the encoder's output (the memory), and cached_decoding_step, one step
// of generating tokens with a KV cache whose K/V heads are shared by groups of query heads. Then
// run
//
//     ./tutor exercise 9
//
// to check them against the library on seeded decoders, memories and caches. Stuck? A run whose
// numbers changed and still fail shows the next hint; `./tutor exercise 9 --hint` shows one at
// once, and `./tutor exercise 9 --reset` gives you a fresh copy of this file (yours is kept as a
// backup).
//
// Shapes: B batch · T decoder positions · S memory positions · D model width · h query heads ·
// g K/V heads (g divides h) · d_k = D / h · P cached positions · n new tokens.
// Useful: attn::Tensor4::from_shape({B, h, T, S}) makes an uninitialised tensor; x(b, j, t, s)
// reads and writes an element; std::sqrt is in <cmath>, std::numeric_limits<double>::infinity()
// in <limits>. From the library you may call attn::linear (x Wᵀ + b), attn::split_heads,
// attn::merge_heads (lesson 5) and attn::softmax_last_axis (a row of −∞ only becomes zeros);
// a call to any other of its functions is refused before your code runs.
#include <cmath>
#include <limits>

#include "attn/linear.hpp"
#include "attn/softmax.hpp"
#include "exercise.hpp"

namespace exercise {

CrossAttentionResult cross_attention(const attn::Tensor3& tgt, const attn::Tensor3& memory,
                                     const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                     const attn::Matrix& memory_mask) {
    CrossAttentionResult r;
    // TODO:
    //   q from the decoder (tgt), k and v from the memory, each projected (x Wᵀ + b) and split
    //   into heads of d_k = D / heads
    //   scores(b, j, t, s) = q_j(t) · k_j(s) / √d_k, −∞ where memory_mask(b, s) is 0
    //   r.weights = the softmax over s; then each head's weights · v_j, the heads merged, and
    //   r.output = that context W_oᵀ + b_o (weights.w_o; weights.b_o may be absent)
    (void)tgt;
    (void)memory;
    (void)weights;
    (void)heads;
    (void)memory_mask;
    throw attn::exercises::NotImplementedYet("lesson 9: exercise::cross_attention is not implemented yet — "
                                             "edit lessons/09-decoder/exercise/exercise.cpp");
    return r;
}

DecodingStep cached_decoding_step(const attn::Tensor4& q, const attn::Tensor4& k, const attn::Tensor4& v,
                                  const attn::Tensor4& k_cache, const attn::Tensor4& v_cache) {
    DecodingStep r;
    // TODO:
    //   r.k_cache, r.v_cache: the cache (B, g, P, d_k) with k, v (B, g, n, d_k) appended: (B, g, P + n, d_k)
    //   for each query head j, its K/V head j / (h / g), and each new query i (position P + i):
    //     scores over the keys s = 0 … P + n − 1 of the grown cache, q · k / √d_k, −∞ for s > P + i
    //   r.weights = the softmax over s, (B, h, n, P + n); r.context = weights · the values, (B, h, n, d_k)
    (void)q;
    (void)k;
    (void)v;
    (void)k_cache;
    (void)v_cache;
    throw attn::exercises::NotImplementedYet("lesson 9: exercise::cached_decoding_step is not implemented yet — "
                                             "edit lessons/09-decoder/exercise/exercise.cpp");
    return r;
}

}  // namespace exercise
