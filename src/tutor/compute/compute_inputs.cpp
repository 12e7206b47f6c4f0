// `attn compute`'s inputs and its run (tutor/compute/compute_inputs.hpp).
#include "tutor/compute/compute_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <new>

#include "attn/error.hpp"
#include "attn/fast/threads.hpp"
#include "attn/npy_tensor.hpp"
#include "attn/npz.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "tutor/compute/compute_fast.hpp"
#include "tutor/compute/compute_gradients.hpp"
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/compute/model_config.hpp"
#include "tutor/compute/named_weights.hpp"
#include "tutor/compute/weight_prefix.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace fs = std::filesystem;

namespace {

// The element types an input may have: a mask may be bool or integer (its meaning depends on it);
// token ids and positions (lesson 8) are integers, refused by their module when read as floats.
bool is_index_input(const std::string& name) {
    const std::string canonical = canonical_weight_name(name);
    return canonical == "ids" || canonical == "positions_q" || canonical == "positions_k";
}

NpyAccept accept_for(const std::string& name) {
    if (name == model_config_member) return NpyAccept::floats_bools_integers;  // uint8 bytes of JSON
    return mask_convention(canonical_weight_name(name)) == MaskConvention::none && !is_index_input(name)
               ? NpyAccept::floats
               : NpyAccept::floats_bools_integers;
}

// Returns false when the name is not an input (and noted); throws when it must not be ignored.
bool accept_name(const ComputeModule& module, ComputeInputs& loaded, const std::string& name, const std::string& where) {
    if (!reads_input(module, name)) {
        if (looks_like_mask_or_weight(name) || closest_input(module, name)) refuse_unknown_input(module, name, where);
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

void add_input(ComputeInputs& loaded, const std::string& name, NpyArray&& array) {
    // A bool index tensor is not read as 0/1 ids: PyTorch's F.embedding refuses it (it wants
    // torch.long), and True/False where token ids belong is a mask saved under the wrong name.
    if (array.dtype == NpyDtype::boolean && is_index_input(name)) {
        throw InputError(trf("{1} holds booleans; token ids and positions must be integers (int64, torch.long)",
                             {loaded.sources.at(name)}));
    }
    if (array.dtype == NpyDtype::boolean || array.dtype == NpyDtype::integer) {
        loaded.integer_inputs.insert(name);
    } else {
        loaded.all_float32 = loaded.all_float32 && array.dtype == NpyDtype::float32;
    }
    loaded.arrays[name] = std::move(array);
}

std::vector<fs::path> npy_files_in(const std::string& folder) {
    std::error_code error;
    if (!fs::is_directory(folder, error)) {
        throw InputError(trf("the input folder {1} does not exist or is not a folder", {printable_text(folder)}));
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        if (entry.path().extension() == ".npy") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // the same message whatever the folder's order
    return files;
}

// The members of --weights: the config aside, the others under their names without the prefix;
// members outside the prefix are counted in one note.
void load_archive(const ComputeModule& module, const ComputeOptions& options, ComputeInputs& loaded) {
    std::vector<NpzMember> members = read_npz(options.weights, accept_for, NpyFloat32::keep);
    std::vector<std::string> keys;
    for (const auto& member : members) {
        if (member.first != model_config_member) keys.push_back(member.first);
    }
    const std::string archive = printable_text(options.weights);
    const std::string prefix = weight_prefix(module, keys, options.prefix, archive);
    if (!prefix.empty() && options.prefix.empty()) {
        std::cerr << tr("note: ") << trf("{1}: reading the members under '{2}' (the one prefix that fits {3})",
                                         {archive, printable_text(prefix), module.name}) << "\n";
    }
    std::size_t outside = 0;
    for (auto& [key, array] : members) {
        if (key == model_config_member) {
            loaded.config = std::move(array);
            continue;
        }
        if (key.rfind(prefix, 0) != 0) {
            ++outside;
            continue;
        }
        const auto& skipped = module.skipped_members;
        if (prefix.empty() && std::find(skipped.begin(), skipped.end(), key) != skipped.end()) {
            std::cerr << tr("note: ")
                      << trf("{1}[{2}] belongs to the model built around {3} (attn train copy's embeddings and "
                             "generator) and is not one of its inputs; ignored",
                             {archive, key, module.name})
                      << "\n";
            continue;
        }
        const std::string name = canonical_weight_name(key.substr(prefix.size()));
        if (!accept_name(module, loaded, name, archive + "[" + printable_text(key) + "]")) continue;
        add_input(loaded, name, std::move(array));
    }
    if (outside > 0) {
        std::cerr << tr("note: ") << trn("{1}: {2} member outside the prefix '{3}' ignored",
                                         "{1}: {2} members outside the prefix '{3}' ignored", outside,
                                         {archive, std::to_string(outside), printable_text(prefix)}) << "\n";
    }
}

}  // namespace

ComputeInputs load_compute_inputs(const ComputeModule& module, const ComputeOptions& options) {
    ComputeInputs loaded;
    // float32 values are kept as they are; the lesson path widens them (widen_inputs).
    for (const auto& path : npy_files_in(options.in_dir)) {
        if (options.grad && path.stem() == grad_output_name) {
            loaded.grad_output = read_npy(path.string(), NpyAccept::floats, NpyFloat32::keep);
            loaded.all_float32 = loaded.all_float32 && loaded.grad_output->dtype == NpyDtype::float32;
            loaded.files.push_back({"", path.string()});
            continue;
        }
        const std::string name = canonical_weight_name(path.stem().string());
        if (!accept_name(module, loaded, name, printable_text(path.string()))) continue;
        add_input(loaded, name, read_npy(path.string(), accept_for(name), NpyFloat32::keep));
        loaded.files.push_back({"", path.string()});
    }
    if (!options.weights.empty()) {
        loaded.files.push_back({"--weights", options.weights});
        load_archive(module, options, loaded);
    }
    for (const auto& spec : module.inputs) {
        if (!spec.required || loaded.arrays.count(spec.name)) continue;
        const std::string path = (fs::path(options.in_dir) / (spec.name + ".npy")).string();
        throw InputError(trf("missing input file {1}: {2} needs {3} {4}, {5}",
                             {printable_text(path), module.name, spec.name, dimension_legend(spec), tr(spec.meaning)}));
    }
    if (options.grad && !loaded.grad_output) {
        const std::string path = (fs::path(options.in_dir) / (std::string(grad_output_name) + ".npy")).string();
        throw InputError(trf("missing input file {1}: --grad needs grad_output, the gradient of the loss with respect to "
                             "output (the tensor output.backward(grad_output) takes), of output's shape",
                             {printable_text(path)}));
    }
    return loaded;
}

NamedTensors widen_inputs(ComputeInputs& inputs) {
    NamedTensors tensors;
    for (auto& [name, array] : inputs.arrays) {
        tensors[name] = to_tensor(array);
        array = NpyArray();
    }
    return tensors;
}

namespace {

NamedShapes shapes_of(const ComputeInputs& inputs) {
    NamedShapes shapes;
    for (const auto& [name, array] : inputs.arrays) shapes[name] = array.shape;
    return shapes;
}

// "model.npz[attn_config]": the config's name in messages.
std::string config_source(const ComputeOptions& options) {
    return printable_text(options.weights) + "[" + model_config_member + "]";
}

// Whether the weights hold a final norm, whose eps the config must then give.
bool has_final_norm(const ComputeInputs& inputs) {
    for (const char* name : {"norm_weight", "norm_bias", "encoder_norm_weight", "decoder_norm_weight"}) {
        if (inputs.arrays.count(name)) return true;
    }
    return false;
}

NamedTensors compute_outputs(const ComputeModule& module, ComputeInputs& inputs, ComputeOptions& options, bool fast) {
    options.integer_inputs = inputs.integer_inputs;
    if (fast) return run_compute_module_fast(module, inputs, options);
    const NamedTensors tensors = widen_inputs(inputs);
    NamedTensors outputs = run_compute_module(module, tensors, options);
    if (inputs.grad_output) add_gradients(module, tensors, to_tensor(*inputs.grad_output), options, outputs);
    return outputs;
}

}  // namespace

ComputeRun compute(const ComputeOptions& given) {
    const ComputeModule& module = find_compute_module(given.module);
    // The options are checked before any file is read; with --weights, once its config has filled them.
    if (given.weights.empty()) check_compute_options(module, given);
    ComputeOptions options = given;
    ComputeInputs inputs = load_compute_inputs(module, options);
    if (inputs.config) {
        apply_model_config(module, read_model_config(*inputs.config, config_source(options)), config_source(options),
                           has_final_norm(inputs), options);
    }
    if (!given.weights.empty()) check_compute_options(module, options);
    const NamedShapes shapes = shapes_of(inputs);
    check_heads_divide_model(module, shapes, options.heads);
    ComputeRun run;
    run.files = inputs.files;
    run.dtype = inputs.all_float32 ? NpyDtype::float32 : NpyDtype::float64;
    try {
        run.fast = runs_on_fast_path(module, options, inputs);
        if (run.fast && options.threads) fast::set_threads(*options.threads);
        run.threads = run.fast ? fast::threads() : 1;
        run.outputs = compute_outputs(module, inputs, options, run.fast);
    } catch (const InputError& e) {
        // Every message starts with the module's name once (the shape checks already give it).
        const std::string message = e.what(), prefix = module.name + ": ";
        throw InputError(message.rfind(prefix, 0) == 0 ? message : prefix + message);
    } catch (const std::bad_alloc&) {
        // Here the sizes come from the user's files: the hint is about them.
        std::string listed;
        for (const auto& [name, shape] : shapes) listed += (listed.empty() ? "" : ", ") + name + " " + shape_string(shape);
        throw InputError(trf("{1}: out of memory computing on {2}; are the input shapes what you meant?", {module.name, listed}));
    }
    return run;
}

}  // namespace attn::tutor
