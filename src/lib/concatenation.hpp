// src/lib/concatenation.hpp — private to the library: the (B, S, 2H) tensor of every encoder
// output beside its batch item's decoder state, which the additive scores (Bahdanau's, Luong's
// concat) feed to their one-layer MLP.
//
// Why shared: both lessons build the same pairs and differ only in the order — Bahdanau's seed
// notebook concatenates [h̄_s ; h_t], Luong's paper [h_t ; h̄_s] — and the order is exactly what a
// reader must see (lessons/03-bahdanau's mistakes include the swapped concatenation).
//
//   concatenate_with_decoder_state(encoder_outputs (B, S, H), decoder_output (B, H), DecoderState::second)
//       → (B, S, 2H), row (b, s) = [h̄_s ; h_t]
#pragma once

#include "attn/tensor.hpp"

namespace attn::detail {

/// Where the decoder state h_t goes in each concatenated row.
enum class DecoderState { first, second };

/// (B, S, 2H): row (b, s) is encoder_outputs[b, s] and decoder_output[b] side by side, h_t
/// `first` or `second`. The shapes are the caller's to check.
Tensor3 concatenate_with_decoder_state(const Tensor3& encoder_outputs, const Matrix& decoder_output, DecoderState order);

}  // namespace attn::detail
