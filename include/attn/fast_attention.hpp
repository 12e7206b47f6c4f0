// attn/fast_attention.hpp — multi-head attention and the Transformer encoder layer in float32,
// written for speed: how attention is really computed once the lessons have explained it.
//
// Why a second implementation: the lessons compute in double with one readable step per
// intermediate, which is right for teaching and too slow for real sizes (seed 000: 8 sequences of
// 300 tokens, d_model 768, 8 heads). This path computes the same numbers — agreeing with PyTorch
// to float32 rounding — the way a production kernel does:
//   · every matrix product is one cblas_sgemm on a contiguous or correctly strided block (the
//     per-head Q, K and V are column blocks of the projections, read in place with a leading
//     dimension of D: no transposes, no copies, no per-element BLAS dot);
//   · the 1/√d_k scale rides in the sgemm's alpha;
//   · softmax is fused and numerically stable, with the padding and causal masks applied inside
//     it while the row is in cache;
//   · all buffers can be preallocated (the *_into variants and their workspaces), so a call in a
//     loop allocates nothing;
//   · the work is split over worker threads, each calling a single-threaded sgemm: projections by
//     rows, attention by (batch, head) blocks (set_fast_threads).
//
// Shapes: B batch · T query positions · S key positions (S = T in self-attention) · D d_model ·
//         h heads · d_k = D / h · F d_ff
//   query (B, T, D) · key (B, S, D) · value (B, S, D)
//   w_q, w_k, w_v, w_o (D, D) stored (out, in) as nn.Linear stores them · b_q, b_k, b_v, b_o (D)
//   key_padding_mask (B, S): 1 = attend, 0 = padding (the Hugging Face convention of seed 000;
//                            PyTorch's key_padding_mask is the other way round)
//   output (B, T, D) · weights (B, h, T, S)
//
//   attn::FastAttentionParameters p = ...;          // w_q, w_k, w_v, b_q, b_k, b_v, optional w_o, b_o
//   attn::FloatTensor3 x = xt::zeros<float>({8, 300, 768});
//   auto r = attn::fast_multi_head_attention(x, x, x, p, attn::FastAttentionOptions{8});
//   r.output.shape();    // (8, 300, 768)
//   r.weights.shape();   // (8, 8, 300, 300); each row sums to 1
//
// Causal mask: top-left alignment only (query t sees keys 0 … t, PyTorch's is_causal), the lesson
// path's default; its bottom-right alignment (attn/masks.hpp) has no fast form here.
//
// Policies (the same as the lesson path's): a query row whose keys are all masked gets weights
// of zero and a context of zero (never NaN; see attn/softmax.hpp). Empty biases (size 0) mean
// "no bias"; an empty w_o means no output projection (output = the concatenated heads, as in
// seed 000). A raw score or an output that is NaN or ±∞ — NaN in an input, or inputs so large that
// float32 arithmetic overflows — is an InputError naming the tensor and the index ("scores[0, 1,
// 2, 3] is -inf"): only a mask may hide a key, and an overflow must not pass for one.
#pragma once

#include <cstddef>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "attn/feed_forward.hpp"  // attn::Activation (relu, gelu)

