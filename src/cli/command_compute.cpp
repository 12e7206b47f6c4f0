// `attn compute MODULE --in DIR --out DIR`: a lesson's computation on the user's own tensors.
//
// Inputs are DIR/<name>.npy (float32 or float64, C order), read only when they are regular files
// (attn/files.hpp). Outputs are OUT/<name>.npy, float32 when every input was float32 and float64
// otherwise. Either every output is written or none (write_files_atomically), even when killed.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <set>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/npy_tensor.hpp"
#include "attn/npz.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "cli/commands.hpp"
#include "tutor/compute/compute_modules.hpp"
#include "tutor/language.hpp"
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::cli {

namespace fs = std::filesystem;
using tutor::tr;
using tutor::trf;

namespace {

// Every output in one all-or-none write (attn/files.hpp): a run that fails or is killed leaves
// the folder as it was.
// No output may be one of the files read (`inputs`): a link in --out to an input, or --weights
// inside --out under an output's name, would lose it.
void write_outputs(const std::string& out_dir, const tutor::NamedTensors& outputs, NpyDtype dtype,
                   const std::vector<InputPath>& inputs) {
    prepare_output_folder(out_dir);
    std::vector<OutputFile> files;
    for (const auto& [name, tensor] : outputs) {
        files.push_back({(fs::path(out_dir) / (name + ".npy")).string(), encode_npy(tensor, dtype)});
    }
    write_files_atomically(files, inputs);
}

}  // namespace

std::string describe_compute_modules() {
    std::string text = tr("Modules:") + "\n";
    for (const auto& module : tutor::compute_modules()) {
        text += "  " + module.name + "  " + tr(module.summary) + "\n    " + tr("inputs (DIR/<name>.npy):") + "\n";
        for (const auto& spec : module.inputs) {
            text += "      " + spec.name + " " + tutor::dimension_legend(spec) + (spec.required ? "" : " " + tr("optional")) +
                    "  " + tr(spec.meaning) + "\n";
        }
        if (module.layered) {
            text += tr("      layers_N_<name>  every encoder-layer weight above, once per layer N = 0, 1, …\n"
                       "                       (state_dict names: layers.0.self_attn.in_proj_weight, layers.0.norm1.weight, …)\n");
        }
        text += "    " + tr("outputs (OUT/<name>.npy):") + "\n";
        for (const auto& spec : module.outputs) {
            text += "      " + spec.name + " " + tutor::dimension_legend(spec) + "  " + tr(spec.meaning) + "\n";
        }
        if (module.uses_heads || module.uses_causal || module.uses_layer_options) {
            text += "    " + tr("options:") + (module.uses_heads ? " " + tr("--heads h (required)") : "") +
                    (module.uses_causal ? " --causal [--causal-alignment top-left|bottom-right]" : "") +
                    (module.uses_output_projection_choice ? " --no-output-projection" : "") +
                    (module.uses_layer_options ? " " + tr("--norm-first --eps X (default 1e-5) --activation relu|gelu|gelu-tanh (default relu)") : "") +
                    (module.uses_final_norm ? " " + tr("--norm-eps X (default: --eps)") : "") +
                    (module.uses_sequence_first ? " --seq-first" : "") +
                    "\n";
        }
    }
    return text + "\n" +
           tr("PyTorch settings a state_dict does not show (docs/bring-your-own-weights.md):\n"
              "  add_zero_attn=True (nn.MultiheadAttention) leaves no trace in the weights and attn does\n"
              "    not support it: such a model's output differs from attn's and nothing can warn you.\n"
              "    Check the model's code.\n"
              "  add_bias_kv (bias_k, bias_v) and kdim/vdim other than embed_dim (q_proj_weight, ...)\n"
              "    are refused.\n"
              "  bias=False (mha): leave every bias out. No out_proj: --no-output-projection.\n"
              "  A final nn.LayerNorm with its own eps: --norm-eps. F.gelu(approximate=\"tanh\"):\n"
              "    --activation gelu-tanh.\n"
              "  nn.TransformerEncoder's default enable_nested_tensor=True: in eval mode under no_grad,\n"
              "    with a src_key_padding_mask, no mask and post-norm layers, PyTorch returns zeros at\n"
              "    padded positions (norm.bias after a final norm); attn computes them. Compare the\n"
              "    positions that are not padding.\n");
}

namespace {

// The element types an input may have: a mask may be bool or integer (its meaning depends on it).
NpyAccept accept_for(const std::string& name) {
    return tutor::mask_convention(tutor::canonical_weight_name(name)) == tutor::MaskConvention::none
               ? NpyAccept::floats
               : NpyAccept::floats_bools_integers;
}

// The inputs as attn names them, from --in's .npy files and --weights' members; every name is read
// by the module, or refused with "did you mean" when it looks like a mask or a weight (one that is
// silently left out changes every number), or noted and ignored.
struct LoadedInputs {
    tutor::NamedTensors tensors;
    std::map<std::string, std::string> sources;  // name → where it came from, for messages
    std::vector<InputPath> files;                // every file read, which no output may replace
    std::set<std::string> integer_inputs;
    bool all_float32 = true;
};

// Returns false when the name is not an input (and noted); throws when it must not be ignored.
bool accept_name(const tutor::ComputeModule& module, LoadedInputs& loaded, const std::string& name,
                 const std::string& where) {
    if (!tutor::reads_input(module, name)) {
        if (tutor::looks_like_mask_or_weight(name) || tutor::closest_input(module, name)) {
            tutor::refuse_unknown_input(module, name, where);
        }
        std::cerr << tr("note: ") << trf("{1} is not an input of {2}; ignored", {where, module.name}) << "\n";
        return false;
    }
    const auto earlier = loaded.sources.find(name);
    if (earlier != loaded.sources.end()) {
        throw InputError(trf("{1} and {2} are both {3}; give it once", {where, earlier->second, name}));
    }
    loaded.sources[name] = where;
    return true;
}

void add_input(LoadedInputs& loaded, const std::string& name, const NpyArray& array) {
    if (array.dtype == NpyDtype::boolean || array.dtype == NpyDtype::integer) {
        loaded.integer_inputs.insert(name);
    } else {
        loaded.all_float32 = loaded.all_float32 && array.dtype == NpyDtype::float32;
    }
    loaded.tensors[name] = to_tensor(array);
}

LoadedInputs load_inputs(const tutor::ComputeModule& module, const ComputeOptions& options) {
    std::error_code error;
    if (!fs::is_directory(options.in_dir, error)) {
        throw InputError(trf("the input folder {1} does not exist or is not a folder", {printable_text(options.in_dir)}));
    }
    LoadedInputs loaded;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(options.in_dir, error)) {
        if (entry.path().extension() == ".npy") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // the same message whatever the folder's order
    for (const auto& path : files) {
        const std::string name = tutor::canonical_weight_name(path.stem().string());
        if (!accept_name(module, loaded, name, printable_text(path.string()))) continue;
        add_input(loaded, name, read_npy(path.string(), accept_for(name)));
        loaded.files.push_back({"", path.string()});
    }
    if (!options.weights.empty()) {
        loaded.files.push_back({"--weights", options.weights});
        for (const auto& [key, array] : read_npz(options.weights, accept_for)) {
            const std::string name = tutor::canonical_weight_name(key);
            if (!accept_name(module, loaded, name, printable_text(options.weights) + "[" + printable_text(key) + "]")) continue;
            add_input(loaded, name, array);
        }
    }
    for (const auto& spec : module.inputs) {
        if (!spec.required || loaded.tensors.count(spec.name)) continue;
        const std::string path = (fs::path(options.in_dir) / (spec.name + ".npy")).string();
        throw InputError(trf("missing input file {1}: {2} needs {3} {4}, {5}",
                             {printable_text(path), module.name, spec.name, tutor::dimension_legend(spec), tr(spec.meaning)}));
    }
    return loaded;
}

// mha's h must divide D, the last dimension of query: said here, in the tutor's language, before
// the library says it (in English, with the same words).
void check_heads_divide_model(const tutor::ComputeModule& module, const tutor::NamedTensors& inputs, int heads) {
    const auto query = inputs.find("query");
    if (module.name != "mha" || heads <= 0 || query == inputs.end() || query->second.dimension() == 0) return;
    const std::size_t model = query->second.shape().back();
    if (model % static_cast<std::size_t>(heads) == 0) return;
    throw InputError(trf("{1}: multi_head_attention: d_model D = {2} (the last dimension of query {3}) is not a multiple of "
                         "the number of heads h = {4}; each head gets d_k = D / h features, so h must divide D",
                         {module.name, std::to_string(model), shape_string(query->second.shape()), std::to_string(heads)}));
}

}  // namespace

int run_compute(const GlobalOptions&, const ComputeOptions& options) {
    const tutor::ComputeModule& module = tutor::find_compute_module(options.module);
    tutor::ComputeOptions module_options;
    module_options.heads = options.heads;
    module_options.causal = options.causal;
    module_options.causal_alignment = options.causal_alignment;
    module_options.norm_first = options.norm_first;
    module_options.eps = options.eps;
    module_options.norm_eps = options.norm_eps;
    module_options.no_output_projection = options.no_output_projection;
    module_options.activation = options.activation;
    module_options.seq_first = options.seq_first;
    tutor::check_compute_options(module, module_options);  // before any file is read
    LoadedInputs loaded = load_inputs(module, options);
    module_options.integer_inputs = loaded.integer_inputs;
    const tutor::NamedTensors& inputs = loaded.tensors;
    const bool all_float32 = loaded.all_float32;
    check_heads_divide_model(module, inputs, options.heads);
    tutor::NamedTensors outputs;
    try {
        outputs = tutor::run_compute_module(module, inputs, module_options);
    } catch (const InputError& e) {
        // Every message starts with the module's name once (the shape checks already give it).
        const std::string message = e.what(), prefix = module.name + ": ";
        throw InputError(message.rfind(prefix, 0) == 0 ? message : prefix + message);
    } catch (const std::bad_alloc&) {
        // Here the sizes come from the user's files: the hint is about them.
        std::string shapes;
        for (const auto& [name, tensor] : inputs) shapes += (shapes.empty() ? "" : ", ") + name + " " + shape_string(tensor.shape());
        throw InputError(trf("{1}: out of memory computing on {2}; are the input shapes what you meant?", {module.name, shapes}));
    }
    const NpyDtype dtype = all_float32 ? NpyDtype::float32 : NpyDtype::float64;
    write_outputs(options.out_dir, outputs, dtype, loaded.files);
    for (const auto& spec : module.outputs) {
        const auto found = outputs.find(spec.name);
        if (found == outputs.end()) continue;
        std::cout << trf("wrote {1}  {2} {3}", {printable_text((fs::path(options.out_dir) / (spec.name + ".npy")).string()),
                                                 shape_string(found->second.shape()), dtype_name(dtype)})
                  << "\n";
    }
    return exit_success;
}

}  // namespace attn::cli
