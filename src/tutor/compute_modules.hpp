// tutor/compute_modules.hpp — `attn compute MODULE`: a lesson's computation on the user's tensors.
//
// Why a table: every module follows the same rules (inputs DIR/<name>.npy, outputs OUT/<name>.npy,
// ranks and shared dimensions checked before anything runs), so the rules live here once and a
// module is only its list of tensors and a function. A shape legend such as "B,S,H" is enforced:
// every tensor that uses the letter H must agree on its size ("2H" means twice H, "1" a literal 1).
//
//   const ComputeModule& dot = find_compute_module("dot");
//   NamedTensors out = run_compute_module(dot, {{"encoder_outputs", A}, {"decoder_output", b}}, {});
//   out["context"];   // (B, H)
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "attn/masks.hpp"
#include "tutor/lesson/lessons.hpp"

namespace attn::tutor {

struct TensorSpec {
    std::string name;
    std::string dimensions;  // "B,S,H"
    bool required = true;
    std::string meaning;
};

/// Options of `attn compute` that some modules use. A module is given only the options it
/// declares (ComputeModule::uses_heads, uses_causal): run_compute_module refuses any other with an
/// InputError rather than ignore it silently, and refuses a module that needs --heads without it.
struct ComputeOptions {
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
    /// The inputs read from bool or integer files: a mask's meaning depends on it (a bool attn_mask
    /// hides where True, a float one is added to the scores; tutor/mask_conventions.hpp).
    std::set<std::string> integer_inputs;
    /// --seq-first: the sequences (query, key, value, x) and the output are (T, B, D), PyTorch's
    /// batch_first=False; ComputeModule::uses_sequence_first.
    bool seq_first = false;
};

struct ComputeModule {
    std::string name;
    std::string summary;
    int lesson = 0;
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> outputs;
    NamedTensors (*run)(const NamedTensors& inputs, const ComputeOptions& options) = nullptr;
    bool uses_heads = false;   // needs --heads (and refuses to run without it)
    bool uses_causal = false;  // accepts --causal
    bool uses_layer_options = false;  // accepts --norm-first, --eps and --activation (encoder-layer)
    /// Legends of the largest intermediates beyond the outputs ("B,T,F"), checked against
    /// max_tensor_values (attn/shape.hpp) with the outputs before anything is allocated.
    std::vector<std::string> working_sizes = {};
    /// The encoder: besides `inputs`, every encoder-layer weight once per layer, named
    /// layers_N_<name> (nn.TransformerEncoder's state_dict: layers.N.…).
    bool layered = false;
    bool uses_sequence_first = false;  // accepts --seq-first (mha, encoder-layer, encoder)
    bool uses_final_norm = false;      // accepts --norm-eps (encoder)
    bool uses_output_projection_choice = false;  // accepts --no-output-projection (mha)
};

const std::vector<ComputeModule>& compute_modules();

/// The causal mask's alignment the options ask for (top-left when none is given); InputError for
/// an unknown name.
CausalAlignment alignment_of(const ComputeOptions& options);

/// "nan", "inf" or "-inf": how a non-finite value is named in messages.
std::string non_finite_text(double value);

/// InputError listing the modules when `name` is not one of them.
const ComputeModule& find_compute_module(const std::string& name);

/// "(B, S, H)"; a scores mask: "(T, S) or (B·h, T, S)".
std::string dimension_legend(const TensorSpec& spec);

/// Whether `module` reads an input of this name (for the encoder, layers_N_<weight> too).
bool reads_input(const ComputeModule& module, const std::string& name);

/// The input of `module` that a name which is not one most likely meant: PyTorch's other names for
/// a mask (src_key_padding_mask → key_padding_mask, src_mask ↔ attn_mask), a name within a few
/// letters, a layer weight without its layer; nullopt when none is close.
std::optional<std::string> closest_input(const ComputeModule& module, const std::string& name);

/// Whether a name that is not an input looks like a mask or a weight (then it is refused rather
/// than ignored: a mask or weight left out silently changes every number).
bool looks_like_mask_or_weight(const std::string& name);

/// InputError "'name' is not an input of MODULE; did you mean …?" (or the list of its inputs).
[[noreturn]] void refuse_unknown_input(const ComputeModule& module, const std::string& name, const std::string& where);

/// Checks that every required input is present, every rank and shared size agrees, no size is zero
/// and every value is finite; throws InputError / ShapeError naming the tensors and their shapes
/// (and the index of a value that is NaN or ±∞).
void validate_compute_inputs(const ComputeModule& module, const NamedTensors& inputs);

/// InputError when an output, or a large intermediate the module builds on the way, would hold
/// more than max_tensor_values (attn/shape.hpp): small inputs can ask for huge scores. The inputs
/// have passed validate_compute_inputs.
void check_compute_working_sizes(const ComputeModule& module, const NamedTensors& inputs, const ComputeOptions& options);

/// InputError when the module needs --heads and was not given it, or is given --heads or --causal
/// that it does not use, or --causal-alignment without --causal or with an unknown name, or
/// --norm-eps / --no-output-projection to a module without a final norm / an output projection.
void check_compute_options(const ComputeModule& module, const ComputeOptions& options);

/// Validates, checks that no output or large intermediate would hold more than max_tensor_values
/// (attn/shape.hpp), runs, and checks the outputs (present, finite); returns them by name.
NamedTensors run_compute_module(const ComputeModule& module, const NamedTensors& inputs, const ComputeOptions& options);

}  // namespace attn::tutor
