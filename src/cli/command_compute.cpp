// `attn compute MODULE --in DIR --out DIR`: a lesson's computation on the user's own tensors.
//
// Inputs are DIR/<name>.npy (float32 or float64, C order), read only when they are regular files
// (attn/files.hpp). Outputs are OUT/<name>.npy, float32 when every input was float32 and float64
// otherwise. Either every output is written or none (write_files_atomically), even when killed.
#include <filesystem>
#include <iostream>
#include <new>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/npy_tensor.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "cli/commands.hpp"
#include "tutor/compute_modules.hpp"

namespace attn::cli {

namespace fs = std::filesystem;

namespace {

// Every output in one all-or-none write (attn/files.hpp): a run that fails or is killed leaves
// the folder as it was.
void write_outputs(const std::string& out_dir, const tutor::NamedTensors& outputs, NpyDtype dtype) {
    prepare_output_folder(out_dir);
    std::vector<OutputFile> files;
    for (const auto& [name, tensor] : outputs) {
        files.push_back({(fs::path(out_dir) / (name + ".npy")).string(), encode_npy(tensor, dtype)});
    }
    write_files_atomically(files);
}

}  // namespace

std::string describe_compute_modules() {
    std::string text = "Modules:\n";
    for (const auto& module : tutor::compute_modules()) {
        text += "  " + module.name + "  " + module.summary + "\n    inputs (DIR/<name>.npy):\n";
        for (const auto& spec : module.inputs) {
            text += "      " + spec.name + " " + tutor::dimension_legend(spec) + (spec.required ? "" : " optional") +
                    "  " + spec.meaning + "\n";
        }
        text += "    outputs (OUT/<name>.npy):\n";
        for (const auto& spec : module.outputs) {
            text += "      " + spec.name + " " + tutor::dimension_legend(spec) + "  " + spec.meaning + "\n";
        }
        if (module.uses_heads || module.uses_causal || module.uses_layer_options) {
            text += std::string("    options:") + (module.uses_heads ? " --heads h (required)" : "") +
                    (module.uses_causal ? " --causal [--causal-alignment top-left|bottom-right]" : "") +
                    (module.uses_layer_options ? " --norm-first --eps X (default 1e-5) --activation relu|gelu (default relu)" : "") +
                    "\n";
        }
    }
    return text;
}

int run_compute(const GlobalOptions&, const ComputeOptions& options) {
    const tutor::ComputeModule& module = tutor::find_compute_module(options.module);
    tutor::ComputeOptions module_options;
    module_options.heads = options.heads;
    module_options.causal = options.causal;
    module_options.causal_alignment = options.causal_alignment;
    module_options.norm_first = options.norm_first;
    module_options.eps = options.eps;
    module_options.activation = options.activation;
    tutor::check_compute_options(module, module_options);  // before any file is read
    std::error_code error;
    if (!fs::is_directory(options.in_dir, error)) {
        throw InputError("the input folder " + printable_text(options.in_dir) + " does not exist or is not a folder");
    }
    tutor::NamedTensors inputs;
    bool all_float32 = true;
    for (const auto& spec : module.inputs) {
        const std::string path = (fs::path(options.in_dir) / (spec.name + ".npy")).string();
        // A dangling link is missing too; anything that exists is read_npy's to accept or refuse.
        if (!fs::exists(fs::symlink_status(path, error))) {
            if (!spec.required) continue;
            throw InputError("missing input file " + printable_text(path) + ": " + module.name + " needs " + spec.name + " " +
                             tutor::dimension_legend(spec) + ", " + spec.meaning);
        }
        const NpyArray array = read_npy(path);
        all_float32 = all_float32 && array.dtype == NpyDtype::float32;
        inputs[spec.name] = to_tensor(array);
    }
    // A file the module does not read is most often a misspelt input name: say so.
    for (const auto& entry : fs::directory_iterator(options.in_dir, error)) {
        if (entry.path().extension() != ".npy") continue;
        const std::string name = entry.path().stem().string();
        bool known = false;
        for (const auto& spec : module.inputs) known = known || spec.name == name;
        if (!known) {
            std::cerr << "note: " << printable_text(entry.path().string()) << " is not an input of " << module.name
                      << "; ignored\n";
        }
    }
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
        throw InputError(module.name + ": out of memory computing on " + shapes + "; are the input shapes what you meant?");
    }
    const NpyDtype dtype = all_float32 ? NpyDtype::float32 : NpyDtype::float64;
    write_outputs(options.out_dir, outputs, dtype);
    for (const auto& spec : module.outputs) {
        const auto found = outputs.find(spec.name);
        if (found == outputs.end()) continue;
        std::cout << "wrote " << printable_text((fs::path(options.out_dir) / (spec.name + ".npy")).string()) << "  "
                  << shape_string(found->second.shape()) << " " << dtype_name(dtype) << "\n";
    }
    return exit_success;
}

}  // namespace attn::cli
