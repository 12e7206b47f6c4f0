// tutor/compute/compute_gradients.hpp — `attn compute MODULE --grad`: the gradients of a module's
// output with respect to every floating-point input, as PyTorch's output.backward(grad_output)
// leaves them in each input's .grad.
//
// Why a file of its own: the backward functions are the library's (attn/*_backward.hpp); here is
// only what the command adds around them: grad_output checked against the output it belongs to,
// the library's gradient structs named back as the user named the inputs (split or packed
// projections, state_dict names), --seq-first, and no gradient for a mask.
//
//   NamedTensors outputs = run_compute_module(module, inputs, options);     // output, …
//   add_gradients(module, inputs, grad_output, options, outputs);           // + grad_Q, grad_K, …
#pragma once

#include "tutor/compute/compute_modules.hpp"

namespace attn::tutor {

/// The file --grad reads from --in: the upstream gradient of `output`.
inline constexpr const char* grad_output_name = "grad_output";

/// Adds grad_NAME to `outputs` for every input NAME that is not a mask (read from a bool or
/// integer file, or named as one), in the layout the inputs were given (--seq-first). `inputs`
/// and `outputs` are run_compute_module's; `grad_output` has the shape of outputs["output"]
/// (ShapeError naming both otherwise) and finite values (InputError naming the first that is
/// not). The module has a backward (ComputeModule::has_backward); the computation is in double.
void add_gradients(const ComputeModule& module, const NamedTensors& inputs, const DynamicTensor& grad_output,
                   const ComputeOptions& options, NamedTensors& outputs);

}  // namespace attn::tutor
