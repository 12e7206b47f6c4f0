// Exercise 3 — the function you write (in lessons/03-bahdanau/exercise/exercise.cpp).
#pragma once

#include "attn/bahdanau_attention.hpp"
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// Bahdanau's additive attention, lesson 3: return all six steps.
///   encoder_outputs (B, S, H), decoder_output (B, H), W1 (2H, 2H), b1 (2H), w2 (1, 2H), b2 (1),
///   the weights stored (out, in) as nn.Linear stores them
///   → concatenated (B, S, 2H) h = [h̄_s ; h_t], preactivation (B, S, 2H) W1 h + b1,
///     hidden (B, S, 2H) tanh(preactivation), scores (B, S) w2 · hidden + b2,
///     weights (B, S) softmax over S, context (B, H) weighted mean of the encoder outputs.
attn::BahdanauStep bahdanau_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                      const attn::Matrix& W1, const attn::Vector& b1, const attn::Matrix& w2,
                                      const attn::Vector& b2);

}  // namespace exercise
