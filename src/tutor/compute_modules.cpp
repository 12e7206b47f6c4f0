#include "tutor/compute_modules.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "attn/bahdanau_attention.hpp"
#include "attn/dot_attention.hpp"
#include "attn/encoder_layer.hpp"
#include "attn/error.hpp"
#include "attn/luong_attention.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/printable.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/shape.hpp"
#include "tutor/find_by_name.hpp"
#include "tutor/language.hpp"
#include "tutor/mask_conventions.hpp"
#include "tutor/named_weights.hpp"

namespace attn::tutor {

namespace {

NamedTensors run_dot(const NamedTensors& inputs, const ComputeOptions&) {
    const AttentionStep step = dot_attention(Tensor3(inputs.at("encoder_outputs")), Matrix(inputs.at("decoder_output")));
    return {{"scores", step.scores}, {"weights", step.weights}, {"context", step.context}};
}

NamedTensors run_luong(const NamedTensors& inputs, const ComputeOptions&) {
    const LuongGeneralStep step = luong_general_attention(Tensor3(inputs.at("encoder_outputs")),
                                                          Matrix(inputs.at("decoder_output")), Matrix(inputs.at("W")));
    return {{"scores", step.scores}, {"weights", step.weights}, {"context", step.context}};
}

NamedTensors run_bahdanau(const NamedTensors& inputs, const ComputeOptions&) {
    const BahdanauStep step = bahdanau_attention(Tensor3(inputs.at("encoder_outputs")), Matrix(inputs.at("decoder_output")),
                                                 Matrix(inputs.at("W1")), Vector(inputs.at("b1")), Matrix(inputs.at("w2")),
                                                 Vector(inputs.at("b2")));
    return {{"scores", step.scores}, {"weights", step.weights}, {"context", step.context}};
}

CausalAlignment alignment_of(const ComputeOptions& options) {
    return options.causal_alignment.empty() ? CausalAlignment::top_left : parse_causal_alignment(options.causal_alignment);
}

// Lesson 4: softmax(Q Kᵀ / √d_k [+ causal mask]) V, d_k the last dimension of Q.
NamedTensors run_self_attention(const NamedTensors& inputs, const ComputeOptions& options) {
    AttentionOptions attention;
    attention.causal = options.causal;
    attention.causal_alignment = alignment_of(options);
    const ScaledDotProductAttentionResult r =
        scaled_dot_product_attention(Tensor3(inputs.at("Q")), Tensor3(inputs.at("K")), Tensor3(inputs.at("V")), attention);
    return {{"weights", r.weights}, {"output", r.output}};
}

// The masks in every convention (tutor/mask_conventions.hpp) for `queries` (B, T, ·) and `keys` (B, S, ·).
ModuleMasks masks_for(const NamedTensors& inputs, const ComputeOptions& options, const DynamicTensor& queries,
                      const DynamicTensor& keys) {
    return masks_from(inputs, options.integer_inputs,
                      {queries.shape(0), static_cast<std::size_t>(options.heads), queries.shape(1), keys.shape(1)});
}

// Lesson 5: multi-head attention; with --no-output-projection there is no w_o (seed 000's block).
NamedTensors run_mha(const NamedTensors& inputs, const ComputeOptions& options) {
    const MultiHeadAttentionWeights w = attention_weights_from(inputs, options.no_output_projection);
    const ModuleMasks masks = masks_for(inputs, options, inputs.at("query"), inputs.at("key"));
    AttentionOptions attention;
    attention.causal = options.causal;
    attention.causal_alignment = alignment_of(options);
    attention.attention_mask = masks.attention_mask;
    attention.additive_mask = masks.additive_mask;
    const MultiHeadAttentionResult r =
        multi_head_attention(Tensor3(inputs.at("query")), Tensor3(inputs.at("key")), Tensor3(inputs.at("value")), w,
                             static_cast<std::size_t>(options.heads), attention);
    return {{"output", r.output}, {"weights", r.weights}};
}

EncoderLayerOptions layer_options(const NamedTensors& inputs, const ComputeOptions& options) {
    EncoderLayerOptions layer;
    layer.heads = static_cast<std::size_t>(options.heads);
    layer.norm_first = options.norm_first;
    layer.eps = options.eps.value_or(default_layer_norm_eps);
    layer.activation = options.activation.empty() ? Activation::relu : parse_activation(options.activation);
    const ModuleMasks masks = masks_for(inputs, options, inputs.at("x"), inputs.at("x"));
    layer.attention_mask = masks.attention_mask;
    layer.additive_mask = masks.additive_mask;
    return layer;
}

// Lesson 6: one torch.nn.TransformerEncoderLayer(dropout=0.0, batch_first=True), with the
// state_dict's names (dots turned into underscores; in_proj packed or split into q, k, v).
NamedTensors run_encoder_layer(const NamedTensors& inputs, const ComputeOptions& options) {
    const EncoderLayerWeights w = encoder_layer_weights_from(inputs);
    return {{"output", transformer_encoder_layer(Tensor3(inputs.at("x")), w, layer_options(inputs, options)).output}};
}

// Lesson 6's stack: torch.nn.TransformerEncoder(layer, N, norm=…, enable_nested_tensor=False) in
// eval mode — the layers one after the other (each the library's encoder layer), then the final norm.
NamedTensors run_encoder(const NamedTensors& inputs, const ComputeOptions& options) {
    const EncoderWeights w = encoder_weights_from(inputs);
    if (options.norm_eps && !w.final_norm) {
        throw InputError(tr("--norm-eps sets the final norm's eps, and there is no final norm (norm_weight, norm_bias): "
                            "remove --norm-eps or give the norm's weights"));
    }
    const EncoderLayerOptions layer = layer_options(inputs, options);
    return {{"output", transformer_encoder(Tensor3(inputs.at("x")), w.layers, layer, w.final_norm,
                                           options.norm_eps.value_or(layer.eps))}};
}

std::string non_finite_text(double value) { return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf"; }

// The modules whose PyTorch counterpart is sequence-first by default (batch_first=False); the
// encoder's final norm (--norm-eps) and mha's choice of no output projection.
std::vector<ComputeModule> with_pytorch_options(std::vector<ComputeModule> modules) {
    for (auto& module : modules) {
        module.uses_sequence_first = module.name == "mha" || module.name == "encoder-layer" || module.name == "encoder";
        module.uses_final_norm = module.name == "encoder";
        module.uses_output_projection_choice = module.name == "mha";
    }
    return modules;
}

// A sequence tensor: (B, T, ·) or (B, S, ·), laid out (T, B, ·) under --seq-first.
bool is_sequence(const TensorSpec& spec) {
    return spec.dimensions.rfind("B,T,", 0) == 0 || spec.dimensions.rfind("B,S,", 0) == 0;
}

// (T, B, D) ↔ (B, T, D): axes 0 and 1 swapped.
DynamicTensor swap_first_axes(const DynamicTensor& x) {
    if (x.dimension() != 3) return x;
    const std::size_t A = x.shape(0), C = x.shape(1), D = x.shape(2);
    DynamicTensor out = DynamicTensor::from_shape({C, A, D});
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t c = 0; c < C; ++c)
            for (std::size_t d = 0; d < D; ++d) out.data()[(c * A + a) * D + d] = x.data()[(a * C + c) * D + d];
    return out;
}

}  // namespace

const std::vector<ComputeModule>& compute_modules() {
    static const std::vector<ComputeModule> modules = with_pytorch_options({
        {"dot",
         N_("lesson 1: dot-product attention, score_s = decoder_output · encoder_outputs[s]"),
         1,
         {{"encoder_outputs", "B,S,H", true, N_("the encoder's output at each source position")},
          {"decoder_output", "B,H", true, N_("the decoder state that asks the question")}},
         {{"scores", "B,S", true, N_("raw scores, before the softmax")},
          {"weights", "B,S", true, N_("softmax of the scores over S")},
          {"context", "B,H", true, N_("weights-averaged encoder outputs")}},
         run_dot},
        {"luong",
         N_("lesson 2: Luong's general score, score_s = decoder_output · (W encoder_outputs[s])"),
         2,
         {{"encoder_outputs", "B,S,H", true, N_("the encoder's output at each source position")},
          {"decoder_output", "B,H", true, N_("the decoder state that asks the question")},
          {"W", "H,H", true, N_("W_a as nn.Linear(H, H, bias=False).weight stores it (out, in)")}},
         {{"scores", "B,S", true, N_("raw scores, before the softmax")},
          {"weights", "B,S", true, N_("softmax of the scores over S")},
          {"context", "B,H", true, N_("weights-averaged encoder outputs")}},
         run_luong},
        {"bahdanau",
         N_("lesson 3: additive score, score_s = w2 · tanh(W1 [encoder_outputs[s] ; decoder_output] + b1) + b2"),
         3,
         {{"encoder_outputs", "B,S,H", true, N_("the encoder's output at each source position")},
          {"decoder_output", "B,H", true, N_("the decoder state that asks the question")},
          {"W1", "2H,2H", true, N_("hidden layer weight, nn.Linear(2H, 2H).weight (out, in)")},
          {"b1", "2H", true, N_("hidden layer bias, nn.Linear(2H, 2H).bias")},
          {"w2", "1,2H", true, N_("output layer weight, nn.Linear(2H, 1).weight")},
          {"b2", "1", true, N_("output layer bias, nn.Linear(2H, 1).bias")}},
         {{"scores", "B,S", true, N_("raw scores, before the softmax")},
          {"weights", "B,S", true, N_("softmax of the scores over S")},
          {"context", "B,H", true, N_("weights-averaged encoder outputs")}},
         run_bahdanau,
         false,
         false,
         false,
         {"B,S,2H"}},
        {"self-attention",
         N_("lesson 4: scaled dot-product attention, softmax(Q Kᵀ / √d_k) V; --causal hides keys s > t "
         "(--causal-alignment top-left|bottom-right when T != S)"),
         4,
         {{"Q", "B,T,d_k", true, N_("the queries")},
          {"K", "B,S,d_k", true, N_("the keys")},
          {"V", "B,S,d_v", true, N_("the values, one per key")}},
         {{"weights", "B,T,S", true, N_("softmax over S of Q Kᵀ / √d_k (d_k: the last dimension of Q)")},
          {"output", "B,T,d_v", true, N_("weights · V")}},
         run_self_attention,
         false,
         true},
        {"mha",
         N_("lesson 5: multi-head attention, h heads of d_k = D / h (--heads h required; --causal optional)"),
         5,
         {{"query", "B,T,D", true, N_("the queries' tokens")},
          {"key", "B,S,D", true, N_("the keys' tokens")},
          {"value", "B,S,D", true, N_("the values' tokens")},
          {"w_q", "D,D", false, N_("query projection, nn.Linear(D, D).weight (out, in); or in_proj_weight")},
          {"w_k", "D,D", false, N_("key projection, nn.Linear(D, D).weight")},
          {"w_v", "D,D", false, N_("value projection, nn.Linear(D, D).weight")},
          {"b_q", "D", false, N_("query projection bias; or in_proj_bias; no bias at all: bias=False")},
          {"b_k", "D", false, N_("key projection bias")},
          {"b_v", "D", false, N_("value projection bias")},
          {"in_proj_weight", "3D,D", false, N_("PyTorch's packed w_q; w_k; w_v (instead of the three)")},
          {"in_proj_bias", "3D", false, N_("PyTorch's packed b_q; b_k; b_v (instead of the three)")},
          {"w_o", "D,D", false, N_("output projection weight (out_proj.weight); absent only with --no-output-projection")},
          {"b_o", "D", false, N_("output projection bias (out_proj.bias; needs w_o)")},
          {"attention_mask", "B,S", false, N_("1 = attend to this key, 0 = padding (Hugging Face convention)")},
          {"key_padding_mask", "B,S", false, N_("PyTorch's: True/1 = ignore this key (bool or integer; float: added, 0/-inf)")},
          {"attn_mask", "T,S", false, N_("PyTorch's: bool True = ignore; float added to the scores (0 / -inf)")}},
         {{"output", "B,T,D", true, N_("the heads concatenated, then W_o and b_o (none with --no-output-projection)")},
          {"weights", "B,h,T,S", true, N_("every head's weights; a query whose keys are all masked gets zeros")}},
         run_mha,
         true,
         true},
        {"encoder-layer",
         N_("lesson 6: a Transformer encoder layer, as torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, "
         "batch_first=True) (--heads h required; --norm-first, --eps, --activation optional)"),
         6,
         {{"x", "B,T,D", true, N_("the input tokens")},
          {"w_q", "D,D", false, N_("self_attn.in_proj_weight rows 0..D-1 (out, in)")},
          {"b_q", "D", false, N_("self_attn.in_proj_bias entries 0..D-1")},
          {"w_k", "D,D", false, N_("self_attn.in_proj_weight rows D..2D-1")},
          {"b_k", "D", false, N_("self_attn.in_proj_bias entries D..2D-1")},
          {"w_v", "D,D", false, N_("self_attn.in_proj_weight rows 2D..3D-1")},
          {"b_v", "D", false, N_("self_attn.in_proj_bias entries 2D..3D-1")},
          {"in_proj_weight", "3D,D", false, N_("self_attn.in_proj_weight, packed (instead of w_q, w_k, w_v)")},
          {"in_proj_bias", "3D", false, N_("self_attn.in_proj_bias, packed (instead of b_q, b_k, b_v)")},
          {"w_o", "D,D", true, N_("self_attn.out_proj.weight")},
          {"b_o", "D", false, N_("self_attn.out_proj.bias")},
          {"norm1_weight", "D", true, N_("norm1.weight")},
          {"norm1_bias", "D", true, N_("norm1.bias")},
          {"norm2_weight", "D", true, N_("norm2.weight")},
          {"norm2_bias", "D", true, N_("norm2.bias")},
          {"linear1_weight", "F,D", true, N_("linear1.weight")},
          {"linear1_bias", "F", true, N_("linear1.bias")},
          {"linear2_weight", "D,F", true, N_("linear2.weight")},
          {"linear2_bias", "D", true, N_("linear2.bias")},
          {"attention_mask", "B,T", false, N_("1 = attend, 0 = padding (Hugging Face; PyTorch's src_key_padding_mask inverted)")},
          {"src_key_padding_mask", "B,T", false, N_("PyTorch's: True/1 = ignore this position (bool or integer)")},
          {"src_mask", "T,T", false, N_("PyTorch's: bool True = ignore; float added to the scores (0 / -inf)")}},
         {{"output", "B,T,D", true, N_("the layer's output")}},
         run_encoder_layer,
         true,
         false,
         true,
         {"B,T,F", "B,h,T,T"}},
        {"encoder",
         N_("lesson 6's stack: torch.nn.TransformerEncoder(layer, N, norm, enable_nested_tensor=False) in eval mode, "
         "N layers layers_0_… (each encoder-layer's weights) and the final norm (--heads h required)"),
         6,
         {{"x", "B,T,D", true, N_("the input tokens")},
          {"norm_weight", "D", false, N_("norm.weight, the final layer norm (with norm_bias)")},
          {"norm_bias", "D", false, N_("norm.bias")},
          {"attention_mask", "B,T", false, N_("1 = attend, 0 = padding (Hugging Face)")},
          {"src_key_padding_mask", "B,T", false, N_("PyTorch's: True/1 = ignore this position (bool or integer)")},
          {"src_mask", "T,T", false, N_("PyTorch's mask: bool True = ignore; float added to the scores (0 / -inf)")}},
         {{"output", "B,T,D", true, N_("the encoder's output")}},
         run_encoder,
         true,
         false,
         true,
         {"B,T,F", "B,h,T,T"},  // F: the widest layer's (bind_dimensions)
         true},
    });
    return modules;
}

const ComputeModule& find_compute_module(const std::string& name) {
    return find_by_name(compute_modules(), name, "module");
}

std::string dimension_legend(const TensorSpec& spec) {
    if (mask_convention(spec.name) == MaskConvention::scores_mask) {
        return trf("{1} or (B·h, {2}", {legend_string(spec.dimensions), legend_string(spec.dimensions).substr(1)});
    }
    return legend_string(spec.dimensions);
}

namespace {

const ComputeModule& encoder_layer_module() { return find_compute_module("encoder-layer"); }

// The weights each of the encoder's layers has (encoder-layer's inputs but x and the masks).
bool is_layer_weight(const std::string& name) {
    return name != "x" && mask_convention(name) == MaskConvention::none && reads_input(encoder_layer_module(), name);
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
    if (!module.layered) return false;
    const auto split = split_layer_name(name);
    return split && is_layer_weight(split->second);
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
    if (module.layered && is_layer_weight(name)) return "layers_0_" + name;
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
    if (module.layered) {
        const auto split = split_layer_name(name);
        const std::string prefix = split ? "layers_" + std::to_string(split->first) + "_" : "layers_0_";
        for (const auto& spec : encoder_layer_module().inputs) {
            if (is_layer_weight(spec.name)) consider(spec.name, prefix);
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
    if (module.layered) names += ", " + tr("layers_N_<an encoder-layer weight>");
    throw InputError(trf("{1} is not an input of {2}; its inputs are {3}", {where, module.name, names}));
}

namespace {

// Checks every input's rank and sizes against the module's legends (attn/shape.hpp: one letter,
// one size) and returns the size of each letter ("B" → 2, "H" → 3); a missing required input is
// an InputError naming it.
ShapeLetters bind_dimensions(const ComputeModule& module, const NamedTensors& inputs) {
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
    if (module.layered) {
        // Every layer against encoder-layer's legends, with the same x: D and h agree throughout.
        std::size_t count = 0;
        for (const auto& [name, tensor] : inputs) {
            if (const auto split = split_layer_name(name)) count = std::max(count, split->first + 1);
        }
        ShapeLetters first;
        for (std::size_t layer = 0; layer < count; ++layer) {
            const std::string prefix = "layers_" + std::to_string(layer) + "_";
            for (const auto& spec : encoder_layer_module().inputs) {
                const auto found = inputs.find(prefix + spec.name);
                if (found != inputs.end()) shapes.emplace_back(prefix + spec.name, found->second, spec.dimensions);
            }
            // Layers may have their own F: checked one layer at a time; the widest F is kept, for
            // the size limit on the feed-forward network's (B, T, F) (check_working_sizes).
            ShapeLetters letters = check_shapes(module.name, shapes);
            if (layer == 0) first = letters;
            if (letters.count("F") && (!first.count("F") || letters["F"] > first["F"])) first["F"] = letters["F"];
            shapes.erase(std::remove_if(shapes.begin(), shapes.end(),
                                        [&](const NamedShape& s) { return s.name.rfind(prefix, 0) == 0; }),
                         shapes.end());
        }
        if (count > 0) return first;
    }
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

void validate_compute_inputs(const ComputeModule& module, const NamedTensors& inputs) {
    for (const auto& [name, tensor] : inputs) {
        if (!reads_input(module, name)) refuse_unknown_input(module, name, "'" + printable_text(name) + "'");
    }
    bind_dimensions(module, inputs);
    for (const auto& [name, tensor] : inputs) {
        // Masks hold −∞ by design; mask_conventions refuses what does not fit their convention.
        if (mask_convention(name) != MaskConvention::none) continue;
        for (std::size_t i = 0; i < tensor.size(); ++i) {
            if (!std::isfinite(tensor.data()[i])) {
                throw InputError(trf("{1} holds {2} at {3}; inputs must be finite numbers",
                                     {name, non_finite_text(tensor.data()[i]),
                                      index_string(i, {tensor.shape().begin(), tensor.shape().end()})}));
            }
        }
    }
}

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
    if (!module.uses_output_projection_choice && options.no_output_projection) {
        throw InputError(trf("{1} does not choose its output projection: --no-output-projection is for {2}; remove it",
                             {module.name, modules_with(&ComputeModule::uses_output_projection_choice)}));
    }
    if (!module.uses_sequence_first && options.seq_first) {
        throw InputError(trf("{1} has no sequence-first layout: --seq-first is for {2}; remove it",
                             {module.name, modules_with(&ComputeModule::uses_sequence_first)}));
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
}

NamedTensors run_compute_module(const ComputeModule& module, const NamedTensors& given, const ComputeOptions& options) {
    check_compute_options(module, options);
    // --seq-first: the sequences arrive (T, B, D) and are turned batch-first for the library.
    NamedTensors inputs = given;
    if (options.seq_first) {
        for (const auto& spec : module.inputs) {
            if (is_sequence(spec) && inputs.count(spec.name)) inputs[spec.name] = swap_first_axes(inputs[spec.name]);
        }
    }
    try {
        validate_compute_inputs(module, inputs);
    } catch (const ShapeError& e) {
        if (!options.seq_first) throw;
        throw ShapeError(std::string(e.what()) + tr(" (with --seq-first the sequences are read (T, B, D) and shown here "
                                                    "batch-first, (B, T, D): are they sequence-first?)"));
    }
    check_working_sizes(module, bind_dimensions(module, inputs), options);
    NamedTensors outputs = module.run(inputs, options);
    if (options.seq_first) {
        for (const auto& spec : module.outputs) {
            if (is_sequence(spec) && outputs.count(spec.name)) outputs[spec.name] = swap_first_axes(outputs[spec.name]);
        }
    }
    for (const auto& spec : module.outputs) {
        const auto found = outputs.find(spec.name);
        if (found == outputs.end()) {
            if (spec.required) throw std::logic_error(module.name + " did not compute its output '" + spec.name + "'");
            continue;
        }
        // The library refuses what it computes that is not finite; this is the last guard.
        const DynamicTensor& result = found->second;
        for (std::size_t i = 0; i < result.size(); ++i) {
            if (!std::isfinite(result.data()[i])) {
                throw InputError(trf("the result '{1}' holds {2} at {3}: the inputs are too large for float64 arithmetic "
                                     "and overflowed; scale them down",
                                     {spec.name, non_finite_text(result.data()[i]),
                                      index_string(i, {result.shape().begin(), result.shape().end()})}));
            }
        }
    }
    return outputs;
}

}  // namespace attn::tutor
