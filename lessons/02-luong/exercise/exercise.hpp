// Exercise 2 — the function you write (in lessons/02-luong/exercise/exercise.cpp).
#pragma once

#include "attn/luong_attention.hpp"
#include "not_implemented.hpp"  // NotImplementedYet, what the stub throws

namespace exercise {

/// Luong's general score, lesson 2: return all four steps.
///   encoder_outputs (B, S, H), decoder_output (B, H), W_a (H, H) stored (out, in) as nn.Linear stores it
///   → projected (B, S, H) W_a h̄_s for every source position, scores (B, S) h_t · (W_a h̄_s),
///     weights (B, S) softmax over S, context (B, H) weighted mean of the original encoder outputs.
attn::LuongGeneralStep luong_general_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                               const attn::Matrix& W_a);

}  // namespace exercise
