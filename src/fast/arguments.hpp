// src/fast/arguments.hpp — private to the fast path: the argument checks of
// attn::fast::multi_head_attention and attn::fast::transformer_encoder_layer, made before anything
// is computed so that the message names the argument at fault and its shape.
//
// Why through attn::check_shapes: the shapes are checked by the one letter-based checker the
// lesson path uses (attn/shape.hpp), from legends that read like the shape comments below, so
// the two paths refuse the same arguments with the same kind of message.
//
// Shapes: query (B, T, D) · key, value (B, S, D) · w_* (D, D) · b_* (D) · attention_mask (B, S) ·
//         linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) · norm*_* (D)
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "attn/fast/decoder.hpp"
#include "attn/fast/encoder_layer.hpp"
#include "attn/fast/multi_head_attention.hpp"

namespace attn::fast::detail {

/// multi_head_attention's arguments: every shape (check_shapes), h ≥ 1 dividing D, the output
/// projection's choice, RoPE's options (rotary.hpp), the mask's values (0 or 1, the lesson path's rule), tile sizes ≥ 1, and
/// sizes that BLAS's int arguments can hold.
void check_attention_arguments(const std::string& function, const Tensor3& query, const Tensor3& key,
                               const Tensor3& value, const AttentionParameters& parameters,
                               const AttentionOptions& options);

/// transformer_encoder_layer's arguments: the same for its self-attention (query = key = value =
/// x, the mask (B, T), w_o required), the LayerNorm and feed-forward shapes, and eps > 0.
/// Returns F.
std::size_t check_encoder_arguments(const std::string& function, const Tensor3& x,
                                    const EncoderLayerParameters& parameters, const EncoderLayerOptions& options);

/// The sizes of an incremental decoder, once its arguments are checked.
struct DecoderSizes {
    std::size_t B, S, D, F, heads, kv_heads, d_k;
};

/// IncrementalDecoder's arguments: at least one layer; every layer's shapes (named
/// layers[i].self_attention.w_k, …; w_k, w_v, b_k, b_v (g·d_k, D) and (g·d_k)), the same in every
/// layer; memory (B, S, D); h dividing D, g dividing h; w_o present; eps > 0; capacity ≥ 1; the
/// final norm (D).
DecoderSizes check_decoder_arguments(const std::string& function, const std::vector<DecoderLayerParameters>& layers,
                                     const DecoderOptions& options, const Tensor3& memory, std::size_t capacity);

}  // namespace attn::fast::detail
