// Lesson 6 — the Transformer encoder layer (lessons/06-encoder-layer/README.md).
//
// Examples "layer_norm" and "one_hot" (input x (N, D)): mean, variance, pytorch (nn.LayerNorm),
// annotated_variance and annotated (the Annotated Transformer's variant), and for more than one
// row whole_tensor (one norm over every value, as nn.LayerNorm(x.shape) does).
// Example "main" (x and every weight of a layer): each intermediate of transformer_encoder_layer
// post-norm, the same with the prenorm_ prefix for norm_first, gelu_output, and encoder_output
// for a stack of two copies of the layer with a final layer norm.
#include "06-encoder-layer/mistakes.hpp"
#include "attn/encoder_layer.hpp"
#include "tutor/lessons.hpp"
#include "tutor/named_weights.hpp"

namespace attn::tutor {

namespace {

NamedTensors layer_norm_example(const LessonInputs& inputs) {
    const Matrix x = inputs.get("x", 2, "(N, D)");
    const std::size_t N = x.shape(0), D = x.shape(1);
    const Vector ones = xt::ones<double>({D}), zeros = xt::zeros<double>({D});
    const LayerNormStep pytorch = layer_norm(x, ones, zeros);
    const LayerNormStep annotated = annotated_layer_norm(x, ones, zeros);
    NamedTensors out{{"mean", pytorch.mean},           {"variance", pytorch.variance},
                     {"pytorch", pytorch.output},      {"annotated_variance", annotated.variance},
                     {"annotated", annotated.output}};
    if (N > 1) {
        // nn.LayerNorm(x.shape): every value of x normalised together, one mean and one variance.
        out["whole_tensor"] = mistakes::layer_norm_whole_tensor(x, ones, zeros, default_layer_norm_eps).output;
    }
    return out;
}

// Every weight of the layer, each checked for its rank (a document error names the block).
EncoderLayerWeights read_weights(const LessonInputs& inputs) {
    NamedTensors weights;
    for (const char* name : {"w_q", "w_k", "w_v", "w_o"}) weights[name] = inputs.get(name, 2, "(D, D)");
    for (const char* name : {"b_q", "b_k", "b_v", "b_o", "norm1_weight", "norm1_bias", "norm2_weight", "norm2_bias", "linear2_bias"}) {
        weights[name] = inputs.get(name, 1, "(D)");
    }
    weights["linear1_weight"] = inputs.get("linear1_weight", 2, "(F, D)");
    weights["linear1_bias"] = inputs.get("linear1_bias", 1, "(F)");
    weights["linear2_weight"] = inputs.get("linear2_weight", 2, "(D, F)");
    return encoder_layer_weights_from(weights);
}

void add_steps(NamedTensors& out, const std::string& prefix, const EncoderLayerStep& step) {
    out[prefix + "attention_input"] = step.attention_input;
    out[prefix + "attention_weights"] = step.attention.weights;
    out[prefix + "attention_output"] = step.attention.output;
    out[prefix + "attention_residual"] = step.attention_residual;
    out[prefix + "after_attention"] = step.after_attention;
    out[prefix + "ffn_input"] = step.ffn_input;
    out[prefix + "ffn_hidden"] = step.ffn_hidden;
    out[prefix + "ffn_output"] = step.ffn_output;
    out[prefix + "ffn_residual"] = step.ffn_residual;
    out[prefix + "output"] = step.output;
}

NamedTensors encoder_example(const LessonInputs& inputs) {
    const Tensor3 x = inputs.get("x", 3, "(B, T, D)");
    const EncoderLayerWeights weights = read_weights(inputs);
    EncoderLayerOptions options;
    options.heads = 2;  // the document's example: D = 4 in two heads of d_k = 2
    NamedTensors out;
    add_steps(out, "", transformer_encoder_layer(x, weights, options));

    EncoderLayerOptions pre_norm = options;
    pre_norm.norm_first = true;
    add_steps(out, "prenorm_", transformer_encoder_layer(x, weights, pre_norm));

    EncoderLayerOptions with_gelu = options;
    with_gelu.activation = Activation::gelu;
    out["gelu_output"] = transformer_encoder_layer(x, weights, with_gelu).output;

    const std::size_t D = x.shape(2);
    out["encoder_output"] = transformer_encoder(x, {weights, weights}, options,
                                                std::make_pair(Vector(xt::ones<double>({D})), Vector(xt::zeros<double>({D}))));
    return out;
}

}  // namespace

NamedTensors lesson06_encoder_layer(const std::string& /*example*/, const LessonInputs& inputs) {
    return inputs.has("w_q") ? encoder_example(inputs) : layer_norm_example(inputs);
}

}  // namespace attn::tutor
