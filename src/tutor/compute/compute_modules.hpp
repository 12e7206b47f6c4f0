// tutor/compute/compute_modules.hpp — `attn compute MODULE`: a lesson's computation on the user's tensors.
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

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "attn/masks.hpp"
#include "tutor/compute/compute_options.hpp"
#include "tutor/compute/named_weights.hpp"
#include "tutor/lesson/lessons.hpp"

namespace attn::tutor {

struct TensorSpec {
    std::string name;
    std::string dimensions;  // "B,S,H"
    bool required = true;
    std::string meaning;
};

struct ComputeModule {
    std::string name;
    std::string summary;
    /// The slug of the lesson it belongs to (its folder lessons/NN-slug/); the number is the lesson
    /// table's (lesson_of), so that renumbering the lessons needs no edit here.
    std::string lesson;
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
    bool has_fast_path = false;  // runs on attn::fast in float32; accepts --precision (compute_fast.hpp)
    bool uses_rope_options = false;       // accepts --rope-layout and --rope-base (rope)
    bool uses_embedding_options = false;  // accepts --padding-idx and --scale (embedding)
    bool has_backward = false;  // accepts --grad (self-attention, mha, encoder-layer; compute_gradients.hpp)
    /// Archive members of a model built around this module that it does not read (attn train copy's
    /// embeddings and generator around nn.Transformer): noted and skipped, not refused as unknown.
    std::vector<std::string> skipped_members = {};
};

const std::vector<ComputeModule>& compute_modules();

/// Lesson 8's modules: positions, rope, embedding (compute_position_modules.cpp).
std::vector<ComputeModule> position_modules();

/// Lesson 9's modules: decoder-layer, decoder, transformer (compute_decoder_modules.cpp); their layers share
/// `encoder_layer`'s weight names.
std::vector<ComputeModule> decoder_modules(const ComputeModule& encoder_layer);

/// InputError when --norm-eps is given and the model has no final norm.
void check_norm_eps_has_norm(const ComputeOptions& options, bool has_final_norm);

/// InputError when --rope-layout, --rope-base, --padding-idx or --scale is given to a module that
/// does not take it, or --rope-layout, --rope-base or --scale holds a value they refuse.
void check_position_options(const ComputeModule& module, const ComputeOptions& options);

/// "lesson 5" for a module of lessons/05-multi-head-attention/, from the lessons found in
/// `lessons_dir` (lessons_directory's rules); the slug alone when that lesson is not found there.
std::string lesson_of(const ComputeModule& module, const std::string& lessons_dir = "");

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

/// Checks that every input is one the module reads, every required input is present, every rank
/// and shared size agrees and no size is zero; throws InputError / ShapeError naming the tensors
/// and their shapes.
void validate_compute_shapes(const ComputeModule& module, const NamedShapes& shapes);

/// InputError "NAME holds nan at [i, j]; inputs must be finite numbers" for the first value of
/// an input that is NaN or ±∞ (masks are not checked here: mask_conventions.hpp reads them).
void check_finite_input(const std::string& name, const double* values, const std::vector<std::size_t>& shape);
void check_finite_input(const std::string& name, const float* values, const std::vector<std::size_t>& shape);

/// validate_compute_shapes, then every value finite.
void validate_compute_inputs(const ComputeModule& module, const NamedTensors& inputs);

/// InputError when an output, or a large intermediate the module builds on the way, would hold
/// more than max_tensor_values (attn/shape.hpp): small inputs can ask for huge scores. The inputs
/// have passed validate_compute_inputs.
void check_compute_working_sizes(const ComputeModule& module, const NamedShapes& inputs, const ComputeOptions& options);

/// --heads must divide D, the last dimension of query (mha) or x (encoder-layer, encoder): said
/// before the library says it (in English), in the tutor's language, naming the tensor and its shape.
void check_heads_divide_model(const ComputeModule& module, const NamedShapes& inputs, int heads);

/// InputError when the module needs --heads and was not given it, or is given --heads or --causal
/// that it does not use, or --causal-alignment without --causal or with an unknown name, or
/// --norm-eps / --no-output-projection to a module without a final norm / an output projection.
void check_compute_options(const ComputeModule& module, const ComputeOptions& options);

/// The lesson path, in double: validates, checks that no output or large intermediate would hold
/// more than max_tensor_values (attn/shape.hpp), runs, and checks the outputs (present, finite);
/// returns them by name. `options` have passed check_compute_options.
NamedTensors run_compute_module(const ComputeModule& module, const NamedTensors& inputs, const ComputeOptions& options);

/// validate_compute_shapes; under --seq-first a ShapeError also says that the sequences were read
/// (T, B, D) and are shown batch-first.
void validate_compute_layout(const ComputeModule& module, const NamedShapes& shapes, const ComputeOptions& options);

/// A sequence tensor (B, T, ·) or (B, S, ·): laid out (T, B, ·) under --seq-first.
bool is_sequence(const TensorSpec& spec);

/// --causal and its alignment (self-attention, mha).
AttentionOptions causal_attention_options(const ComputeOptions& options);

/// mha's: --causal, and the masks among the inputs (tutor/compute/mask_conventions.hpp).
AttentionOptions mha_attention_options(const NamedTensors& inputs, const ComputeOptions& options);

/// encoder-layer's (and each of encoder's layers'): --heads, --norm-first, --eps, --activation and the masks.
EncoderLayerOptions encoder_layer_options(const NamedTensors& inputs, const ComputeOptions& options);

/// (T, B, D) ↔ (B, T, D): axes 0 and 1 swapped (--seq-first); a tensor of another rank as it is.
DynamicTensor swap_first_axes(const DynamicTensor& x);

/// InputError naming the result `name` and the index of its first value that is NaN or ±∞.
void check_finite_result(const std::string& name, const DynamicTensor& result);

/// The outputs' last checks, on either path: every required output present, every value finite
/// (InputError naming the output and the index); turned sequence-first back under --seq-first.
void finish_outputs(const ComputeModule& module, NamedTensors& outputs, const ComputeOptions& options);

}  // namespace attn::tutor
