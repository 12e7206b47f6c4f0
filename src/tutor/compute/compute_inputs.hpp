// tutor/compute/compute_inputs.hpp — `attn compute` from its options to its outputs: the inputs
// read from --in and --weights, named as the module names them, and the path that computes them.
//
// Why here and not in the command line: reading the files, PyTorch's names and conventions (a
// state_dict key, a mask's meaning by its dtype, --seq-first) and the choice between the lesson
// path (double) and the fast path (float32, attn::fast) are one concern, the compute layer's; the
// command line only parses options into ComputeOptions and writes what comes back.
//
//   tutor::ComputeOptions options = …;            // filled by the command line
//   tutor::ComputeRun run = tutor::compute(options);
//   run.outputs["output"];   run.dtype;   run.files;   // the files read, which no output may replace
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "attn/files.hpp"
#include "attn/npy.hpp"
#include "tutor/compute/compute_modules.hpp"

namespace attn::tutor {

/// The inputs of one run as read: float32 files keep their float32 values (NpyArray::floats),
/// so that the fast path never holds a double copy of a model's weights.
struct ComputeInputs {
    std::map<std::string, NpyArray> arrays;      // by the name the module reads
    std::map<std::string, std::string> sources;  // name → where it came from, for messages
    std::vector<InputPath> files;                // every file read, which no output may replace
    std::set<std::string> integer_inputs;        // read from bool or integer files (masks)
    bool all_float32 = true;                     // every floating-point input is float32
    std::optional<NpyArray> config;              // the archive's attn_config member (model_config.hpp)
    std::optional<NpyArray> grad_output;         // --grad: the upstream gradient of `output` (compute_gradients.hpp)
};

/// Reads --in's .npy files and --weights' members (the archive read once; its keys without the
/// prefix --prefix gives or weight_prefix finds; its attn_config member kept aside). Every name is read by
/// the module, or refused with "did you mean" when it looks like a mask or a weight (one that is
/// silently left out changes every number), or noted on stderr and ignored. InputError for a
/// missing folder or required input, a name given twice, and whatever the readers refuse. With
/// --grad, grad_output.npy too (floating-point; missing: an InputError naming the file).
ComputeInputs load_compute_inputs(const ComputeModule& module, const ComputeOptions& options);

/// The arrays as the lesson path's double tensors, each array released once converted.
NamedTensors widen_inputs(ComputeInputs& inputs);

struct ComputeRun {
    NamedTensors outputs;
    NpyDtype dtype = NpyDtype::float64;  // float32 when every input was float32 (on either path)
    std::vector<InputPath> files;        // every file read
    bool fast = false;                   // computed on attn::fast in float32
    int threads = 1;                     // the fast path's threads
};

/// Checks the options (once, before any file is read), loads, computes on the path the options and
/// inputs call for (tutor/compute/compute_fast.hpp) and checks the outputs. Messages start with
/// the module's name; running out of memory is an InputError that lists the inputs' shapes.
ComputeRun compute(const ComputeOptions& options);

}  // namespace attn::tutor
