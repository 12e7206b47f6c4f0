#include "tutor/compute/compute_modules.hpp"

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
#include "tutor/compute/mask_conventions.hpp"
#include "tutor/compute/named_weights.hpp"

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


// Lesson 4: softmax(Q Kᵀ / √d_k [+ causal mask]) V, d_k the last dimension of Q.
NamedTensors run_self_attention(const NamedTensors& inputs, const ComputeOptions& options) {
    const ScaledDotProductAttentionResult r = scaled_dot_product_attention(
        Tensor3(inputs.at("Q")), Tensor3(inputs.at("K")), Tensor3(inputs.at("V")), causal_attention_options(options));
    return {{"weights", r.weights}, {"output", r.output}};
}

// The masks in every convention (tutor/compute/mask_conventions.hpp) for `queries` (B, T, ·) and `keys` (B, S, ·).
ModuleMasks masks_for(const NamedTensors& inputs, const ComputeOptions& options, const DynamicTensor& queries,
                      const DynamicTensor& keys) {
    return masks_from(inputs, options.integer_inputs,
                      {queries.shape(0), static_cast<std::size_t>(options.heads), queries.shape(1), keys.shape(1)});
}

// Lesson 5: multi-head attention; with --no-output-projection there is no w_o (seed 000's block).
NamedTensors run_mha(const NamedTensors& inputs, const ComputeOptions& options) {
    const MultiHeadAttentionWeights w = attention_weights_from(inputs, options.no_output_projection);
    const MultiHeadAttentionResult r =
        multi_head_attention(Tensor3(inputs.at("query")), Tensor3(inputs.at("key")), Tensor3(inputs.at("value")), w,
                             static_cast<std::size_t>(options.heads), mha_attention_options(inputs, options));
    return {{"output", r.output}, {"weights", r.weights}};
}

// Lesson 6: one torch.nn.TransformerEncoderLayer(dropout=0.0, batch_first=True), with the
// state_dict's names (dots turned into underscores; in_proj packed or split into q, k, v).
NamedTensors run_encoder_layer(const NamedTensors& inputs, const ComputeOptions& options) {
    const EncoderLayerWeights w = encoder_layer_weights_from(inputs);
    return {{"output", transformer_encoder_layer(Tensor3(inputs.at("x")), w, encoder_layer_options(inputs, options)).output}};
}

// Lesson 6's stack: torch.nn.TransformerEncoder(layer, N, norm=…, enable_nested_tensor=False) in
// eval mode — the layers one after the other (each the library's encoder layer), then the final norm.
NamedTensors run_encoder(const NamedTensors& inputs, const ComputeOptions& options) {
    const EncoderWeights w = encoder_weights_from(inputs);
    check_norm_eps_has_norm(options, w.final_norm.has_value());
    const EncoderLayerOptions layer = encoder_layer_options(inputs, options);
    return {{"output", transformer_encoder(Tensor3(inputs.at("x")), w.layers, layer, w.final_norm,
                                           options.norm_eps.value_or(layer.eps))}};
}


// The modules whose PyTorch counterpart is sequence-first by default (batch_first=False); the
// encoder's final norm (--norm-eps), mha's choice of no output projection, and the modules that
// have a backward (--grad, compute_gradients.hpp).
std::vector<ComputeModule> with_pytorch_options(std::vector<ComputeModule> modules) {
    for (auto& module : modules) {
        module.uses_sequence_first = module.name == "mha" || module.name == "encoder-layer" || module.name == "encoder";
        module.uses_final_norm = module.name == "encoder";
        module.uses_output_projection_choice = module.name == "mha";
        module.has_fast_path = module.uses_sequence_first;  // the same three: mha, encoder-layer, encoder
        module.has_backward = module.name == "self-attention" || module.name == "mha" || module.name == "encoder-layer";
    }
    return modules;
}

