// src/fast/arguments.hpp — private to the fast path: the argument checks of
// attn::fast::multi_head_attention and attn::fast::transformer_encoder_layer, made before anything
// is computed so that the message names the argument at fault and its shape.
//
// Shapes: query (B, T, D) · key, value (B, S, D) · w_* (D, D) · b_* (D) · attention_mask (B, S) ·
//         linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) · norm*_* (D)
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "attn/fast/encoder_layer.hpp"
#include "attn/fast/multi_head_attention.hpp"

namespace attn::fast::detail {

/// ShapeError when a size of `tensor` is 0.
void require_nonempty(const std::string& function, const std::string& name, const Tensor3& tensor);

/// query, key and value against each other: B, D and S agree, no size is zero.
void check_inputs(const std::string& function, const Tensor3& query, const Tensor3& key, const Tensor3& value);

/// The attention parameters against D and h; w_o may be absent unless required.
void check_attention_parameters(const std::string& function, const AttentionParameters& parameters, std::size_t D,
                                std::size_t heads, bool require_output_projection);

/// attention_mask (B, S) of 0 and 1 only (the lesson path's check and message), tile sizes ≥ 1,
/// and sizes that BLAS's int arguments can hold.
void check_attention_options(const std::string& function, const std::optional<Matrix>& attention_mask, std::size_t B,
                             std::size_t S, const char* legend, std::size_t query_tile, std::size_t key_tile);

/// The LayerNorm and feed-forward parameters against D, and eps > 0. Returns F.
std::size_t check_encoder_parameters(const std::string& function, const EncoderLayerParameters& parameters,
                                     std::size_t D, float eps);

}  // namespace attn::fast::detail
