// tutor/compute/weight_prefix.hpp — a state_dict saved from inside a bigger model: every key
// starts with the same path ("module." from nn.DataParallel, "model.encoder." for one part of a
// model), which `attn compute --prefix P` strips, or which is found when exactly one fits.
//
// Why detection: the module knows one key it always reads (an encoder layer's norm1.weight, a
// decoder's layers.0.norm3.weight); whatever stands before it in the archive's keys is the prefix.
// Two different candidates are refused with both listed: picking one would run the wrong part.
//
//   weight_prefix(find_compute_module("encoder"), {"model.encoder.layers.0.norm1.weight", …}, "", "m.npz")  // "model.encoder."
#pragma once

#include <string>
#include <vector>

#include "tutor/compute/compute_modules.hpp"

namespace attn::tutor {

/// The prefix to strip from the archive's keys: `given` (--prefix) when not empty, after checking
/// that some key starts with it; otherwise the one prefix before the module's anchor key ("" when
/// the keys need none, or the module has no anchor, or nothing fits). InputError naming `archive`
/// when no key starts with `given`, or listing the candidates when more than one fits.
std::string weight_prefix(const ComputeModule& module, const std::vector<std::string>& keys, const std::string& given,
                          const std::string& archive);

}  // namespace attn::tutor
