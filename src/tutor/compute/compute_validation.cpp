// `attn compute`'s checks before anything is computed (tutor/compute/compute_modules.hpp): every input's
// rank and shared sizes, the sizes of what a module would build, and the options a module uses.
#include "tutor/compute/compute_modules.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::tutor {

namespace {

// Checks every input's rank and sizes against the module's legends (attn/shape.hpp: one letter,
// one size) and returns the size of each letter ("B" → 2, "H" → 3); a missing required input is
// an InputError naming it.
ShapeLetters bind_dimensions(const ComputeModule& module, const NamedShapes& inputs) {
    std::vector<NamedShape> shapes;
    for (const auto& spec : module.inputs) {
        const auto found = inputs.find(spec.name);
        if (found == inputs.end()) {
            if (spec.required) throw InputError(trf("missing input '{1}' {2}", {spec.name, dimension_legend(spec)}));
            continue;
        }
        // A scores mask is (T, S) or (B·h, T, S): mask_conventions checks it, knowing h.
        if (mask_convention(spec.name) == MaskConvention::scores_mask) continue;
        shapes.emplace_back(spec.name, found->second, spec.dimensions);
    }
    // Every layer against its layer module's legends, with the same sequences: D and h agree
    // throughout. Layers may have their own F: checked one layer at a time; the widest F is kept,
    // for the size limit on the feed-forward network's (B, T, F) (check_working_sizes).
    std::optional<ShapeLetters> first;
    for (const auto& stack : layer_stacks(module.name)) {
        std::size_t count = 0;
        for (const auto& [name, tensor] : inputs) {
            if (const auto split = split_layer_name(name, stack.prefix)) count = std::max(count, split->first + 1);
        }
        for (std::size_t layer = 0; layer < count; ++layer) {
            const std::string prefix = stack.prefix + std::to_string(layer) + "_";
            for (const auto& spec : find_compute_module(stack.layer_module).inputs) {
                const auto found = inputs.find(prefix + spec.name);
                if (found != inputs.end()) shapes.emplace_back(prefix + spec.name, found->second, spec.dimensions);
            }
            ShapeLetters letters = check_shapes(module.name, shapes);
            if (!first) first = letters;
            if (letters.count("F") && (!first->count("F") || letters["F"] > (*first)["F"])) (*first)["F"] = letters["F"];
            shapes.erase(std::remove_if(shapes.begin(), shapes.end(),
                                        [&](const NamedShape& s) { return s.name.rfind(prefix, 0) == 0; }),
                         shapes.end());
        }
    }
    if (first) return *first;
    return check_shapes(module.name, shapes);
}

// The outputs, and the largest tensors the module builds on the way, must fit the limit on one
// tensor (attn/shape.hpp) before anything is allocated: small inputs can ask for huge scores.
void check_working_sizes(const ComputeModule& module, ShapeLetters letters, const ComputeOptions& options) {
    if (module.uses_heads) {
        // More heads than D, named with the option as it was given: a huge --heads would otherwise
        // be reported inside a size too large to show (legend_shape caps it). Other values that do
        // not divide D are the library's to refuse, naming the tensor.
        const std::size_t D = letters.count("D") ? letters["D"] : 0;
        if (D != 0 && static_cast<std::size_t>(options.heads) > D) {
            throw InputError("--heads " + std::to_string(options.heads) + " is more than the model width D = " +
                             std::to_string(D) + "; each head gets d_k = D / h features, so h must divide D");
        }
        letters["h"] = static_cast<std::size_t>(options.heads);
    }
    std::vector<std::pair<std::string, std::string>> tensors;  // (what, legend)
    for (const auto& spec : module.outputs) tensors.emplace_back("the output '" + spec.name + "'", spec.dimensions);
    for (const auto& legend : module.working_sizes) tensors.emplace_back("an intermediate", legend);
    for (const auto& [what, legend] : tensors) {
        checked_value_count(legend_shape(legend, letters), module.name + ": " + what + " (" + legend + ")");
    }
}

}  // namespace

namespace {

template <class Value>
void check_finite_values(const std::string& name, const Value* values, const std::vector<std::size_t>& shape) {
    // Masks hold −∞ by design; mask_conventions refuses what does not fit their convention.
    if (mask_convention(name) != MaskConvention::none) return;
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::isfinite(values[i])) {
            throw InputError(trf("{1} holds {2} at {3}; inputs must be finite numbers",
                                 {name, non_finite_text(values[i]), index_string(i, shape)}));
        }
    }
}

}  // namespace

void validate_compute_shapes(const ComputeModule& module, const NamedShapes& shapes) {
    for (const auto& [name, shape] : shapes) {
        if (!reads_input(module, name)) refuse_unknown_input(module, name, "'" + printable_text(name) + "'");
    }
    bind_dimensions(module, shapes);
}

void check_finite_input(const std::string& name, const double* values, const std::vector<std::size_t>& shape) {
    check_finite_values(name, values, shape);
}

void check_finite_input(const std::string& name, const float* values, const std::vector<std::size_t>& shape) {
    check_finite_values(name, values, shape);
}

void validate_compute_inputs(const ComputeModule& module, const NamedTensors& inputs) {
    const NamedShapes shapes = shapes_of(inputs);
    validate_compute_shapes(module, shapes);
    for (const auto& [name, tensor] : inputs) check_finite_input(name, tensor.data(), shapes.at(name));
}

