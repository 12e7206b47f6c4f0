#include "tutor/compute_modules.hpp"

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

// Lesson 5: multi-head attention; without w_o there is no output projection (seed 000's block).
NamedTensors run_mha(const NamedTensors& inputs, const ComputeOptions& options) {
    const MultiHeadAttentionWeights w = attention_weights_from(inputs);
    AttentionOptions attention;
    attention.causal = options.causal;
    attention.causal_alignment = alignment_of(options);
    if (inputs.count("attention_mask")) attention.attention_mask = Matrix(inputs.at("attention_mask"));
    const MultiHeadAttentionResult r =
        multi_head_attention(Tensor3(inputs.at("query")), Tensor3(inputs.at("key")), Tensor3(inputs.at("value")), w,
                             static_cast<std::size_t>(options.heads), attention);
    return {{"output", r.output}, {"weights", r.weights}};
}

// Lesson 6: one torch.nn.TransformerEncoderLayer(dropout=0.0, batch_first=True), with the
// state_dict's names (dots turned into underscores, in_proj split into q, k, v).
NamedTensors run_encoder_layer(const NamedTensors& inputs, const ComputeOptions& options) {
    const EncoderLayerWeights w = encoder_layer_weights_from(inputs);
    EncoderLayerOptions layer;
    layer.heads = static_cast<std::size_t>(options.heads);
    layer.norm_first = options.norm_first;
    layer.eps = options.eps.value_or(default_layer_norm_eps);
    layer.activation = options.activation.empty() ? Activation::relu : parse_activation(options.activation);
    if (inputs.count("attention_mask")) layer.attention_mask = Matrix(inputs.at("attention_mask"));
    return {{"output", transformer_encoder_layer(Tensor3(inputs.at("x")), w, layer).output}};
}

std::string non_finite_text(double value) { return std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf"; }

}  // namespace

