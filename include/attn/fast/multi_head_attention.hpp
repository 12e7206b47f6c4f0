// attn/fast/multi_head_attention.hpp — multi-head attention in float32, written for speed: how
// attention is computed once lessons 5 and 7 have explained it.
//
// Why a second implementation: the lesson path (attn/multi_head_attention.hpp) computes in double
// with one readable step per intermediate, right for teaching and too slow and too big for real
// sizes. This one computes the same numbers in float32 (PyTorch's dtype) the way a production
// kernel does, in one of two ways:
//
//   need_weights = true  (PyTorch's default): the (B, h, T, S) weights are returned, so they are
//       materialised: per (batch, head) one sgemm for the scores, a fused softmax with the masks,
//       one sgemm for weights · V_h (lesson 5's formula, as seed 000 runs it).
//   need_weights = false: lesson 7's online softmax, tile by tile. Per (batch, head, query tile)
//       the keys are walked in key tiles: scores = Q_tile K_tileᵀ / √d_k, the running maximum m
//       and sum l of each query updated and the accumulator rescaled by e^(m_old − m_new),
//       accumulator += P V_tile, and one division by l at the end. The two tile products are
//       register-blocked micro-kernels (AVX-512 where the CPU has it, else AVX2 + FMA) on the head's
//       keys and values, packed once per head. No (T, S) buffer exists at all: memory is O(T·D), so
//       T = 32 768 fits in well under 1 GiB. With the causal mask, key tiles entirely in the future
//       of a query tile are skipped (causal ≈ half the cost).
//
// The projections and the weights-kept products are sgemm calls on per-head column blocks read
// in place (leading dimension D: no transposes, no copies), 1/√d_k in sgemm's alpha; the work is
// split over the worker pool of attn/fast/threads.hpp.
//
// Shapes: B batch · T queries · S keys (S = T in self-attention) · D model width · h heads ·
//         d_k = D / h
//   query (B, T, D) · key (B, S, D) · value (B, S, D)
//   w_q, w_k, w_v, w_o (D, D) stored (out, in) as nn.Linear stores them · b_q, b_k, b_v, b_o (D)
//   attention_mask (B, S): 1 = attend, 0 = padding (the library's Hugging Face convention)
//   rope.query_positions (T) · rope.key_positions (S), optional
//   output (B, T, D) · weights (B, h, T, S), only when need_weights
//
//   attn::fast::AttentionParameters p = …;   // w_q, w_k, w_v, optional biases, w_o (or
//                                             // no_output_projection), optional b_o
//   attn::fast::Tensor3 x = xt::zeros<float>({1, 4096, 768});
//   attn::fast::AttentionOptions options(12); // 12 heads: required
//   options.need_weights = false;            // the tiled path
//   auto r = attn::fast::multi_head_attention(x, x, x, p, options);
//   r.output.shape();     // (1, 4096, 768);  r.weights is std::nullopt
//
// From PyTorch: nn.MultiheadAttention(D, h, batch_first=True) stacks w_q, w_k, w_v in
// in_proj_weight (3D, D) (rows [0, D), [D, 2D), [2D, 3D)) and b_q, b_k, b_v in in_proj_bias
// (split_in_proj splits them); its out_proj is w_o, b_o. Its key_padding_mask is True = ignore: attention_mask = ~key_padding_mask.
// Its is_causal / triu(ones(T, S), 1) mask is `causal` (the top-left alignment; the bottom-right
// alignment of KV-cache decoding is the lesson path's, attn/masks.hpp).
//
// Policies — the lesson path's (attn::multi_head_attention), tested side by side:
//   · the same argument checks: shapes named with their letters, heads must divide D, the
//     attention_mask holds only 0 and 1 (InputError naming the value and its index), b_o needs w_o;
//   · a query whose keys are all masked gets weights of zero and a context of zero, never NaN;
//   · only a mask may hide a key: a projection, a raw score, a head's context or the output that
//     is NaN or ±∞ (NaN or ±∞ in an input, or inputs so large that float32 overflows) is an
//     InputError naming the tensor and the index with the lesson path's names — q, k, v,
//     scores (B, h, T, S), context_heads (B, h, T, d_k), output — and the first one in the
//     lesson path's order. (One difference, lesson 7's: a score in a causal tile that is skipped
//     is never computed, so a non-finite value there goes unnoticed where lesson 5's function,
//     which computes every score, refuses it. It could not have changed the output.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/fast/tensor.hpp"
#include "attn/rotary.hpp"  // RopeLayout, default_rope_base

