// Exercise 6, the student's side: runs exercise::layer_norm or exercise::transformer_encoder_layer
// on each case's inputs.
#include "exercise.hpp"
#include "student_side.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::exercises::student {

void serve(const Call& call, Reply& reply) {
    if (call.function == "layer_norm") {
        const Matrix x = call.tensor<2>("x");
        const Vector weight = call.tensor<1>("weight"), bias = call.tensor<1>("bias");
        reply.calling("exercise::layer_norm");
        const LayerNormStep step = exercise::layer_norm(x, weight, bias, call.number("eps"));
        reply.add("mean", step.mean);
        reply.add("variance", step.variance);
        reply.add("normalized", step.normalized);
        reply.add("output", step.output);
        return;
    }
    if (call.function != "transformer_encoder_layer") throw BadRequest("exercise 6 has no function '" + call.function + "'");
    const Tensor3 x = call.tensor<3>("x");
    const EncoderLayerWeights weights = tutor::encoder_layer_weights_from(call.all());
    EncoderLayerOptions options;
    options.heads = static_cast<std::size_t>(call.number("heads"));
    options.norm_first = call.number("norm_first") != 0.0;
    options.eps = call.number("eps");
    options.activation = call.number("gelu") != 0.0 ? Activation::gelu : Activation::relu;
    if (call.has("attention_mask")) options.attention_mask = call.tensor<2>("attention_mask");
    reply.calling("exercise::transformer_encoder_layer");
    const EncoderLayerStep step = exercise::transformer_encoder_layer(x, weights, options);
    reply.add("attention_input", step.attention_input);
    reply.add("attention_weights", step.attention.weights);
    reply.add("attention_output", step.attention.output);
    reply.add("attention_residual", step.attention_residual);
    reply.add("after_attention", step.after_attention);
    reply.add("ffn_input", step.ffn_input);
    reply.add("ffn_hidden", step.ffn_hidden);
    reply.add("ffn_output", step.ffn_output);
    reply.add("ffn_residual", step.ffn_residual);
    reply.add("output", step.output);
}

}  // namespace attn::exercises::student