const std::vector<ComputeModule>& compute_modules() {
    static const std::vector<ComputeModule> modules = {
        {"dot",
         "lesson 1: dot-product attention, score_s = decoder_output · encoder_outputs[s]",
         1,
         {{"encoder_outputs", "B,S,H", true, "the encoder's output at each source position"},
          {"decoder_output", "B,H", true, "the decoder state that asks the question"}},
         {{"scores", "B,S", true, "raw scores, before the softmax"},
          {"weights", "B,S", true, "softmax of the scores over S"},
          {"context", "B,H", true, "weights-averaged encoder outputs"}},
         run_dot},
        {"luong",
         "lesson 2: Luong's general score, score_s = decoder_output · (W encoder_outputs[s])",
         2,
         {{"encoder_outputs", "B,S,H", true, "the encoder's output at each source position"},
          {"decoder_output", "B,H", true, "the decoder state that asks the question"},
          {"W", "H,H", true, "W_a as nn.Linear(H, H, bias=False).weight stores it (out, in)"}},
         {{"scores", "B,S", true, "raw scores, before the softmax"},
          {"weights", "B,S", true, "softmax of the scores over S"},
          {"context", "B,H", true, "weights-averaged encoder outputs"}},
         run_luong},
        {"bahdanau",
         "lesson 3: additive score, score_s = w2 · tanh(W1 [encoder_outputs[s] ; decoder_output] + b1) + b2",
         3,
         {{"encoder_outputs", "B,S,H", true, "the encoder's output at each source position"},
          {"decoder_output", "B,H", true, "the decoder state that asks the question"},
          {"W1", "2H,2H", true, "hidden layer weight, nn.Linear(2H, 2H).weight (out, in)"},
          {"b1", "2H", true, "hidden layer bias, nn.Linear(2H, 2H).bias"},
          {"w2", "1,2H", true, "output layer weight, nn.Linear(2H, 1).weight"},
          {"b2", "1", true, "output layer bias, nn.Linear(2H, 1).bias"}},
         {{"scores", "B,S", true, "raw scores, before the softmax"},
          {"weights", "B,S", true, "softmax of the scores over S"},
          {"context", "B,H", true, "weights-averaged encoder outputs"}},
         run_bahdanau,
         false,
         false,
         false,
         {"B,S,2H"}},
        {"self-attention",
         "lesson 4: scaled dot-product attention, softmax(Q Kᵀ / √d_k) V; --causal hides keys s > t "
         "(--causal-alignment top-left|bottom-right when T != S)",
         4,
         {{"Q", "B,T,d_k", true, "the queries"},
          {"K", "B,S,d_k", true, "the keys"},
          {"V", "B,S,d_v", true, "the values, one per key"}},
         {{"weights", "B,T,S", true, "softmax over S of Q Kᵀ / √d_k (d_k: the last dimension of Q)"},
          {"output", "B,T,d_v", true, "weights · V"}},
         run_self_attention,
         false,
         true},
        {"mha",
         "lesson 5: multi-head attention, h heads of d_k = D / h (--heads h required; --causal optional)",
         5,
         {{"query", "B,T,D", true, "the queries' tokens"},
          {"key", "B,S,D", true, "the keys' tokens"},
          {"value", "B,S,D", true, "the values' tokens"},
          {"w_q", "D,D", true, "query projection, nn.Linear(D, D).weight (out, in)"},
          {"w_k", "D,D", true, "key projection, nn.Linear(D, D).weight"},
          {"w_v", "D,D", true, "value projection, nn.Linear(D, D).weight"},
          {"b_q", "D", true, "query projection bias"},
          {"b_k", "D", true, "key projection bias"},
          {"b_v", "D", true, "value projection bias"},
          {"w_o", "D,D", false, "output projection weight; without it there is no output projection"},
          {"b_o", "D", false, "output projection bias (needs w_o)"},
          {"attention_mask", "B,S", false, "1 = attend to this key, 0 = padding (Hugging Face convention)"}},
         {{"output", "B,T,D", true, "the heads concatenated, then W_o and b_o when given"},
          {"weights", "B,h,T,S", true, "every head's weights; a query whose keys are all masked gets zeros"}},
         run_mha,
         true,
         true},
        {"encoder-layer",
         "lesson 6: a Transformer encoder layer, as torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, "
         "batch_first=True) (--heads h required; --norm-first, --eps, --activation optional)",
         6,
         {{"x", "B,T,D", true, "the input tokens"},
          {"w_q", "D,D", true, "self_attn.in_proj_weight rows 0..D-1 (out, in)"},
          {"b_q", "D", true, "self_attn.in_proj_bias entries 0..D-1"},
          {"w_k", "D,D", true, "self_attn.in_proj_weight rows D..2D-1"},
          {"b_k", "D", true, "self_attn.in_proj_bias entries D..2D-1"},
          {"w_v", "D,D", true, "self_attn.in_proj_weight rows 2D..3D-1"},
          {"b_v", "D", true, "self_attn.in_proj_bias entries 2D..3D-1"},
          {"w_o", "D,D", true, "self_attn.out_proj.weight"},
          {"b_o", "D", true, "self_attn.out_proj.bias"},
          {"norm1_weight", "D", true, "norm1.weight"},
          {"norm1_bias", "D", true, "norm1.bias"},
          {"norm2_weight", "D", true, "norm2.weight"},
          {"norm2_bias", "D", true, "norm2.bias"},
          {"linear1_weight", "F,D", true, "linear1.weight"},
          {"linear1_bias", "F", true, "linear1.bias"},
          {"linear2_weight", "D,F", true, "linear2.weight"},
          {"linear2_bias", "D", true, "linear2.bias"},
          {"attention_mask", "B,T", false, "1 = attend, 0 = padding (PyTorch's src_key_padding_mask inverted)"}},
         {{"output", "B,T,D", true, "the layer's output"}},
         run_encoder_layer,
         true,
         false,
         true,
         {"B,T,F", "B,h,T,T"}},
    };
    return modules;
}

const ComputeModule& find_compute_module(const std::string& name) {
    return find_by_name(compute_modules(), name, "module");
}

std::string dimension_legend(const TensorSpec& spec) { return legend_string(spec.dimensions); }