// Lesson 8's modules after the attention modules, then lesson 9's.
std::vector<ComputeModule> with_position_modules(std::vector<ComputeModule> modules) {
    for (auto& module : position_modules()) modules.push_back(std::move(module));
    const auto encoder_layer = std::find_if(modules.begin(), modules.end(),
                                            [](const ComputeModule& m) { return m.name == "encoder-layer"; });
    for (auto& module : decoder_modules(*encoder_layer)) modules.push_back(std::move(module));
    return modules;
}

}  // namespace

AttentionOptions causal_attention_options(const ComputeOptions& options) {
    AttentionOptions attention;
    attention.causal = options.causal;
    attention.causal_alignment = alignment_of(options);
    return attention;
}

AttentionOptions mha_attention_options(const NamedTensors& inputs, const ComputeOptions& options) {
    AttentionOptions attention = causal_attention_options(options);
    const ModuleMasks masks = masks_for(inputs, options, inputs.at("query"), inputs.at("key"));
    attention.attention_mask = masks.attention_mask;
    attention.additive_mask = masks.additive_mask;
    return attention;
}

EncoderLayerOptions encoder_layer_options(const NamedTensors& inputs, const ComputeOptions& options) {
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

DynamicTensor swap_first_axes(const DynamicTensor& x) {
    if (x.dimension() != 3) return x;
    const std::size_t A = x.shape(0), C = x.shape(1), D = x.shape(2);
    DynamicTensor out = DynamicTensor::from_shape({C, A, D});
    for (std::size_t a = 0; a < A; ++a)
        for (std::size_t c = 0; c < C; ++c)
            for (std::size_t d = 0; d < D; ++d) out.data()[(c * A + a) * D + d] = x.data()[(a * C + c) * D + d];
    return out;
}

void check_norm_eps_has_norm(const ComputeOptions& options, bool has_final_norm) {
    if (options.norm_eps && !has_final_norm) {
        throw InputError(tr("--norm-eps sets the final norm's eps, and there is no final norm (norm_weight, norm_bias): "
                            "remove --norm-eps or give the norm's weights"));
    }
}

bool is_sequence(const TensorSpec& spec) {
    return spec.dimensions.rfind("B,T,", 0) == 0 || spec.dimensions.rfind("B,S,", 0) == 0;
}

CausalAlignment alignment_of(const ComputeOptions& options) {
    return options.causal_alignment.empty() ? CausalAlignment::top_left : parse_causal_alignment(options.causal_alignment);
}

std::string non_finite_text(double value) { return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf"; }

const std::vector<ComputeModule>& compute_modules() {
    static const std::vector<ComputeModule> modules = with_position_modules(with_pytorch_options({
        {"dot",
         N_("dot-product attention, score_s = decoder_output · encoder_outputs[s]"),
         "dot-product",
         {{"encoder_outputs", "B,S,H", true, N_("the encoder's output at each source position")},
          {"decoder_output", "B,H", true, N_("the decoder state that asks the question")}},
         {{"scores", "B,S", true, N_("raw scores, before the softmax")},
          {"weights", "B,S", true, N_("softmax of the scores over S")},
          {"context", "B,H", true, N_("weights-averaged encoder outputs")}},
         run_dot},
        {"luong",
         N_("Luong's general score, score_s = decoder_output · (W encoder_outputs[s])"),
         "luong",
         {{"encoder_outputs", "B,S,H", true, N_("the encoder's output at each source position")},
          {"decoder_output", "B,H", true, N_("the decoder state that asks the question")},
          {"W", "H,H", true, N_("W_a as nn.Linear(H, H, bias=False).weight stores it (out, in)")}},
         {{"scores", "B,S", true, N_("raw scores, before the softmax")},
          {"weights", "B,S", true, N_("softmax of the scores over S")},
          {"context", "B,H", true, N_("weights-averaged encoder outputs")}},
         run_luong},
        {"bahdanau",
         N_("additive score, score_s = w2 · tanh(W1 [encoder_outputs[s] ; decoder_output] + b1) + b2"),
         "bahdanau",
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
         N_("scaled dot-product attention, softmax(Q Kᵀ / √d_k) V; --causal hides keys s > t "
         "(--causal-alignment top-left|bottom-right when T != S)"),
         "causal-self-attention",
         {{"Q", "B,T,d_k", true, N_("the queries")},
          {"K", "B,S,d_k", true, N_("the keys")},
          {"V", "B,S,d_v", true, N_("the values, one per key")}},
         {{"weights", "B,T,S", true, N_("softmax over S of Q Kᵀ / √d_k (d_k: the last dimension of Q)")},
          {"output", "B,T,d_v", true, N_("weights · V")}},
         run_self_attention,
         false,
         true},
        {"mha",
         N_("multi-head attention, h heads of d_k = D / h (--heads h required; --causal optional)"),
         "multi-head-attention",
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
         N_("a Transformer encoder layer, as torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, "
         "batch_first=True) (--heads h required; --norm-first, --eps, --activation optional)"),
         "encoder-layer",
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
         N_("the layers stacked: torch.nn.TransformerEncoder(layer, N, norm, enable_nested_tensor=False) in eval mode, "
         "N layers layers_0_… (each encoder-layer's weights) and the final norm (--heads h required)"),
         "encoder-layer",
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
    }));
    return modules;
}

std::string lesson_of(const ComputeModule& module, const std::string& lessons_dir) {
    try {
        const std::vector<LessonInfo> lessons = list_lessons(lessons_directory(lessons_dir));
        return trf("lesson {1}", {std::to_string(find_lesson(lessons, module.lesson).number)});
    } catch (const InputError&) {
        return module.lesson;  // no lessons folder at hand (an installed attn): the slug says which
    }
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

NamedTensors run_compute_module(const ComputeModule& module, const NamedTensors& given, const ComputeOptions& options) {
    // --seq-first: the sequences arrive (T, B, D) and are turned batch-first for the library.
    NamedTensors inputs = given;
    if (options.seq_first) {
        for (const auto& spec : module.inputs) {
            if (is_sequence(spec) && inputs.count(spec.name)) inputs[spec.name] = swap_first_axes(inputs[spec.name]);
        }
    }
    const NamedShapes shapes = shapes_of(inputs);
    validate_compute_layout(module, shapes, options);
    for (const auto& [name, tensor] : inputs) check_finite_input(name, tensor.data(), shapes.at(name));
    check_compute_working_sizes(module, shapes, options);
    NamedTensors outputs = module.run(inputs, options);
    finish_outputs(module, outputs, options);
    return outputs;
}

void validate_compute_layout(const ComputeModule& module, const NamedShapes& shapes, const ComputeOptions& options) {
    try {
        validate_compute_shapes(module, shapes);
    } catch (const ShapeError& e) {
        if (!options.seq_first) throw;
        throw ShapeError(std::string(e.what()) + tr(" (with --seq-first the sequences are read (T, B, D) and shown here "
                                                    "batch-first, (B, T, D): are they sequence-first?)"));
    }
}

void finish_outputs(const ComputeModule& module, NamedTensors& outputs, const ComputeOptions& options) {
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
        check_finite_result(spec.name, found->second);
    }
}

void check_finite_result(const std::string& name, const DynamicTensor& result) {
    // The library refuses what it computes that is not finite; this is the last guard.
    for (std::size_t i = 0; i < result.size(); ++i) {
        if (!std::isfinite(result.data()[i])) {
            throw InputError(trf("the result '{1}' holds {2} at {3}: the inputs are too large for float64 arithmetic "
                                 "and overflowed; scale them down",
                                 {name, non_finite_text(result.data()[i]),
                                  index_string(i, {result.shape().begin(), result.shape().end()})}));
        }
    }
}

}  // namespace attn::tutor
