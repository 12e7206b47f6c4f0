// attn/fast/encoder_layer.hpp — nn.TransformerEncoderLayer in float32, written for speed.
//
// Why: lesson 6's layer (attn/encoder_layer.hpp) computed at real sizes. Its self-attention never
// returns weights, so it always takes the tiled online-softmax path of
// attn/fast/multi_head_attention.hpp (O(T·D) memory, causal tiles skipped); the rest is four
// sgemms and fused row passes (residual + bias + LayerNorm in one pass, bias + activation in one).
//
//   post-norm (PyTorch's default):  x = norm1(x + sa(x));  x = norm2(x + ff(x))
//   pre-norm  (norm_first):         x = x + sa(norm1(x));  x = x + ff(norm2(x))
//   ff(x) = linear2(activation(linear1(x))),  LayerNorm with the biased variance, eps inside the √
//
// Shapes: B batch · T positions · D model width · h heads · F feed-forward width
//   x (B, T, D) · attention as in attn/fast/multi_head_attention.hpp (w_o required) ·
//   norm1_weight, norm1_bias, norm2_weight, norm2_bias (D) · linear1_weight (F, D) ·
//   linear1_bias (F) · linear2_weight (D, F) · linear2_bias (D) · attention_mask (B, T) → (B, T, D)
//
//   attn::fast::EncoderLayerOptions options(8);   // 8 heads: required, as PyTorch's nhead
//   attn::fast::Tensor3 y = attn::fast::transformer_encoder_layer(x, parameters, options);
//
// Equals nn.TransformerEncoderLayer(D, h, F, dropout=0.0, activation, layer_norm_eps,
// batch_first=True, norm_first) in eval mode, with src_key_padding_mask = ~attention_mask and,
// with `causal`, src_mask = triu(ones(T, T), 1).
//
// Policies: those of attn::fast::multi_head_attention and of the lesson path's
// attn::transformer_encoder_layer: shapes named, masks only 0 and 1, a query with no key to
// attend gets a zero context, and a value that is NaN or ±∞ is an InputError naming the tensor
// and the index — inside the attention with its names (q, k, v, scores, context_heads), then the
// layer's intermediates it holds, named as attn::EncoderLayerStep names them: after_attention,
// ffn_hidden, output. (The lesson path also holds attention_residual, ffn_input, ffn_output and
// ffn_residual, which this layer fuses into its row passes: a non-finite value there is reported
// at the next of the three names.)
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attn/fast/multi_head_attention.hpp"
#include "attn/fast/tensor.hpp"
#include "attn/feed_forward.hpp"  // attn::Activation (relu, gelu, gelu_tanh)

namespace attn::fast {

/// The parameters of nn.TransformerEncoderLayer, named as its state_dict names them.
struct EncoderLayerParameters {
    AttentionParameters attention;          // self_attn: in_proj split in w_q, w_k, w_v; out_proj = w_o, b_o (w_o required)
    Vector norm1_weight, norm1_bias;        // (D) each
    Vector norm2_weight, norm2_bias;        // (D) each
    Matrix linear1_weight;                  // (F, D)
    std::optional<Vector> linear1_bias;     // (F); absent: no bias
    Matrix linear2_weight;                  // (D, F)
    std::optional<Vector> linear2_bias;     // (D); absent: no bias
};

/// The same names as the lesson path's attn::EncoderLayerOptions (heads, norm_first, eps,
/// activation, attention_mask), plus the fast path's own causal and tiles.
struct EncoderLayerOptions {
    EncoderLayerOptions() = default;
    explicit EncoderLayerOptions(std::size_t heads) : heads(heads) {}

    std::size_t heads = 0;                     // h, PyTorch's nhead: required (0 = not set, an InputError)
    bool norm_first = false;                   // false: post-norm (PyTorch's default)
    Activation activation = Activation::relu;  // gelu is the exact erf GELU, gelu_tanh PyTorch's tanh form
    float eps = 1e-5f;                         // LayerNorm's eps (PyTorch's layer_norm_eps), > 0
    std::optional<Matrix> attention_mask;      // (B, T): 1 = attend, 0 = padding; only 0 and 1
    bool causal = false;                       // position t attends to positions 0 … t
    std::size_t query_tile = 64;               // the attention's tiles (attn/fast/multi_head_attention.hpp)
    std::size_t key_tile = 512;
};

/// Buffers of the encoder layer, reused from call to call. One workspace per concurrent caller.
struct EncoderLayerWorkspace {
    AttentionWorkspace attention;
    std::vector<float> normalized;   // (B·T, D) norm1(x), then norm2(hidden), in pre-norm
    std::vector<float> projected;    // (B·T, D) the attention's output projection, then linear2's output
    std::vector<float> hidden;       // (B·T, D) after_attention
    std::vector<float> inner;        // (B·T, F) ffn_hidden
    AttentionWork attention_work;    // what the last call's self-attention computed (FLOPs, tiles, times)
};

/// One encoder layer, x (B, T, D) → (B, T, D). Throws ShapeError naming the tensor whose shape
/// does not fit and the shape it should have; InputError for heads not set, eps ≤ 0, a mask value other
/// than 0 or 1, and a non-finite value (see above).
Tensor3 transformer_encoder_layer(const Tensor3& x, const EncoderLayerParameters& parameters,
                                  const EncoderLayerOptions& options);

/// Same, writing into `output` (resized only when its shape differs) and reusing `workspace`.
void transformer_encoder_layer_into(const Tensor3& x, const EncoderLayerParameters& parameters,
                                    const EncoderLayerOptions& options, Tensor3& output,
                                    EncoderLayerWorkspace& workspace);

/// FLOPs of one layer's matrix products (every tile computed): the attention's with S = T and an
/// output projection, plus the feed-forward network 2·2·B·T·D·F.
double encoder_layer_flops(std::size_t B, std::size_t T, std::size_t D, std::size_t F);

}  // namespace attn::fast
