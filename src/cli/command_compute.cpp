// `attn compute MODULE --in DIR --out DIR`: a lesson's computation on the user's own tensors.
//
// The command line's part: the options arrive in the compute layer's own struct (filled by CLI11 in
// main.cpp); reading the inputs, PyTorch's conventions and the computation, on the lesson path or
// the fast path, are the compute layer's (tutor/compute/compute_inputs.hpp). Here: the help's list
// of modules, and the outputs, OUT/<name>.npy, float32 when every input was float32 and float64
// otherwise, every one written or none (write_files_atomically), even when killed.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "attn/files.hpp"
#include "attn/npy_tensor.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "cli/commands.hpp"
#include "tutor/compute/compute_inputs.hpp"
#include "tutor/language.hpp"

namespace attn::cli {

namespace fs = std::filesystem;
using tutor::tr;
using tutor::trf;
using tutor::trn;

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

namespace {

// "encoder_layers_" → "encoder.layers.": a stack's prefix as the state_dict writes it.
std::string dotted(std::string prefix) {
    for (char& c : prefix) c = c == '_' ? '.' : c;
    return prefix;
}

}  // namespace

std::string describe_compute_modules() {
    std::string text = tr("Modules:") + "\n";
    for (const auto& module : tutor::compute_modules()) {
        text += "  " + module.name + "  " + tutor::lesson_of(module) + ": " + tr(module.summary) + "\n    " + tr("inputs (DIR/<name>.npy):") + "\n";
        for (const auto& spec : module.inputs) {
            text += "      " + spec.name + " " + tutor::dimension_legend(spec) + (spec.required ? "" : " " + tr("optional")) +
                    "  " + tr(spec.meaning) + "\n";
        }
        for (const auto& stack : tutor::layer_stacks(module.name)) {
            text += trf("      {1}N_<name>  every {2} weight above, once per layer N = 0, 1, …\n"
                        "                       (state_dict names: {3}0.norm1.weight, …)\n",
                        {stack.prefix, stack.layer_module, dotted(stack.prefix)});
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
                    (module.has_fast_path ? " --precision float32|float64 --threads N" : "") +
                    (module.has_backward ? " --grad" : "") + "\n";
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
              "    positions that are not padding.\n") +
           "\n" +
           tr("Precision (mha, encoder-layer, encoder): float32 inputs run on the float32 fast path (attn::fast),\n"
              "  as PyTorch computes; results differ from the double lesson path by float32 rounding (~1e-6\n"
              "  relative). --precision float64 runs the lesson path, as float64 inputs always do. An attn_mask\n"
              "  or src_mask other than the causal mask, and --causal-alignment bottom-right, have no fast form:\n"
              "  such a run takes the lesson path (with --precision float32 it is refused). --threads N: the\n"
              "  fast path's threads (default: the physical cores).\n");
}

namespace {

// A run allocates and frees buffers the size of a layer's weights again and again (each layer's
// weights converted in turn, then the outputs). glibc hands such large blocks back to the system
// when they are freed, and every new one is then faulted in page by page: on the 6-layer
// d_model 512 encoder of docs/performance.md, 0.22 s of system time in a 1.3 s run. This
// one-shot process keeps freed memory for reuse instead (0.10 s; peak memory 2 % higher).
void keep_freed_memory_for_reuse() {
#ifdef __GLIBC__
    constexpr int large = 1 << 30;
    mallopt(M_MMAP_THRESHOLD, large);
    mallopt(M_TRIM_THRESHOLD, large);
#endif
}

}  // namespace

int run_compute(const GlobalOptions&, const ComputeOptions& options) {
    keep_freed_memory_for_reuse();
    const tutor::ComputeRun run = tutor::compute(options);
    write_outputs(options.out_dir, run.outputs, run.dtype, run.files);
    // The module's outputs in its order, then the gradients (--grad) by name.
    std::vector<std::string> written;
    for (const auto& spec : tutor::find_compute_module(options.module).outputs) written.push_back(spec.name);
    for (const auto& [name, tensor] : run.outputs) {
        if (name.rfind("grad_", 0) == 0) written.push_back(name);
    }
    for (const auto& name : written) {
        const auto found = run.outputs.find(name);
        if (found == run.outputs.end()) continue;
        std::cout << trf("wrote {1}  {2} {3}", {printable_text((fs::path(options.out_dir) / (name + ".npy")).string()),
                                                 shape_string(found->second.shape()), dtype_name(run.dtype)})
                  << "\n";
    }
    std::cout << (run.fast ? trn("computed in float32 on the fast path (attn::fast), {1} thread",
                                 "computed in float32 on the fast path (attn::fast), {1} threads", run.threads,
                                 {std::to_string(run.threads)})
                           : tr("computed in float64 on the lesson path"))
              << "\n";
    return exit_success;
}

}  // namespace attn::cli
