// tests/support/fast_inputs.hpp — inputs for the fast path's tests (attn::fast), and the same
// inputs in the lesson path's types, so that both paths run on the same numbers.
//
//   std::mt19937 generator(5);
//   auto x = attn::testing::random_float<3>(generator, {2, 7, 32});            // uniform in [-1, 1]
//   auto p = attn::testing::random_fast_parameters(generator, 32, true);       // with W_o
//   attn::Tensor3 x64 = attn::testing::widen(x);
//   attn::MultiHeadAttentionWeights w = attn::testing::lesson_weights(p);      // the same numbers in double
#pragma once

#include <array>
#include <cmath>
#include <random>

#include "attn/encoder_layer.hpp"
#include "attn/fast/encoder_layer.hpp"
#include "attn/multi_head_attention.hpp"

namespace attn::testing {

/// A float32 tensor of `shape`, uniform in [-scale, scale], seeded by `generator`.
template <std::size_t N>
xt::xtensor<float, N> random_float(std::mt19937& generator, const std::array<std::size_t, N>& shape, float scale = 1.0f) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    auto t = xt::xtensor<float, N>::from_shape(shape);
    for (auto& v : t) v = uniform(generator) * scale;
    return t;
}

/// The same values in double.
template <std::size_t N>
xt::xtensor<double, N> widen(const xt::xtensor<float, N>& t) {
    return xt::cast<double>(t);
}

/// Attention parameters of width D, nn.Linear-like sizes, with or without W_o and b_o.
fast::AttentionParameters random_fast_parameters(std::mt19937& generator, std::size_t D, bool output_projection);

/// Encoder-layer parameters of width D and feed-forward width F.
fast::EncoderLayerParameters random_fast_layer(std::mt19937& generator, std::size_t D, std::size_t F);

/// The same parameters for the lesson path (an absent bias becomes zeros: the lesson path requires them).
MultiHeadAttentionWeights lesson_weights(const fast::AttentionParameters& fast);
EncoderLayerWeights lesson_weights(const fast::EncoderLayerParameters& fast);

}  // namespace attn::testing
