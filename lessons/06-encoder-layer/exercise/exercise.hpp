// Exercise 6 — the functions you write (in lessons/06-encoder-layer/exercise/exercise.cpp).
#pragma once

#include "attn/encoder_layer.hpp"
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// nn.LayerNorm over the last axis, lesson 6 step 1: for each row of x (N, D), its mean, its
/// biased variance (the mean of the squared deviations, ÷ D), then
///   normalized = (x − mean) / √(variance + eps)        (N, D)
///   output     = normalized · weight + bias            (N, D), weight and bias (D) per feature
attn::LayerNormStep layer_norm(const attn::Matrix& x, const attn::Vector& weight, const attn::Vector& bias, double eps);

/// One Transformer encoder layer, lesson 6 steps 3 to 8: self-attention and the feed-forward
/// network, each with its residual connection and layer norm — post-norm, or pre-norm when
/// options.norm_first. x (B, T, D) → every intermediate, in attn::EncoderLayerStep
/// (include/attn/encoder_layer.hpp says what each field holds).
attn::EncoderLayerStep transformer_encoder_layer(const attn::Tensor3& x, const attn::EncoderLayerWeights& weights,
                                                 const attn::EncoderLayerOptions& options);

}  // namespace exercise