namespace attn::fast {

/// The learned parameters of one multi-head attention, as nn.Linear layers store them.
/// (The lesson path calls the same fields attn::MultiHeadAttentionWeights.)
struct AttentionParameters {
    Matrix w_q, w_k, w_v;                // (D, D) each
    std::optional<Vector> b_q, b_k, b_v; // (D) each; absent: no bias (nn.MultiheadAttention(bias=False))
    std::optional<Matrix> w_o;           // (D, D); required unless no_output_projection
    std::optional<Vector> b_o;           // (D); needs w_o; absent: no bias
    /// true: no output projection, output = the heads side by side (seed 000); w_o and b_o must be
    /// absent. false (the default): w_o is required — a forgotten one is an InputError.
    bool no_output_projection = false;
};

/// PyTorch's packed in_proj_weight (3D, D) and in_proj_bias (3D) (absent: bias=False) split
/// row-wise into w_q, w_k, w_v and b_q, b_k, b_v; w_o and b_o are left for the caller. ShapeError
/// naming in_proj_weight or in_proj_bias when they are not (3D, D) and (3D).
AttentionParameters split_in_proj(const Matrix& in_proj_weight, const std::optional<Vector>& in_proj_bias);

/// RoPE (attn/rotary.hpp, lesson 8) on each head's Q and K after the projections, never on V.
/// The cos and sin of every (position, frequency) are computed once per call in double and
/// rounded to float32, so long positions keep their accuracy.
struct RotaryOptions {
    RopeLayout layout = RopeLayout::halves;    // halves: Hugging Face's rotate_half; pairs: RoFormer, GPT-J
    double base = default_rope_base;           // θ_i = base^(−2i/d_k); finite and above 0
    std::vector<std::int64_t> query_positions; // (T), each ≥ 0; empty: 0 … T−1
    std::vector<std::int64_t> key_positions;   // (S), each ≥ 0; empty: 0 … S−1
};

/// The lesson path's attn::AttentionOptions names for what both have (causal, attention_mask);
/// the lesson path takes the number of heads as an argument of multi_head_attention, this one
/// here.
struct AttentionOptions {
    AttentionOptions() = default;
    explicit AttentionOptions(std::size_t heads) : heads(heads) {}

    std::size_t heads = 0;                 // h; must divide D; required (0 = not set, an InputError)
    std::optional<Matrix> attention_mask;  // (B, S): 1 = attend, 0 = padding; only 0 and 1
    bool causal = false;                   // query t sees keys 0 … t (top-left, PyTorch's is_causal)
    bool need_weights = true;              // false: the tiled online softmax, no (B, h, T, S) weights
    std::size_t query_tile = 64;           // tiled path: queries per tile (≥ 1)
    std::size_t key_tile = 512;            // tiled path: keys per tile (≥ 1); a (query_tile, key_tile)
                                           // block of scores per thread is all that exists at once
    std::optional<RotaryOptions> rope;     // RoPE on Q and K; needs an even d_k = D / h
};

/// What one call computed, for benchmarks and for the curious. FLOPs count the matrix products
/// done (2 per multiply-add); softmax, masks and biases are not counted.
struct AttentionWork {
    double projection_flops = 0;     // Q, K, V projections
    double attention_flops = 0;      // Q Kᵀ and weights · V of every block computed (tiled: only
                                     // the tiles computed, the skipped causal ones not)
    double output_flops = 0;         // output projection
    std::size_t tiles_computed = 0;  // tiled path: (query tile, key tile) pairs computed, over B·h
    std::size_t tiles_skipped = 0;   // tiled path: pairs the causal mask hides whole
    double projection_seconds = 0;   // wall time of each part
    double attention_seconds = 0;
    double output_seconds = 0;

    double flops() const { return projection_flops + attention_flops + output_flops; }
};

struct AttentionResult {
    Tensor3 output;                 // (B, T, D)
    std::optional<Tensor4> weights; // (B, h, T, S) when need_weights, else std::nullopt
    AttentionWork work;
};

/// Buffers reused from call to call by multi_head_attention_into: sized by the first call, so that
/// later calls with the same shapes allocate none of the buffers that grow with the tensors. A
/// call still makes a few small allocations of its own (the function's name for its messages, and
/// per-task counters of the tiled form: 24 bytes per (batch, head, query tile)). One workspace
/// per concurrent caller.
struct AttentionWorkspace {
    std::vector<float> q, k, v;  // projections (B·T, D), (B·S, D), (B·S, D); the heads' context
                                 // overwrites q in place when there is an output projection
    std::vector<float> keep;     // (B, S) attention_mask as 1/0 floats
    std::vector<float> tiles;    // per worker: one tile of scores and its running m, l, accumulator
};

/// Multi-head attention: per head softmax(Q_h K_hᵀ / √d_k + masks) V_h, the heads side by side,
/// then the output projection when w_o is given. query, key and value may be the same tensor.
/// Throws ShapeError naming each argument and its shape when they do not fit together, when h does
/// not divide D, a size is zero or RoPE's positions are not (T) and (S); InputError for an odd d_k
/// with RoPE, a negative position, a bad base, a mask value other than 0 or 1, a tile size of
/// 0, or a non-finite value (see the policies above).
AttentionResult multi_head_attention(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                     const AttentionParameters& parameters, const AttentionOptions& options);

/// Same, writing into `result` (resized only when its shape differs) and reusing `workspace`.
void multi_head_attention_into(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                               const AttentionParameters& parameters, const AttentionOptions& options,
                               AttentionResult& result, AttentionWorkspace& workspace);

/// FLOPs of one call's matrix products when every tile is computed (2 per multiply-add):
///   projections 2·B·T·D² (Q) + 2·2·B·S·D² (K, V) · Q Kᵀ 2·B·T·S·D · weights·V 2·B·T·S·D ·
///   output projection 2·B·T·D² (when present).
/// Softmax, masks and biases are not counted (O(B·h·T·S) and O(B·T·D)).
double attention_flops(std::size_t B, std::size_t T, std::size_t S, std::size_t D, bool output_projection);

}  // namespace attn::fast
