// lessons/03-bahdanau/exercise/mistakes.hpp — lesson 3's classic mistakes (Bahdanau's additive score),
// made on purpose; the softmax slips of lesson 1 (01-dot-product/exercise/mistakes.hpp) apply to its last
// steps.
//
//   encoder_outputs (B, S, H), decoder_output (B, H), W1 (2H, 2H), b1 (2H), w2 (1, 2H), b2 (1)
//   → concatenated, preactivation, hidden (B, S, 2H), scores, weights (B, S), context (B, H)
//
//   const auto right = attn::bahdanau_attention(A, b, W1, b1, w2, b2);
//   attn::mistakes::bahdanau_reshape_not_transpose(right, A, W1, b1, w2, b2);   // the seed's reshape
#pragma once

#include "01-dot-product/exercise/mistakes.hpp"
#include "attn/bahdanau_attention.hpp"

namespace attn::mistakes {

/// The concatenation in the other order, h = [h_t ; h̄_s] (Luong's concat order, lesson 2 step 9)
/// instead of [h̄_s ; h_t]: W1's first H columns then meet the decoder state. Students swap it
/// because both orders are "the concatenation" and the shapes agree. Every step changes.
BahdanauStep bahdanau_concatenation_swapped(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                            const Matrix& W1, const Vector& b1, const Matrix& w2, const Vector& b2);

/// A reshape where a transpose was meant, the seed's first BaAttention: `h.reshape(B, 2H, -1)` to
/// get one column per source position. A reshape keeps memory order, so column s of the (2H, S)
/// grid is h[b]'s flat numbers j·S + s, a mix of several positions and of h_t (lesson 3, step 8).
/// `concatenated` stays right; from `preactivation` on, row s holds W1 · column s + b1.
/// Invisible when S = 1.
BahdanauStep bahdanau_reshape_not_transpose(const BahdanauStep& right, const Tensor3& encoder_outputs, const Matrix& W1,
                                            const Vector& b1, const Matrix& w2, const Vector& b2);

}  // namespace attn::mistakes
