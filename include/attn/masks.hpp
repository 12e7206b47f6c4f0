// attn/masks.hpp — which keys a query may look at, written as additive masks of 0 and −∞.
//
// Why additive: a mask is added to the scores before the softmax. 0 leaves a score alone; −∞ makes
// exp(score) exactly 0, so a hidden key gets weight exactly 0 and the weights of the keys that
// remain still sum to 1. Two masks are used in lessons/04-causal-self-attention and
// lessons/05-multi-head-attention:
//
//   causal   a query at position t may look at keys s ≤ t, never at the future (s > t).
//            With T ≠ S the grid needs an alignment (CausalAlignment):
//            top_left      (the default) query t sees keys 0 … t: torch.triu(ones(T, S), 1)
//                          hidden, PyTorch's is_causal and attn_mask convention. Key 0 is never
//                          hidden, so a row always keeps at least one key.
//            bottom_right  query t sees keys 0 … t + (S − T): torch.triu(ones(T, S), S − T + 1)
//                          hidden. The last query sees every key. This is KV-cache decoding: the
//                          S − T keys before the T new queries are the cached past. With T > S
//                          the first T − S queries see no key at all.
//            With T = S the two are the same mask.
//   padding  from a Hugging Face attention_mask (B, S): 1 = a real token (attend), 0 = padding
//            (hide). The same row of keys is hidden for every query and every head.
//
// A query can end up with every key hidden (all padding, or left padding combined with the causal
// mask). softmax_last_axis turns such a row into all zeros: the library's policy (attn/softmax.hpp).
//
// Shapes: T queries · S keys · B batch
//   causal_mask(T, S[, alignment]) → (T, S)      attention_mask (B, S) → padding_mask (B, S)
//
//   attn::causal_mask(3, 3);              // {{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}}
//   attn::causal_mask(2, 4);              // {{0, -inf, -inf, -inf}, {0, 0, -inf, -inf}}
//   attn::causal_mask(2, 4, attn::CausalAlignment::bottom_right);
//                                         // {{0, 0, 0, -inf}, {0, 0, 0, 0}}
//   attn::padding_mask({{1, 1, 0}});      // {{0, 0, -inf}}
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "attn/tensor.hpp"

namespace attn {

/// Where the causal grid sits when the number of queries T differs from the number of keys S.
enum class CausalAlignment {
    top_left,      // query t sees keys 0 … t (PyTorch's default); T = S: the usual triangle
    bottom_right,  // query t sees keys 0 … t + S − T: the newest query sees every key (KV cache)
};

/// "top-left" or "bottom-right" (the CLI's spelling); InputError naming the two otherwise.
CausalAlignment parse_causal_alignment(const std::string& name);

/// True when the causal mask hides key `s` from query `t`: the key lies in the query's future.
/// The top-left form, which needs no sizes: s > t.
inline bool is_future_key(std::size_t t, std::size_t s) { return s > t; }

/// The same with the sizes and an alignment: bottom-right hides s > t + S − T.
inline bool is_future_key(std::size_t t, std::size_t s, std::size_t queries, std::size_t keys,
                          CausalAlignment alignment) {
    if (alignment == CausalAlignment::top_left) return s > t;
    return s + queries > t + keys;  // s > t + (S − T), without a negative unsigned value when T > S
}

/// The additive causal mask, (T, S): 0 where the key is visible, −∞ where it lies in the future.
Matrix causal_mask(std::size_t queries, std::size_t keys, CausalAlignment alignment = CausalAlignment::top_left);

/// Throws InputError unless every value of `attention_mask` is exactly 0 or 1; the message names
/// `name`, its shape, and the first other value with its index.
void check_attention_mask(const Matrix& attention_mask, const std::string& name = "attention_mask");

/// attention_mask (B, S) of 1 (attend) and 0 (padding) → the additive padding mask (B, S): 0 where
/// the mask is 1, −∞ where it is 0. Throws InputError for any other value.
Matrix padding_mask(const Matrix& attention_mask);

/// scores + M: the scores (B, T, S) with −∞ for every key a query may not see — in its future when
/// `causal` (placed by `alignment`), and the padding of attention_mask (B, S), where it is 0. The
/// causal and padding masks above, added; the arguments' shapes are the caller's to have checked.
///   attn::add_masks(attn::Tensor3{{{1, 2}, {3, 4}}}, true, attn::CausalAlignment::top_left, std::nullopt)
///   // {{{1, -inf}, {3, 4}}}
Tensor3 add_masks(Tensor3 scores, bool causal, CausalAlignment alignment, const std::optional<Matrix>& attention_mask);
/// The same for every head of (B, h, T, S) scores: every head hides the same keys.
Tensor4 add_masks(Tensor4 scores, bool causal, CausalAlignment alignment, const std::optional<Matrix>& attention_mask);

/// scores + additive_mask, PyTorch's float attn_mask: scores (B, T, S) with a mask (1, T, S) or
/// (B, T, S); scores (B, h, T, S) with a mask (1, T, S) or (B·h, T, S), row b·h + j for sequence b
/// and head j. Shapes are the caller's to have checked (check_additive_mask). A finite score plus
/// a finite mask value that overflows to ±∞ is an InputError naming `function` and both indices.
///   attn::add_additive_mask(attn::Tensor3{{{1, 2}}}, attn::Tensor3{{{0, -inf}}})   // {{{1, -inf}}}
Tensor3 add_additive_mask(Tensor3 scores, const Tensor3& additive_mask, const std::string& function = "add_additive_mask");
Tensor4 add_additive_mask(Tensor4 scores, const Tensor3& additive_mask, const std::string& function = "add_additive_mask");

/// Throws ShapeError unless additive_mask is (1, T, S) or (rows, T, S), and InputError naming the
/// first NaN or +∞ (−∞ hides a key; finite values are added).
void check_additive_mask(const std::string& function, const Tensor3& additive_mask, std::size_t rows,
                         const std::string& rows_legend, std::size_t queries, std::size_t keys);

}  // namespace attn
