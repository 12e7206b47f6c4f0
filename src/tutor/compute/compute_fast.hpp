// tutor/compute/compute_fast.hpp — `attn compute mha | encoder-layer | encoder` on attn::fast.
//
// Why: the lesson path computes in double, one readable step per intermediate, right for a
// lesson's sizes; a real model (6 layers, d_model 512, T 512) takes seconds and gigabytes there.
// The fast path (attn/fast/*.hpp) computes the same functions in float32, PyTorch's own dtype,
// with the weights read once and never widened.
//
// The rule. A module with a fast form (ComputeModule::has_fast_path) runs on it when
//   --precision float32 is given, or no --precision and every floating-point input is float32;
// and every option and input it is given has a fast form. Two have none, and then the run takes
// the lesson path (with --precision float32 they are refused instead, exit 2):
//   · a scores mask, attn_mask / src_mask (attn::fast takes a padding mask and the causal mask only);
//   · --causal-alignment bottom-right (attn::fast's causal mask is top-left, PyTorch's is_causal).
// Everything else is the same on both paths: the names, the masks attention_mask, key_padding_mask
// and src_key_padding_mask (all read by tutor/compute/mask_conventions.hpp), --causal,
// --no-output-projection, --norm-first, --eps, --norm-eps, --activation, --seq-first, the
// checks and their messages, and the output's dtype (float32 when every input is float32).
// --precision float32 with a float64 input is refused: the result would be float32's rounding
// written as float64.
//
// What differs: float32 rounding. The outputs agree with the lesson path's and with PyTorch's to
// about 1e-6 relative (tests/test_cli_compute_fast.cpp holds them to 1e-5 on PyTorch's fixtures).
#pragma once

#include "tutor/compute/compute_inputs.hpp"

namespace attn::tutor {

/// Whether this run takes the fast path (the rule above). InputError when --precision float32
/// asks for it and an input or option has no fast form.
bool runs_on_fast_path(const ComputeModule& module, const ComputeOptions& options, const ComputeInputs& inputs);

/// The fast path: the same checks as run_compute_module (shapes, finite values, sizes, masks,
/// weights by name), then attn::fast in float32. Each input array is released once it has been
/// turned into the fast path's tensors. The outputs come back as the lesson path's tensors
/// (float32 values exactly), checked by finish_outputs.
NamedTensors run_compute_module_fast(const ComputeModule& module, ComputeInputs& inputs, const ComputeOptions& options);

}  // namespace attn::tutor