void check_heads_divide_model(const ComputeModule& module, const NamedShapes& inputs, int heads) {
    // The tensor whose last dimension is D.
    const std::string tokens = module.name == "mha" ? "query" : reads_input(module, "tgt") ? "tgt" : "x";
    const auto found = inputs.find(tokens);
    if (!module.uses_heads || heads <= 0 || found == inputs.end() || found->second.empty()) return;
    const std::size_t model = found->second.back();
    // The layers' "--heads H is more than the model width D" comes later (check_compute_working_sizes);
    // mha names query here whatever h.
    const bool said_later = tokens != "query" && static_cast<std::size_t>(heads) > model;
    if (model % static_cast<std::size_t>(heads) == 0 || said_later) return;
    throw InputError(trf("{1}: multi_head_attention: d_model D = {2} (the last dimension of {3} {4}) is not a multiple of "
                         "the number of heads h = {5}; each head gets d_k = D / h features, so h must divide D",
                         {module.name, std::to_string(model), tokens, shape_string(found->second), std::to_string(heads)}));
}

namespace {

// `modules`: those that take --grad, for the message.
void check_grad_option(const ComputeModule& module, const ComputeOptions& options, const std::string& modules) {
    if (!options.grad) return;
    if (!module.has_backward) {
        throw InputError(trf("{1} has no backward: --grad is for {2}; remove it", {module.name, modules}));
    }
    if (options.precision == "float32") {
        throw InputError(tr("--grad computes the gradients in double, on the lesson path, and --precision float32 asks "
                            "for the float32 fast path: remove --precision (float32 inputs still give float32 files)"));
    }
}

}  // namespace

void check_compute_options(const ComputeModule& module, const ComputeOptions& options) {
    // "self-attention, mha": the modules that take an option, for the message.
    auto modules_with = [](bool ComputeModule::*uses) {
        std::string names;
        for (const auto& m : compute_modules()) {
            if (m.*uses) names += (names.empty() ? "" : ", ") + m.name;
        }
        return names;
    };
    if (module.uses_heads && options.heads <= 0) {
        throw InputError(trf("{1} needs the number of heads: add --heads h (h must divide the model width D)", {module.name}));
    }
    if (!module.uses_heads && options.heads != 0) {
        throw InputError(trf("{1} has no heads: --heads is for {2}; remove it", {module.name, modules_with(&ComputeModule::uses_heads)}));
    }
    if (module.uses_layer_options) {
        if (options.eps && !(*options.eps > 0.0 && std::isfinite(*options.eps))) {
            throw InputError(trf("--eps must be a positive number (the layer norm's eps, default 1e-5), got {1}",
                                 {std::to_string(*options.eps)}));
        }
        if (!options.activation.empty()) parse_activation(options.activation);  // "unknown activation 'x'; ..."
        if (options.norm_eps && !module.uses_final_norm) {
            throw InputError(trf("{1} has no final norm: --norm-eps is for {2} (its layers' norms take --eps); remove it",
                                 {module.name, modules_with(&ComputeModule::uses_final_norm)}));
        }
        if (options.norm_eps && !(*options.norm_eps > 0.0 && std::isfinite(*options.norm_eps))) {
            throw InputError(trf("--norm-eps must be a positive number (the final norm's eps, default --eps), got {1}",
                                 {std::to_string(*options.norm_eps)}));
        }
    } else if (options.norm_first || options.eps || options.norm_eps || !options.activation.empty()) {
        throw InputError(trf("{1} has no layer norm or feed-forward network: --norm-first, --eps, --norm-eps and "
                             "--activation are for {2}; remove them",
                             {module.name, modules_with(&ComputeModule::uses_layer_options)}));
    }
    if (!options.prefix.empty() && options.weights.empty()) {
        throw InputError(trf("--prefix {1} selects members of the --weights archive, and there is none: add --weights "
                             "or remove --prefix",
                             {printable_text(options.prefix)}));
    }
    if (!module.uses_output_projection_choice && options.no_output_projection) {
        throw InputError(trf("{1} does not choose its output projection: --no-output-projection is for {2}; remove it",
                             {module.name, modules_with(&ComputeModule::uses_output_projection_choice)}));
    }
    if (!module.uses_sequence_first && options.seq_first) {
        throw InputError(trf("{1} has no sequence-first layout: --seq-first is for {2}; remove it",
                             {module.name, modules_with(&ComputeModule::uses_sequence_first)}));
    }
    if (!module.has_fast_path && (!options.precision.empty() || options.threads)) {
        throw InputError(trf("{1} computes in double only: --precision and --threads are for {2}; remove them",
                             {module.name, modules_with(&ComputeModule::has_fast_path)}));
    }
    if (!options.precision.empty() && options.precision != "float32" && options.precision != "float64") {
        throw InputError(trf("--precision {1}: expected float32 (the fast path) or float64 (the lesson path)",
                             {printable_text(options.precision)}));
    }
    if (options.threads && (*options.threads < 1 || *options.threads > 1024)) {
        throw InputError(trf("--threads {1}: expected a whole number from 1 to 1024", {std::to_string(*options.threads)}));
    }
    if (!module.uses_causal && (options.causal || !options.causal_alignment.empty())) {
        throw InputError(trf("{1} has no causal mask: --causal and --causal-alignment are for {2}; remove them",
                             {module.name, modules_with(&ComputeModule::uses_causal)}));
    }
    if (!options.causal_alignment.empty()) {
        if (!options.causal) {
            throw InputError(trf("--causal-alignment {1} places the causal mask, and there is none: add --causal or remove it",
                                 {options.causal_alignment}));
        }
        alignment_of(options);  // "unknown causal alignment 'x'; expected top-left … or bottom-right …"
    }
    check_position_options(module, options);
    check_grad_option(module, options, modules_with(&ComputeModule::has_backward));
}

void check_compute_working_sizes(const ComputeModule& module, const NamedShapes& inputs, const ComputeOptions& options) {
    check_working_sizes(module, bind_dimensions(module, inputs), options);
}

}  // namespace attn::tutor