namespace {

// Checks every input's rank and sizes against the module's legends (attn/shape.hpp: one letter,
// one size) and returns the size of each letter ("B" → 2, "H" → 3); a missing required input is
// an InputError naming it.
ShapeLetters bind_dimensions(const ComputeModule& module, const NamedTensors& inputs) {
    std::vector<NamedShape> shapes;
    for (const auto& spec : module.inputs) {
        const auto found = inputs.find(spec.name);
        if (found == inputs.end()) {
            if (spec.required) throw InputError("missing input '" + spec.name + "' " + dimension_legend(spec));
            continue;
        }
        shapes.emplace_back(spec.name, found->second, spec.dimensions);
    }
    return check_shapes(module.name, shapes);
}

// The outputs, and the largest tensors the module builds on the way, must fit the limit on one
// tensor (attn/shape.hpp) before anything is allocated: small inputs can ask for huge scores.
void check_working_sizes(const ComputeModule& module, ShapeLetters letters, const ComputeOptions& options) {
    if (module.uses_heads) letters["h"] = static_cast<std::size_t>(options.heads);
    std::vector<std::pair<std::string, std::string>> tensors;  // (what, legend)
    for (const auto& spec : module.outputs) tensors.emplace_back("the output '" + spec.name + "'", spec.dimensions);
    for (const auto& legend : module.working_sizes) tensors.emplace_back("an intermediate", legend);
    for (const auto& [what, legend] : tensors) {
        checked_value_count(legend_shape(legend, letters), module.name + ": " + what + " (" + legend + ")");
    }
}

}  // namespace

void validate_compute_inputs(const ComputeModule& module, const NamedTensors& inputs) {
    bind_dimensions(module, inputs);
    for (const auto& spec : module.inputs) {
        const auto found = inputs.find(spec.name);
        if (found == inputs.end()) continue;
        const DynamicTensor& tensor = found->second;
        for (std::size_t i = 0; i < tensor.size(); ++i) {
            if (!std::isfinite(tensor.data()[i])) {
                throw InputError(spec.name + " holds " + non_finite_text(tensor.data()[i]) + " at " +
                                 index_string(i, {tensor.shape().begin(), tensor.shape().end()}) +
                                 "; inputs must be finite numbers");
            }
        }
    }
    for (const auto& [name, tensor] : inputs) {
        bool known = false;
        for (const auto& spec : module.inputs) known = known || spec.name == name;
        if (!known) throw InputError("'" + printable_text(name) + "' is not an input of " + module.name);
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
        throw InputError(module.name + " needs the number of heads: add --heads h (h must divide the model width D)");
    }
    if (!module.uses_heads && options.heads != 0) {
        throw InputError(module.name + " has no heads: --heads is for " + modules_with(&ComputeModule::uses_heads) +
                         "; remove it");
    }
    if (module.uses_layer_options) {
        if (options.eps && !(*options.eps > 0.0 && std::isfinite(*options.eps))) {
            throw InputError("--eps must be a positive number (the layer norm's eps, default 1e-5), got " +
                             std::to_string(*options.eps));
        }
        if (!options.activation.empty()) parse_activation(options.activation);  // "unknown activation 'x'; ..."
    } else if (options.norm_first || options.eps || !options.activation.empty()) {
        throw InputError(module.name + " has no layer norm or feed-forward network: --norm-first, --eps and "
                         "--activation are for " + modules_with(&ComputeModule::uses_layer_options) + "; remove them");
    }
    if (!module.uses_causal && (options.causal || !options.causal_alignment.empty())) {
        throw InputError(module.name + " has no causal mask: --causal and --causal-alignment are for " +
                         modules_with(&ComputeModule::uses_causal) + "; remove them");
    }
    if (!options.causal_alignment.empty()) {
        if (!options.causal) {
            throw InputError("--causal-alignment " + options.causal_alignment +
                             " places the causal mask, and there is none: add --causal or remove it");
        }
        alignment_of(options);  // "unknown causal alignment 'x'; expected top-left … or bottom-right …"
    }
}

NamedTensors run_compute_module(const ComputeModule& module, const NamedTensors& inputs, const ComputeOptions& options) {
    check_compute_options(module, options);
    validate_compute_inputs(module, inputs);
    check_working_sizes(module, bind_dimensions(module, inputs), options);
    NamedTensors outputs = module.run(inputs, options);
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
                throw InputError("the result '" + spec.name + "' holds " + non_finite_text(result.data()[i]) + " at " +
                                 index_string(i, {result.shape().begin(), result.shape().end()}) +
                                 ": the inputs are too large for float64 arithmetic and overflowed; scale them down");
            }
        }
    }
    return outputs;
}

}  // namespace attn::tutor
