// Exercise 9 — the functions you write (in lessons/09-decoder/exercise/exercise.cpp).
#pragma once

#include <cstddef>

#include "attn/multi_head_attention.hpp"  // attn::MultiHeadAttentionWeights
#include "not_implemented.hpp"            // NotImplementedYet, what the stub throws

namespace exercise {

/// What cross_attention returns.
struct CrossAttentionResult {
    attn::Tensor4 weights;  // (B, h, T, S) each head's softmax over the memory's S positions
    attn::Tensor3 output;   // (B, T, D) the heads merged, then context W_oᵀ + b_o
};

/// Cross-attention, the decoder's second attention: multi-head attention whose queries come from
/// the decoder and whose keys and values come from the encoder's output, the memory.
///   tgt (B, T, D) the decoder's positions; memory (B, S, D) the encoder's output, T and S free;
///   weights: w_q, w_k, w_v, w_o (D, D) stored (out, in) as nn.Linear stores them, b_q, b_k, b_v (D)
///   and b_o (D) when present; `heads` divides D;
///   memory_mask (B, S): 1 = a real memory token (attend to it), 0 = padding (hide it).
///   Every decoder position may see every real memory token (no causal mask). A query whose
///   memory is all padding gets weights of zero, and the output b_o (or zero without b_o).
CrossAttentionResult cross_attention(const attn::Tensor3& tgt, const attn::Tensor3& memory,
                                     const attn::MultiHeadAttentionWeights& weights, std::size_t heads,
                                     const attn::Matrix& memory_mask);

/// What cached_decoding_step returns.
struct DecodingStep {
    attn::Tensor4 k_cache, v_cache;  // (B, g, P + n, d_k) the cache with the n new keys/values appended
    attn::Tensor4 weights;           // (B, h, n, P + n) each query head's softmax over the grown cache
    attn::Tensor4 context;           // (B, h, n, d_k) weights · the values of the query head's K/V head
};

/// One decoding step with a KV cache and grouped-query attention (h query heads, g K/V heads, g
/// divides h). The n new tokens are the last n positions: append k and v to the cache first, then
/// query i of the step (position P + i) sees the keys 0 … P + i (the causal mask aligned
/// bottom-right). Query head j uses K/V head j / (h/g): heads 0 … h/g − 1 share K/V head 0, and so
/// on (PyTorch's repeat_interleave). Scores are q · k / √d_k.
///   q (B, h, n, d_k); k, v (B, g, n, d_k); k_cache, v_cache (B, g, P, d_k), P ≥ 1
DecodingStep cached_decoding_step(const attn::Tensor4& q, const attn::Tensor4& k, const attn::Tensor4& v,
                                  const attn::Tensor4& k_cache, const attn::Tensor4& v_cache);

}  // namespace exercise
