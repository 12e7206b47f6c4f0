// lessons/06-encoder-layer/exercise/mistakes.hpp — lesson 6's classic mistakes (the layer norm and the
// encoder layer), made on purpose.
//
//   layer norm: x (N, D), weight (D), bias (D), eps > 0 → mean, variance (N), normalized, output (N, D)
//   encoder layer: x (B, T, D), EncoderLayerWeights, EncoderLayerOptions → every intermediate
//   (EncoderLayerStep), as attn::transformer_encoder_layer
//
// A wrong norm shows in both places the layer uses it; layer_with_norm builds that layer from the
// right one, recomputing from the first norm on (a post-norm layer's attention is unchanged).
//
//   const auto right = attn::transformer_encoder_layer(x, weights, options);
//   attn::mistakes::layer_with_norm(right, x, weights, options, attn::mistakes::layer_norm_whole_tensor);
#pragma once

#include "attn/encoder_layer.hpp"

namespace attn::mistakes {

/// A row norm: x (N, D), weight (D), bias (D), eps → LayerNormStep.
using RowNorm = LayerNormStep (*)(const Matrix& x, const Vector& weight, const Vector& bias, double eps);

/// LayerNorm with the unbiased variance, ÷ (D − 1) instead of ÷ D, still inside the square root
/// with eps. `torch.var` and `x.std(-1)` are unbiased by default and the Annotated Transformer
/// uses them, so it is the variance students reach for; nn.LayerNorm uses the biased one. Needs D ≥ 2.
LayerNormStep layer_norm_unbiased_variance(const Matrix& x, const Vector& weight, const Vector& bias, double eps);

/// eps outside the square root, (x − mean) / (√(biased variance) + eps): the Annotated
/// Transformer's `std + eps` with PyTorch's variance. Negligible for a spread row (about eps / (2σ)
/// relative), large when the row's variance is as small as eps.
LayerNormStep layer_norm_eps_outside_sqrt(const Matrix& x, const Vector& weight, const Vector& bias, double eps);

/// Both at once, the Annotated Transformer's LayerNorm (unbiased std + eps), copied from seed 003.
LayerNormStep layer_norm_annotated_transformer(const Matrix& x, const Vector& weight, const Vector& bias, double eps);

/// One mean and one variance over the whole tensor (all N·D values) instead of each row: what
/// `nn.LayerNorm(x.shape)` does, or a loop whose sums are not reset per row (seed 003, lesson 6).
/// Every row's mean and variance are the overall ones. The same as the right norm when N = 1.
LayerNormStep layer_norm_whole_tensor(const Matrix& x, const Vector& weight, const Vector& bias, double eps);

/// The encoder layer `right` with `norm` in both of its norms.
EncoderLayerStep layer_with_norm(const EncoderLayerStep& right, const Tensor3& x, const EncoderLayerWeights& weights,
                                 const EncoderLayerOptions& options, RowNorm norm);

/// Pre-norm and post-norm swapped: norm_first read the wrong way round, so the layer computes
/// x + attention(norm1(x)) … when post-norm was asked, and norm1(x + attention(x)) … when pre-norm
/// was. Every step changes.
EncoderLayerStep norms_swapped(const Tensor3& x, const EncoderLayerWeights& weights, const EncoderLayerOptions& options);

/// The attention sub-layer's output taken before the output projection: the residual adds
/// attention.context (the heads side by side) instead of attention.output (context W_oᵀ + b_o).
/// `attention.output` holds what was used.
EncoderLayerStep layer_without_output_projection(const EncoderLayerStep& right, const Tensor3& x,
                                                 const EncoderLayerWeights& weights, const EncoderLayerOptions& options);

}  // namespace attn::mistakes
