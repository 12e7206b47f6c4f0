// `attn compute MODULE --in DIR --out DIR`: a lesson's computation on the user's own tensors.
//
// Inputs are DIR/<name>.npy (float32 or float64, C order). Outputs are OUT/<name>.npy, float32
// when every input was float32 and float64 otherwise. Either every output is written or none:
// each goes to a temporary file first, and the files are renamed into place only when all of
// them were written.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "attn/error.hpp"
#include "attn/npy.hpp"
#include "attn/shape.hpp"
#include "cli/commands.hpp"
#include "tutor/compute_modules.hpp"

namespace attn::cli {

namespace fs = std::filesystem;

namespace {

struct PendingFile {
    std::string temporary, final;
};

void remove_all(const std::vector<PendingFile>& files) {
    for (const auto& file : files) std::remove(file.temporary.c_str());
}

void write_outputs(const std::string& out_dir, const tutor::NamedTensors& outputs, NpyDtype dtype) {
    std::error_code error;
    fs::create_directories(out_dir, error);
    if (error || !fs::is_directory(out_dir)) {
        throw InputError("cannot create the output folder " + out_dir + ": " +
                         (error ? error.message() : "a file of that name is in the way"));
    }
    std::vector<PendingFile> pending;
    for (const auto& [name, tensor] : outputs) {
        PendingFile file{(fs::path(out_dir) / ("." + name + ".npy.tmp-" + std::to_string(::getpid()))).string(),
                         (fs::path(out_dir) / (name + ".npy")).string()};
        pending.push_back(file);
        const std::vector<std::size_t> shape(tensor.shape().begin(), tensor.shape().end());
        const std::string bytes = encode_npy(shape, std::vector<double>(tensor.begin(), tensor.end()), dtype);
        std::ofstream stream(file.temporary, std::ios::binary | std::ios::trunc);
        stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        stream.close();
        if (!stream) {
            remove_all(pending);
            throw InputError("cannot write " + file.final + " (the output folder " + out_dir + " is not writable or the disk is full)");
        }
    }
    for (std::size_t i = 0; i < pending.size(); ++i) {
        if (std::rename(pending[i].temporary.c_str(), pending[i].final.c_str()) != 0) {
            remove_all(std::vector<PendingFile>(pending.begin() + static_cast<long>(i), pending.end()));
            throw InputError("cannot write " + pending[i].final);
        }
    }
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
        throw InputError("the input folder " + options.in_dir + " does not exist or is not a folder");
    }
    tutor::NamedTensors inputs;
    bool all_float32 = true;
    for (const auto& spec : module.inputs) {
        const std::string path = (fs::path(options.in_dir) / (spec.name + ".npy")).string();
        if (!fs::exists(path, error)) {
            if (!spec.required) continue;
            throw InputError("missing input file " + path + ": " + module.name + " needs " + spec.name + " " +
                             tutor::dimension_legend(spec) + ", " + spec.meaning);
        }
        const NpyArray array = read_npy(path);
        all_float32 = all_float32 && array.dtype == NpyDtype::float32;
        DynamicTensor tensor = DynamicTensor::from_shape(array.shape);
        std::copy(array.values.begin(), array.values.end(), tensor.begin());
        inputs[spec.name] = std::move(tensor);
    }
    // A file the module does not read is most often a misspelt input name: say so.
    for (const auto& entry : fs::directory_iterator(options.in_dir, error)) {
        if (entry.path().extension() != ".npy") continue;
        const std::string name = entry.path().stem().string();
        bool known = false;
        for (const auto& spec : module.inputs) known = known || spec.name == name;
        if (!known) std::cerr << "note: " << entry.path().string() << " is not an input of " << module.name << "; ignored\n";
    }
    tutor::NamedTensors outputs;
    try {
        outputs = tutor::run_compute_module(module, inputs, module_options);
    } catch (const InputError& e) {
        throw InputError(module.name + ": " + e.what());
    }
    const NpyDtype dtype = all_float32 ? NpyDtype::float32 : NpyDtype::float64;
    write_outputs(options.out_dir, outputs, dtype);
    for (const auto& spec : module.outputs) {
        const auto found = outputs.find(spec.name);
        if (found == outputs.end()) continue;
        std::cout << "wrote " << (fs::path(options.out_dir) / (spec.name + ".npy")).string() << "  "
                  << shape_string(found->second.shape()) << " " << dtype_name(dtype) << "\n";
    }
    return exit_success;
}

}  // namespace attn::cli
