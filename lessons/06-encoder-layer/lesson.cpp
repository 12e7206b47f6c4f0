// Lesson 6 — the Transformer encoder layer (lessons/06-encoder-layer/README.md).
//
// Examples "layer_norm" and "one_hot" (input x (N, D)): mean, variance, pytorch (nn.LayerNorm),
// annotated_variance and annotated (the Annotated Transformer's variant), and for more than one
// row whole_tensor (one norm over every value, as nn.LayerNorm(x.shape) does).
// Example "main" (x and every weight of a layer): each intermediate of transformer_encoder_layer
// post-norm, norm1_mean and norm1_variance (the statistics norm1 divides by, step 5 by hand), the
// same intermediates with the prenorm_ prefix for norm_first, gelu_output, and encoder_output for
// seed 003's stack: two copies of the layer, pre-norm, then a final layer norm.
// Example "full_size" (sizes [B, T, D, h, F] and a seed): a layer at the paper's size whose input
// and weights are drawn from std::mt19937(seed) (the document gives the recipe; the PyTorch
// reference draws the same numbers): head 0's weights, the first six output features, and the
// length of each output row.
#include <cmath>
#include <random>

#include "06-encoder-layer/exercise/mistakes.hpp"
#include "attn/encoder_layer.hpp"
#include "tutor/lesson/lesson_registration.hpp"
#include "tutor/lesson/seeded_uniform.hpp"
#include "tutor/compute/named_weights.hpp"

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

// The mean and the biased variance of each (b, t) row of `x`, as norm1 computes them.
std::pair<Matrix, Matrix> row_statistics(const Tensor3& x) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    Matrix mean = Matrix::from_shape({B, T}), variance = Matrix::from_shape({B, T});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            double sum = 0.0;
            for (std::size_t i = 0; i < D; ++i) sum += x(b, t, i);
            mean(b, t) = sum / double(D);
            double squares = 0.0;
            for (std::size_t i = 0; i < D; ++i) squares += (x(b, t, i) - mean(b, t)) * (x(b, t, i) - mean(b, t));
            variance(b, t) = squares / double(D);
        }
    return {mean, variance};
}

NamedTensors encoder_example(const LessonInputs& inputs) {
    const Tensor3 x = inputs.get("x", 3, "(B, T, D)");
    const EncoderLayerWeights weights = read_weights(inputs);
    EncoderLayerOptions options;
    options.heads = 2;  // the document's example: lesson 5's attention, D = 4 in two heads of d_k = 2
    NamedTensors out;
    const EncoderLayerStep post_norm = transformer_encoder_layer(x, weights, options);
    add_steps(out, "", post_norm);
    const auto [mean, variance] = row_statistics(post_norm.attention_residual);
    out["norm1_mean"] = mean;
    out["norm1_variance"] = variance;

    EncoderLayerOptions pre_norm = options;
    pre_norm.norm_first = true;
    add_steps(out, "prenorm_", transformer_encoder_layer(x, weights, pre_norm));

    EncoderLayerOptions with_gelu = options;
    with_gelu.activation = Activation::gelu;
    out["gelu_output"] = transformer_encoder_layer(x, weights, with_gelu).output;

    // Seed 003's Encoder: its layers are pre-norm, and a pre-norm stack ends with one more norm.
    const std::size_t D = x.shape(2);
    out["encoder_output"] = transformer_encoder(x, {weights, weights}, pre_norm,
                                                std::make_pair(Vector(xt::ones<double>({D})), Vector(xt::zeros<double>({D}))));
    return out;
}

NamedTensors full_size_example(const LessonInputs& inputs) {
    const DynamicTensor sizes = inputs.get("sizes", 1, "(5): B, T, D, h, F");
    const DynamicTensor seed = inputs.get("seed", 1, "(1)");
    if (sizes.size() != 5 || seed.size() != 1) {
        throw InputError("sizes must hold B, T, D, h, F and seed one number");
    }
    const auto B = std::size_t(sizes(0)), T = std::size_t(sizes(1)), D = std::size_t(sizes(2)),
               heads = std::size_t(sizes(3)), F = std::size_t(sizes(4));
    std::mt19937 generator(static_cast<std::mt19937::result_type>(seed(0)));
    const double linear_d = 1.0 / std::sqrt(double(D)), linear_f = 1.0 / std::sqrt(double(F));
    const Tensor3 x = seeded_uniform<Tensor3>(generator, {B, T, D}, 1.0);
    EncoderLayerWeights w;
    w.attention.w_q = seeded_uniform<Matrix>(generator, {D, D}, linear_d);
    w.attention.w_k = seeded_uniform<Matrix>(generator, {D, D}, linear_d);
    w.attention.w_v = seeded_uniform<Matrix>(generator, {D, D}, linear_d);
    w.attention.w_o = seeded_uniform<Matrix>(generator, {D, D}, linear_d);
    w.attention.b_q = seeded_uniform<Vector>(generator, {D}, linear_d);
    w.attention.b_k = seeded_uniform<Vector>(generator, {D}, linear_d);
    w.attention.b_v = seeded_uniform<Vector>(generator, {D}, linear_d);
    w.attention.b_o = seeded_uniform<Vector>(generator, {D}, linear_d);
    w.norm1_weight = seeded_uniform<Vector>(generator, {D}, 0.2, 1.0);
    w.norm1_bias = seeded_uniform<Vector>(generator, {D}, 0.2);
    w.norm2_weight = seeded_uniform<Vector>(generator, {D}, 0.2, 1.0);
    w.norm2_bias = seeded_uniform<Vector>(generator, {D}, 0.2);
    w.linear1_weight = seeded_uniform<Matrix>(generator, {F, D}, linear_d);
    w.linear1_bias = seeded_uniform<Vector>(generator, {F}, linear_d);
    w.linear2_weight = seeded_uniform<Matrix>(generator, {D, F}, linear_f);
    w.linear2_bias = seeded_uniform<Vector>(generator, {D}, linear_f);
    EncoderLayerOptions options;
    options.heads = heads;
    const EncoderLayerStep step = transformer_encoder_layer(x, w, options);

    const std::size_t shown = std::min<std::size_t>(6, D);
    Tensor3 head0 = Tensor3::from_shape({B, T, T}), first = Tensor3::from_shape({B, T, shown});
    Matrix lengths = Matrix::from_shape({B, T});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            for (std::size_t s = 0; s < T; ++s) head0(b, t, s) = step.attention.weights(b, 0, t, s);
            for (std::size_t i = 0; i < shown; ++i) first(b, t, i) = step.output(b, t, i);
            double squares = 0.0;
            for (std::size_t i = 0; i < D; ++i) squares += step.output(b, t, i) * step.output(b, t, i);
            lengths(b, t) = std::sqrt(squares);
        }
    return {{"full_head0_weights", head0}, {"full_output_head", first}, {"full_output_norm", lengths}};
}

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    if (inputs.has("sizes")) return full_size_example(inputs);
    return inputs.has("w_q") ? encoder_example(inputs) : layer_norm_example(inputs);
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
