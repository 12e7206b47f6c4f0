// The names of `attn compute`'s inputs (tutor/compute/compute_modules.hpp): which a module reads, the one
// a name that is not one most likely meant, and the PyTorch settings whose tensors it refuses by
// name — so that a mask or a weight is never ignored silently.
#include "tutor/compute/compute_modules.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::tutor {

namespace {

// The weights each layer of a stack has: its layer module's inputs but the sequences and the masks.
bool is_layer_weight(const std::string& layer_module, const std::string& name) {
    return name != "x" && name != "tgt" && name != "memory" && mask_convention(name) == MaskConvention::none &&
           reads_input(find_compute_module(layer_module), name);
}

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

bool reads_input(const ComputeModule& module, const std::string& name) {
    for (const auto& spec : module.inputs) {
        if (spec.name == name) return true;
    }
    for (const auto& stack : layer_stacks(module.name)) {
        const auto split = split_layer_name(name, stack.prefix);
        if (split && is_layer_weight(stack.layer_module, split->second)) return true;
    }
    return false;
}

std::optional<std::string> closest_input(const ComputeModule& module, const std::string& name) {
    // The same name in other capitals (Out_Proj.Weight is PyTorch's out_proj.weight, w_o): never
    // read as that input, always pointed at it.
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower != name && reads_input(module, canonical_weight_name(lower))) return canonical_weight_name(lower);
    // PyTorch's other names for the same masks, by module.
    static const std::vector<std::pair<std::string, std::vector<std::string>>> aliases = {
        {"src_key_padding_mask", {"key_padding_mask"}}, {"key_padding_mask", {"src_key_padding_mask"}},
        {"src_mask", {"attn_mask"}}, {"attn_mask", {"src_mask"}}, {"mask", {"src_mask", "attn_mask"}},
        {"padding_mask", {"key_padding_mask", "src_key_padding_mask"}},
    };
    for (const auto& [alias, meant] : aliases) {
        if (name != alias) continue;
        for (const auto& candidate : meant) {
            if (reads_input(module, candidate)) return candidate;
        }
    }
    // A layer's weight given to the encoder without its layer, or to a layer with one.
    for (const auto& stack : layer_stacks(module.name)) {
        if (is_layer_weight(stack.layer_module, name)) return stack.prefix + "0_" + name;
    }
    if (const auto split = split_layer_name(name); split && !module.layered && reads_input(module, split->second)) {
        return split->second;
    }
    std::optional<std::string> best;
    std::size_t best_distance = 0;
    auto consider = [&](const std::string& candidate, const std::string& prefix) {
        const std::size_t distance = edit_distance(name, prefix + candidate);
        const std::size_t allowed = std::max<std::size_t>(2, candidate.size() / 4);
        if (distance <= allowed && (!best || distance < best_distance)) best = prefix + candidate, best_distance = distance;
    };
    for (const auto& spec : module.inputs) consider(spec.name, "");
    for (const auto& stack : layer_stacks(module.name)) {
        const auto split = split_layer_name(name, stack.prefix);
        const std::string prefix = stack.prefix + (split ? std::to_string(split->first) : "0") + "_";
        for (const auto& spec : find_compute_module(stack.layer_module).inputs) {
            if (is_layer_weight(stack.layer_module, spec.name)) consider(spec.name, prefix);
        }
    }
    return best;
}

bool looks_like_mask_or_weight(const std::string& name) {
    for (const char* word : {"mask", "weight", "bias", "proj", "norm", "linear"}) {
        if (name.find(word) != std::string::npos) return true;
    }
    return name.rfind("w_", 0) == 0 || name.rfind("b_", 0) == 0;
}

namespace {

// PyTorch settings whose tensors attn cannot use: what the model has and what attn supports.
std::optional<std::string> unsupported_setting(const std::string& name, const std::string& where) {
    auto ends_with = [&](const std::string& tail) {
        return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0 &&
               (name.size() == tail.size() || name[name.size() - tail.size() - 1] == '_');
    };
    if (ends_with("bias_k") || ends_with("bias_v")) {
        return trf("{1} is nn.MultiheadAttention's add_bias_kv=True (bias_k, bias_v: a learned key and value appended to "
                   "every sequence); attn does not support add_bias_kv, so nothing was computed", {where});
    }
    for (const char* separate : {"q_proj_weight", "k_proj_weight", "v_proj_weight"}) {
        if (ends_with(separate)) {
            return trf("{1} is one of nn.MultiheadAttention's separate projections (q_proj_weight, k_proj_weight, "
                       "v_proj_weight), which PyTorch stores instead of in_proj_weight when kdim or vdim differs from "
                       "embed_dim; attn supports key and value of the model width D only (kdim = vdim = embed_dim: "
                       "in_proj_weight (3D, D) or w_q, w_k, w_v (D, D)), so nothing was computed", {where});
        }
    }
    return std::nullopt;
}

}  // namespace

void refuse_unknown_input(const ComputeModule& module, const std::string& name, const std::string& where) {
    if (const auto refusal = unsupported_setting(name, where)) throw InputError(*refusal);
    if (const auto meant = closest_input(module, name)) {
        std::string convention;
        if (mask_convention(*meant) == MaskConvention::ignore_is_true) convention = tr(" (PyTorch's convention: True/1 = ignore)");
        if (mask_convention(*meant) == MaskConvention::scores_mask) convention = tr(" (PyTorch's: bool True = ignore, float added)");
        throw InputError(trf("{1} is not an input of {2}; did you mean {3}{4}? A mask or weight that is not read would change "
                             "every number silently, so nothing was computed",
                             {where, module.name, *meant, convention}));
    }
    std::string names;
    for (const auto& spec : module.inputs) names += (names.empty() ? "" : ", ") + spec.name;
    for (const auto& stack : layer_stacks(module.name)) names += ", " + trf("{1}N_<a weight of {2}>", {stack.prefix, stack.layer_module});
    throw InputError(trf("{1} is not an input of {2}; its inputs are {3}", {where, module.name, names}));
}

}  // namespace attn::tutor
