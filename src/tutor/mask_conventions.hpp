// tutor/mask_conventions.hpp — the masks of `attn compute` in every convention, read by name.
//
// Why: "mask" means opposite things in the libraries a user brings tensors from, and a mask saved
// in one convention and read in another runs, exits 0 and is wrong everywhere. So each convention
// has its own name and is read with its own meaning, and two of them at once are refused:
//
//   attention_mask    (B, S)  Hugging Face: 1 = attend, 0 = padding (0/1 only, any dtype)
//   key_padding_mask  (B, S)  PyTorch nn.MultiheadAttention: True/1 = ignore this key (bool or
//   src_key_padding_mask       integer), or a float mask added to the scores (0 / −inf only)
//   attn_mask, src_mask (T, S) or (B·h, T, S)  PyTorch: bool True = ignore; float = added to the
//                              scores (0 keeps, −inf hides, other finite values are added)
//
// They combine as PyTorch combines them: the key padding mask becomes −∞ on its keys and is added
// to attn_mask, and --causal hides the future on top. A query left with no key gets zero weights,
// the library's policy (attn/softmax.hpp); torch 1.13's nn.MultiheadAttention gives NaN there.
//
//   ModuleMasks masks = masks_from(inputs, integer_inputs, {B, h, T, S});
//   options.attention_mask = masks.attention_mask;   // (B, S) 1 = attend
//   options.additive_mask = masks.additive_mask;     // (1 or B·h, T, S)
#pragma once

#include <optional>
#include <set>
#include <string>

#include "attn/tensor.hpp"
#include "tutor/lesson/lessons.hpp"

namespace attn::tutor {

/// The convention a mask input is read in.
enum class MaskConvention {
    none,             // not a mask
    attend_is_one,    // Hugging Face attention_mask: 1 = attend, 0 = padding
    ignore_is_true,   // PyTorch key_padding_mask: True/1 = ignore (float: additive 0 / −inf)
    scores_mask,      // PyTorch attn_mask / src_mask: bool True = ignore, float added to the scores
};

/// The sizes the masks must fit: B sequences, h heads, T queries, S keys.
struct MaskSizes {
    std::size_t batch = 1, heads = 1, queries = 1, keys = 1;
};

/// What the library takes: a padding mask in its own convention and an additive mask.
struct ModuleMasks {
    std::optional<Matrix> attention_mask;  // (B, S): 1 = attend, 0 = padding
    std::optional<Tensor3> additive_mask;  // (1 or B·h, T, S), added to the scores
};

/// The masks among `inputs` (by name: attention_mask, key_padding_mask, src_key_padding_mask,
/// attn_mask, src_mask), each read in its convention; `integer_inputs` names the inputs that came
/// from a bool or integer file (a float attn_mask is added to the scores, a bool one hides where
/// True). InputError naming the input, its convention and the first value that does not fit it;
/// InputError naming both when a Hugging Face and a PyTorch mask are given together; ShapeError
/// for an attn_mask that is neither (T, S) nor (B·h, T, S).
ModuleMasks masks_from(const NamedTensors& inputs, const std::set<std::string>& integer_inputs, const MaskSizes& sizes);

/// The convention of an input name (none for a name that is not a mask).
MaskConvention mask_convention(const std::string& name);

}  // namespace attn::tutor