namespace attn {

using FloatVector = xt::xtensor<float, 1>;
using FloatMatrix = xt::xtensor<float, 2>;
using FloatTensor3 = xt::xtensor<float, 3>;
using FloatTensor4 = xt::xtensor<float, 4>;

/// The learned parameters of one multi-head attention, as nn.Linear layers store them.
/// PyTorch's nn.MultiheadAttention keeps w_q, w_k, w_v stacked in in_proj_weight (3D, D):
/// rows [0, D) are w_q, [D, 2D) w_k, [2D, 3D) w_v; its out_proj is w_o, b_o.
struct FastAttentionParameters {
    FloatMatrix w_q, w_k, w_v;  // (D, D) each
    FloatVector b_q, b_k, b_v;  // (D) each, or empty: no bias
    FloatMatrix w_o;            // (D, D), or empty: no output projection
    FloatVector b_o;            // (D), or empty: no bias
};

struct FastAttentionOptions {
    std::size_t heads = 1;          // h; must divide D
    FloatMatrix key_padding_mask;   // (B, S): 0 = padding, anything else attends; empty: no mask
    bool causal = false;            // query t attends to keys s <= t only: the top-left alignment
                                    // (torch.triu(ones(T, S), 1)). The bottom-right alignment of
                                    // AttentionOptions::causal_alignment (KV-cache decoding) is
                                    // not offered on this path; use the lesson path for it.
    bool need_weights = true;       // false: the (B, h, T, S) weights are not kept (less memory)
};

struct FastAttentionResult {
    FloatTensor3 output;   // (B, T, D)
    FloatTensor4 weights;  // (B, h, T, S), or empty when need_weights is false
};

/// Buffers reused from call to call by the *_into functions. Sized on first use; later calls with
/// the same shapes allocate nothing. One workspace per concurrent caller.
struct FastAttentionWorkspace {
    std::vector<float> q, k, v;     // projections (B·T, D), (B·S, D), (B·S, D)
    std::vector<float> context;     // concatenated heads (B·T, D), when there is an output projection
    std::vector<float> keep;        // (B, S) mask as 1/0 floats
    std::vector<float> scores;      // one (T, S) block per worker thread when weights are not kept
};

/// Multi-head attention: per head, softmax(Q_h K_hᵀ / √d_k + mask) V_h, heads concatenated, then
/// the output projection when w_o is given. query, key and value may be the same tensor.
/// Throws ShapeError naming each argument and its shape when they do not fit together, when h
/// does not divide D, or when a size is zero.
FastAttentionResult fast_multi_head_attention(const FloatTensor3& query, const FloatTensor3& key,
                                              const FloatTensor3& value, const FastAttentionParameters& parameters,
                                              const FastAttentionOptions& options);

/// Same, writing into `result` (resized only when its shape differs) and reusing `workspace`.
void fast_multi_head_attention_into(const FloatTensor3& query, const FloatTensor3& key, const FloatTensor3& value,
                                    const FastAttentionParameters& parameters, const FastAttentionOptions& options,
                                    FastAttentionResult& result, FastAttentionWorkspace& workspace);

/// The parameters of nn.TransformerEncoderLayer: self-attention (w_o required), two LayerNorms,
/// and the feed-forward network linear2(activation(linear1(x))).
struct FastEncoderLayerParameters {
    FastAttentionParameters attention;      // self_attn: in_proj split in w_q, w_k, w_v; out_proj = w_o, b_o
    FloatVector norm1_weight, norm1_bias;   // (D) each
    FloatVector norm2_weight, norm2_bias;   // (D) each
    FloatMatrix linear1_weight;             // (F, D)
    FloatVector linear1_bias;               // (F), or empty
    FloatMatrix linear2_weight;             // (D, F)
    FloatVector linear2_bias;               // (D), or empty
};

struct FastEncoderLayerOptions {
    std::size_t heads = 1;
    bool norm_first = false;                   // false: post-norm (PyTorch's default)
    Activation activation = Activation::relu;  // gelu is the exact erf GELU
    float layer_norm_eps = 1e-5f;
    FloatMatrix key_padding_mask;              // (B, T): 0 = padding; empty: no mask
    bool causal = false;
};

/// Buffers of the encoder layer, reused from call to call.
struct FastEncoderLayerWorkspace {
    FastAttentionWorkspace attention;
    std::vector<float> normalized;   // (B·T, D) norm1(x) or norm2(h) in pre-norm
    std::vector<float> projected;    // (B·T, D) attention output projection, then linear2's output
    std::vector<float> hidden;       // (B·T, D) the sub-layer result between the two blocks
    std::vector<float> inner;        // (B·T, F) the feed-forward network's inner activations
};

/// nn.TransformerEncoderLayer(D, h, F, dropout=0, activation, layer_norm_eps, batch_first=True,
/// norm_first) in eval mode:
///   post-norm:  x = norm1(x + sa(x));  x = norm2(x + ff(x))
///   pre-norm:   x = x + sa(norm1(x));  x = x + ff(norm2(x))
/// LayerNorm uses the biased variance with eps inside the square root.
/// x (B, T, D) → (B, T, D). Throws ShapeError as fast_multi_head_attention does, and for a
/// LayerNorm or linear parameter whose shape does not fit.
FloatTensor3 fast_transformer_encoder_layer(const FloatTensor3& x, const FastEncoderLayerParameters& parameters,
                                            const FastEncoderLayerOptions& options);

/// Same, writing into `output` (resized only when its shape differs) and reusing `workspace`.
void fast_transformer_encoder_layer_into(const FloatTensor3& x, const FastEncoderLayerParameters& parameters,
                                         const FastEncoderLayerOptions& options, FloatTensor3& output,
                                         FastEncoderLayerWorkspace& workspace);

/// The number of threads of the fast path. A call splits its work over this many threads — the
/// projections by rows, the attention by (batch, head) blocks, the row passes by chunks — each
/// running a single-threaded sgemm; OpenBLAS's own threads are switched off for the duration of
/// the call (they spin between calls and would compete with the workers). set_fast_threads also
/// sets OpenBLAS's thread count (openblas_set_num_threads), which other BLAS calls of the process
/// use. Process-wide, like OpenBLAS's own setting (calls from several threads at once still compute
/// the right numbers, but share it); throws InputError when threads < 1. Until it is called, the
/// fast path uses OpenBLAS's count (OPENBLAS_NUM_THREADS, else every core).
void set_fast_threads(int threads);
int fast_threads();

/// FLOPs of the matrix products of one call (2 per multiply-add), the count behind GFLOP/s:
///   projections 2·B·T·D·D (Q) + 2·2·B·S·D·D (K, V) · QKᵀ 2·B·T·S·D · weights·V 2·B·T·S·D ·
///   output projection 2·B·T·D·D (when present) · feed-forward 2·2·B·T·D·F.
/// Softmax, masks, biases, activations and LayerNorm are not counted (they are O(B·T·S + B·T·F)).
double fast_attention_flops(std::size_t B, std::size_t T, std::size_t S, std::size_t D, bool output_projection);
double fast_encoder_layer_flops(std::size_t B, std::size_t T, std::size_t D, std::size_t F);

}  // namespace attn
