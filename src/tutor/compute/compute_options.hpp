// tutor/compute/compute_options.hpp — the options of `attn compute`, from the command line to the
// module, in one struct.
//
// Why a header of its own: the command line (src/cli) fills it with CLI11 and the compute layer
// reads it; it includes nothing heavier than the standard library, so that the command line's
// headers stay cheap to include.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace attn::tutor {

/// `attn compute`'s options: the one struct the command line fills (src/cli/main.cpp) and the
/// compute layer reads. check_compute_options validates it once, before any file is read. A module
/// is given only the options it declares (ComputeModule::uses_heads, uses_causal, …): any other is
/// an InputError rather than ignored silently, and a module that needs --heads refuses to run
/// without it.
struct ComputeOptions {
    std::string module;   // the module's name (compute_modules())
    std::string in_dir;   // --in: one <name>.npy per input
    std::string out_dir;  // --out: one <name>.npy per output
    std::string weights;  // --weights model.npz: a state_dict saved with numpy.savez
    std::string prefix;   // --prefix P: strip P from the archive's keys (weight_prefix.hpp); empty: detected
    int heads = 0;        // --heads h: the number of heads (mha); 0 = not given
    bool causal = false;  // --causal: hide keys s > t from query t (self-attention, mha)
    std::string causal_alignment;  // --causal-alignment top-left|bottom-right (needs --causal); empty: top-left
    // The encoder layer's options (ComputeModule::uses_layer_options):
    bool norm_first = false;    // --norm-first: pre-norm instead of post-norm
    std::optional<double> eps;  // --eps: layer norm eps, > 0; absent: 1e-5
    std::optional<double> norm_eps;  // --norm-eps: the encoder's final norm's eps, > 0; absent: eps
    std::string activation;     // --activation relu|gelu|gelu-tanh; empty: relu
    /// --no-output-projection (mha): no w_o, the output is the heads side by side (seed 000). Without
    /// it a missing w_o is refused: a forgotten out_proj.weight must not pass for seed 000's block.
    bool no_output_projection = false;
    /// --seq-first: the sequences (query, key, value, x) and the output are (T, B, D), PyTorch's
    /// batch_first=False; ComputeModule::uses_sequence_first.
    bool seq_first = false;
    /// --precision float32|float64 (ComputeModule::has_fast_path); empty: float32 when every
    /// floating-point input is float32 (tutor/compute/compute_fast.hpp), else float64.
    std::string precision;
    // Lesson 8's options (ComputeModule::uses_rope_options, uses_embedding_options):
    std::string rope_layout;               // --rope-layout halves|pairs (rope); empty: halves
    std::optional<double> rope_base;       // --rope-base, finite > 0 (rope); absent: 10000
    std::optional<std::int64_t> padding_idx;  // --padding-idx, in [-V, V) (embedding; the forward ignores it)
    std::optional<double> scale;           // --scale, finite (embedding); absent: 1
    /// --grad (ComputeModule::has_backward): also grad_NAME.npy for every floating-point input NAME,
    /// from --in's grad_output.npy, the upstream gradient of `output`; on the lesson path (double).
    bool grad = false;
    std::optional<int> threads;  // --threads: the fast path's threads; absent: the physical cores
    /// Filled by the loader, not the command line: the inputs read from bool or integer files (a
    /// bool attn_mask hides where True, a float one is added to the scores; mask_conventions.hpp).
    std::set<std::string> integer_inputs;
};

}  // namespace attn::tutor
