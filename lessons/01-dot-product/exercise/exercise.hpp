// Exercise 1 — the function you write (in lessons/01-dot-product/exercise/exercise.cpp).
#pragma once

#include "attn/dot_attention.hpp"
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// Dot-product attention, lesson 1: return all three steps.
///   encoder_outputs (B, S, H), decoder_output (B, H)
///   → scores (B, S) raw dot products, weights (B, S) softmax over S, context (B, H) weighted mean.
attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output);

}  // namespace exercise
