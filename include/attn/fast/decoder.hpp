// attn/fast/decoder.hpp — generating tokens in float32: nn.TransformerDecoder one token at a time,
// with a key/value cache (lesson 9's incremental decoding, written for speed).
//
// Why a class with state: decoding produces one position per step, and each step needs the keys
// and values of every position before it. Recomputing them (what nn.TransformerDecoder offers: run
// it again on the whole prefix) costs O(t) projections at step t; keeping them costs one token's
// projections per step. So an IncrementalDecoder holds, per layer:
//   · the self-attention's K/V cache, (B, g, capacity, d_k) each, allocated once at construction
//     and filled one position per step (no reallocation per token);
//   · the cross-attention's keys and values of the memory, (B, g, S, d_k), projected once.
// A step then computes, for the new token x (B, D) only:
//   post-norm:  x = norm1(x + sa(x));  x = norm2(x + ca(x, memory));  x = norm3(x + ff(x))
//   norm_first: x = x + sa(norm1(x));  x = x + ca(norm2(x), memory);  x = x + ff(norm3(x))
// where sa attends over the cache after the new token's k and v are appended (the token sees
// itself: the bottom-right causal alignment), ca over the whole memory (no mask), and
// ff(x) = linear2(activation(linear1(x))); then the optional final norm of the stack.
//
// Where the time goes: at batch 1 a step is matrix-vector work that reads every weight once
// (4D² + 2D² + 2DF floats per layer, plus the cross-attention's memory-side biases), so its speed
// is the memory bandwidth. The projections and the feed-forward network are OpenBLAS's sgemv
// (sgemm when B > 1) on blocks of output rows split over the worker pool (attn/fast/threads.hpp),
// the Q, K, V blocks of one layer in a single hand-out; attention over the cache and the memory is
// the fast path's own loop per (batch, head).
//
// Grouped-query attention (Shazeer 2019, Ainslie et al. 2023): kv_heads = g < h K/V heads, in both
// attentions. w_k and w_v are (g·d_k, D) (b_k, b_v (g·d_k)); query heads j·(h/g) … (j+1)·(h/g) − 1
// share K/V head j — Hugging Face's repeat_kv, PyTorch's repeat_interleave(h/g, dim=1). The caches
// shrink by h/g. g = h (the default) is ordinary multi-head attention, nn.MultiheadAttention.
//
// Shapes: B batch · S memory positions · D model width · h heads · g kv_heads · d_k = D / h ·
//         F feed-forward width · L layers · N capacity (tokens the cache holds)
//   memory (B, S, D) · token (B, D) → output (B, D)
//   self_attention, cross_attention: w_q, w_o (D, D) · w_k, w_v (g·d_k, D) · b_q, b_o (D) ·
//     b_k, b_v (g·d_k) — nn.Linear layout, as attn/fast/multi_head_attention.hpp
//   norm1/2/3 weight and bias (D) · linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) ·
//   linear2_bias (D) · final_norm weight and bias (D)
//
//   attn::fast::DecoderOptions options(8);        // 8 heads: required, as PyTorch's nhead
//   attn::fast::IncrementalDecoder decoder(layers, options, memory, 512);  // room for 512 tokens
//   attn::fast::Matrix y = decoder.step(x0);      // position 0
//   y = decoder.step(x1);                         // position 1, attending over positions 0 and 1
//
// Equals, at every step t, the last position of nn.TransformerDecoder(nn.TransformerDecoderLayer(
// D, h, F, dropout=0.0, activation, layer_norm_eps, batch_first=True, norm_first), L, norm) run on
// the tokens 0 … t with tgt_mask = generate_square_subsequent_mask(t + 1) (and with g < h, the same
// layer with K/V heads shared by repeat_interleave). No memory or target padding masks.
//
// Policies: shapes named as attn::check_shapes names them; heads must divide D and kv_heads
// heads; a step when the cache is full is an InputError saying the capacity (reset() starts
// again over the same memory); memory, token and every step's output must be finite (InputError
// naming the tensor and the index) — the layers' intermediates are not checked one by one.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "attn/fast/multi_head_attention.hpp"  // AttentionParameters
#include "attn/fast/tensor.hpp"
#include "attn/feed_forward.hpp"  // attn::Activation

namespace attn::fast {

/// One nn.TransformerDecoderLayer's parameters, named as its state_dict names them.
struct DecoderLayerParameters {
    AttentionParameters self_attention;   // self_attn: in_proj split (split_in_proj), out_proj = w_o, b_o
    AttentionParameters cross_attention;  // multihead_attn: the same; w_o required in both
    Vector norm1_weight, norm1_bias;      // (D) each
    Vector norm2_weight, norm2_bias;
    Vector norm3_weight, norm3_bias;
    Matrix linear1_weight;                // (F, D)
    std::optional<Vector> linear1_bias;   // (F); absent: no bias
    Matrix linear2_weight;                // (D, F)
    std::optional<Vector> linear2_bias;   // (D); absent: no bias
};

struct DecoderOptions {
    DecoderOptions() = default;
    explicit DecoderOptions(std::size_t heads) : heads(heads) {}

    std::size_t heads = 0;                     // h, PyTorch's nhead: required (0 = not set, an InputError)
    std::size_t kv_heads = 0;                  // g, must divide h; 0: g = h (no sharing)
    bool norm_first = false;                   // false: post-norm (PyTorch's default)
    Activation activation = Activation::relu;  // gelu: the exact erf GELU; gelu_tanh: PyTorch's tanh form
    float eps = 1e-5f;                         // every LayerNorm's eps, > 0
    std::optional<std::pair<Vector, Vector>> final_norm;  // the stack's norm (weight, bias) (D), nn.TransformerDecoder's norm
};

/// What the steps so far computed, for benchmarks: FLOPs of the matrix products (2 per
/// multiply-add) and the wall time of each part.
struct DecodeWork {
    double memory_flops = 0;        // the memory's K/V projections, once at construction
    double projection_flops = 0;    // every step's projections and feed-forward network
    double attention_flops = 0;     // every step's q·k and weights·v, over the cache and the memory
    double memory_seconds = 0, projection_seconds = 0, attention_seconds = 0;
};

class IncrementalDecoder {
public:
    /// Checks every argument (ShapeError, InputError naming it), projects the memory's keys and
    /// values in every layer and allocates the caches for `capacity` tokens (≥ 1). The decoder
    /// keeps its own copy of the parameters.
    IncrementalDecoder(std::vector<DecoderLayerParameters> layers, DecoderOptions options, const Tensor3& memory,
                       std::size_t capacity);
    ~IncrementalDecoder();
    IncrementalDecoder(IncrementalDecoder&&) noexcept;
    IncrementalDecoder& operator=(IncrementalDecoder&&) noexcept;

    /// The next position: token (B, D) → the stack's output for it (B, D). Throws ShapeError for a
    /// token of another shape, InputError when the cache is full or a value is not finite (the
    /// cache is then left as before the call).
    Matrix step(const Matrix& token);
    /// Same, writing into `output` (resized only when its shape differs).
    void step_into(const Matrix& token, Matrix& output);

    std::size_t length() const;    // positions decoded so far (tokens in the cache)
    std::size_t capacity() const;  // positions the cache holds
    /// Empties the caches; the memory's projections are kept.
    void reset();
    const DecodeWork& work() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Bytes of the self-attention caches per token: 2 (K and V) · L · g · d_k · 4 (float32) · B.
double decoder_cache_bytes_per_token(std::size_t B, std::size_t L, std::size_t kv_heads, std::size_t d_k);

}  // namespace attn::fast
