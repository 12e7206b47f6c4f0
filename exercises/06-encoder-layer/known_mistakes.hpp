// Exercise 6's classic mistakes, as the checker diagnoses them: each one's steps computed with the
// library's deliberately wrong version (attn/mistakes.hpp) — for layer_norm alone, and for the
// whole encoder layer, where a wrong norm shows in both of its places. Also the exercise's cases
// (the lesson's examples and the seeded random ones), so that tests/test_exercise_diagnosis.cpp
// plants every mistake in exactly the cases the checker runs. Shared by check.cpp and
// tests/test_exercise_diagnosis.cpp.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tutor/named_weights.hpp"
#include "attn/mistakes.hpp"
#include "exercise_checker.hpp"
#include "tutor/lesson_document.hpp"

namespace exercise06 {

// ---------------------------------------------------------------------------------------------
// layer_norm

struct LayerNormInputs {
    attn::Matrix x;  // (N, D)
    attn::Vector weight, bias;
    double eps = attn::default_layer_norm_eps;
};

inline std::vector<std::string> layer_norm_step_names() { return {"mean", "variance", "normalized", "output"}; }

inline std::vector<attn::DynamicTensor> values_of(const attn::LayerNormStep& step) {
    return {step.mean, step.variance, step.normalized, step.output};
}

inline attn::exercises::Steps steps_of(const attn::LayerNormStep& expected, const attn::LayerNormStep& got) {
    const auto names = layer_norm_step_names();
    const auto expected_values = values_of(expected), got_values = values_of(got);
    attn::exercises::Steps steps;
    for (std::size_t i = 0; i < names.size(); ++i) steps.push_back({names[i], expected_values[i], got_values[i]});
    return steps;
}

// The three layer-norm explanations, shared by both lists.
inline const char* unbiased_variance_explanation() {
    return "the variance is the unbiased one (÷ (D − 1), what torch.var and x.std(-1) compute by default): "
           "nn.LayerNorm divides the squared deviations by D.";
}
inline const char* eps_outside_explanation() {
    return "eps was added outside the square root, (x − mean) / (√variance + eps): nn.LayerNorm divides by "
           "√(variance + eps), which differs most when a row's variance is as small as eps.";
}
inline const char* annotated_explanation() {
    return "this is the Annotated Transformer's LayerNorm, (x − mean) / (unbiased std + eps): nn.LayerNorm uses "
           "the biased variance (÷ D) and puts eps inside the square root, √(variance + eps).";
}

inline attn::exercises::Mistakes known_layer_norm_mistakes(const LayerNormInputs& in) {
    using namespace attn::mistakes;
    return {{unbiased_variance_explanation(), values_of(layer_norm_unbiased_variance(in.x, in.weight, in.bias, in.eps))},
            {eps_outside_explanation(), values_of(layer_norm_eps_outside_sqrt(in.x, in.weight, in.bias, in.eps))},
            {annotated_explanation(), values_of(layer_norm_annotated_transformer(in.x, in.weight, in.bias, in.eps))}};
}

// ---------------------------------------------------------------------------------------------
// transformer_encoder_layer

struct LayerInputs {
    attn::Tensor3 x;  // (B, T, D)
    attn::EncoderLayerWeights weights;
    attn::EncoderLayerOptions options;
};

/// The steps of the encoder layer, in the order the checker compares them (attention_weights and
/// attention_output are step.attention.weights and step.attention.output).
inline std::vector<std::string> layer_step_names() {
    return {"attention_input", "attention_weights", "attention_output", "attention_residual", "after_attention",
            "ffn_input",       "ffn_hidden",        "ffn_output",       "ffn_residual",       "output"};
}

inline std::vector<attn::DynamicTensor> values_of(const attn::EncoderLayerStep& step) {
    return {step.attention_input, step.attention.weights, step.attention.output, step.attention_residual,
            step.after_attention, step.ffn_input,         step.ffn_hidden,       step.ffn_output,
            step.ffn_residual,    step.output};
}

inline attn::exercises::Steps steps_of(const attn::EncoderLayerStep& expected, const attn::EncoderLayerStep& got) {
    const auto names = layer_step_names();
    const auto expected_values = values_of(expected), got_values = values_of(got);
    attn::exercises::Steps steps;
    for (std::size_t i = 0; i < names.size(); ++i) steps.push_back({names[i], expected_values[i], got_values[i]});
    return steps;
}

inline attn::exercises::Mistakes known_layer_mistakes(const LayerInputs& in) {
    using namespace attn::mistakes;
    const std::string asked = in.options.norm_first ? "pre-norm (norm_first)" : "post-norm";
    const std::string computed = in.options.norm_first ? "post-norm, x = norm(x + sublayer(x))"
                                                       : "pre-norm, x = x + sublayer(norm(x))";
    attn::exercises::Mistakes mistakes;
    mistakes.push_back({"pre-norm and post-norm are swapped: this case asks for " + asked + ", and your layer computed " +
                            computed + ".",
                        values_of(transformer_encoder_layer_norms_swapped(in.x, in.weights, in.options))});
    mistakes.push_back({std::string("in your layer_norm, ") + unbiased_variance_explanation(),
                        values_of(transformer_encoder_layer_unbiased_variance(in.x, in.weights, in.options))});
    mistakes.push_back({std::string("in your layer_norm, ") + eps_outside_explanation(),
                        values_of(transformer_encoder_layer_eps_outside_sqrt(in.x, in.weights, in.options))});
    mistakes.push_back({std::string("your layer_norm is the Annotated Transformer's, (x − mean) / (unbiased std + eps): ") +
                            "nn.LayerNorm uses the biased variance (÷ D) and puts eps inside the square root.",
                        values_of(transformer_encoder_layer_annotated_layer_norm(in.x, in.weights, in.options))});
    if (in.weights.attention.w_o) {
        mistakes.push_back({"the attention sub-layer's output is missing its output projection: the residual adds "
                            "attention.output (context W_oᵀ + b_o), not attention.context.",
                            values_of(transformer_encoder_layer_without_output_projection(in.x, in.weights, in.options))});
    }
    return mistakes;
}

// ---------------------------------------------------------------------------------------------
// The cases

/// A layer-norm example of the lesson document ("layer_norm", "one_hot"): weight 1, bias 0, as a
/// fresh nn.LayerNorm has them.
inline LayerNormInputs layer_norm_example(const attn::tutor::LessonDocument& document, const std::string& example) {
    LayerNormInputs in;
    in.x = document.inputs(example).at("x");
    const std::size_t D = in.x.shape(1);
    in.weight = xt::ones<double>({D});
    in.bias = xt::zeros<double>({D});
    return in;
}

/// Steps 3 to 7 of the lesson: the worked layer, post-norm, two heads, ReLU.
inline LayerInputs layer_worked_example(const attn::tutor::LessonDocument& document) {
    const auto inputs = document.inputs("main");
    LayerInputs in;
    in.x = inputs.at("x");
    in.weights = attn::tutor::encoder_layer_weights_from(inputs);
    in.options.heads = 2;  // the document's example: D = 4 in two heads of d_k = 2
    return in;
}

namespace detail {

template <class Tensor>
Tensor normal_tensor(std::mt19937& generator, const typename Tensor::shape_type& shape, double mean, double spread) {
    std::normal_distribution<double> normal(mean, spread);
    Tensor tensor = Tensor::from_shape(shape);
    for (double& v : tensor) v = normal(generator);
    return tensor;
}

}  // namespace detail

/// A seeded layer-norm case: rows of `spread` around 1, weight near 1, bias near 0.
inline LayerNormInputs random_layer_norm_inputs(unsigned seed, std::size_t N, std::size_t D, double spread, double eps) {
    std::mt19937 generator(seed);
    LayerNormInputs in;
    in.x = detail::normal_tensor<attn::Matrix>(generator, {N, D}, 1.0, spread);
    in.weight = detail::normal_tensor<attn::Vector>(generator, {D}, 1.0, 0.3);
    in.bias = detail::normal_tensor<attn::Vector>(generator, {D}, 0.0, 0.3);
    in.eps = eps;
    return in;
}

/// A seeded encoder layer. `lengths`: the real tokens of each sentence (empty: no mask).
inline LayerInputs random_layer_inputs(unsigned seed, std::size_t B, std::size_t T, std::size_t D, std::size_t heads,
                                       std::size_t F, bool norm_first, attn::Activation activation,
                                       const std::vector<std::size_t>& lengths) {
    std::mt19937 generator(seed);
    using attn::Matrix;
    using attn::Vector;
    using detail::normal_tensor;
    const double spread = 1.0 / std::sqrt(double(D));
    LayerInputs in;
    in.x = normal_tensor<attn::Tensor3>(generator, {B, T, D}, 0.0, 1.0);
    attn::EncoderLayerWeights& w = in.weights;
    w.attention.w_q = normal_tensor<Matrix>(generator, {D, D}, 0.0, 2.0 * spread);
    w.attention.w_k = normal_tensor<Matrix>(generator, {D, D}, 0.0, 2.0 * spread);
    w.attention.w_v = normal_tensor<Matrix>(generator, {D, D}, 0.0, spread);
    w.attention.w_o = normal_tensor<Matrix>(generator, {D, D}, 0.0, spread);
    w.attention.b_q = normal_tensor<Vector>(generator, {D}, 0.0, 0.3);
    w.attention.b_k = normal_tensor<Vector>(generator, {D}, 0.0, 0.3);
    w.attention.b_v = normal_tensor<Vector>(generator, {D}, 0.0, 0.3);
    w.attention.b_o = normal_tensor<Vector>(generator, {D}, 0.0, 0.3);
    w.norm1_weight = normal_tensor<Vector>(generator, {D}, 1.0, 0.3);
    w.norm1_bias = normal_tensor<Vector>(generator, {D}, 0.0, 0.3);
    w.norm2_weight = normal_tensor<Vector>(generator, {D}, 1.0, 0.3);
    w.norm2_bias = normal_tensor<Vector>(generator, {D}, 0.0, 0.3);
    w.linear1_weight = normal_tensor<Matrix>(generator, {F, D}, 0.0, spread);
    w.linear1_bias = normal_tensor<Vector>(generator, {F}, 0.0, 0.3);
    w.linear2_weight = normal_tensor<Matrix>(generator, {D, F}, 0.0, 1.0 / std::sqrt(double(F)));
    w.linear2_bias = normal_tensor<Vector>(generator, {D}, 0.0, 0.3);
    in.options.heads = heads;
    in.options.norm_first = norm_first;
    in.options.activation = activation;
    if (!lengths.empty()) {
        Matrix mask = Matrix::from_shape({B, T});
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t t = 0; t < T; ++t) mask(b, t) = t < lengths.at(b) ? 1.0 : 0.0;
        in.options.attention_mask = mask;
    }
    return in;
}

template <class Inputs>
struct RandomCase {
    std::string name;
    Inputs inputs;
};

/// The checker's seeded random layer-norm cases, compared with the library.
inline std::vector<RandomCase<LayerNormInputs>> random_layer_norm_cases() {
    return {{"layer_norm on rows whose variance is as small as eps, N = 3, D = 6 (compared with the library)",
             random_layer_norm_inputs(1, 3, 6, 3e-3, 1e-5)},
            {"layer_norm on random rows with a random weight and bias, N = 4, D = 5, eps = 1e-3",
             random_layer_norm_inputs(2, 4, 5, 1.0, 1e-3)}};
}

/// The checker's seeded random encoder-layer cases, compared with the library.
inline std::vector<RandomCase<LayerInputs>> random_layer_cases() {
    return {{"a post-norm layer on a padded batch, B = 2, T = 4, D = 6, h = 3, F = 12, GELU (compared with the library)",
             random_layer_inputs(3, 2, 4, 6, 3, 12, false, attn::Activation::gelu, {4, 3})},
            {"a pre-norm layer (norm_first), a batch of one, B = 1, T = 3, D = 4, h = 2, F = 8, ReLU",
             random_layer_inputs(4, 1, 3, 4, 2, 8, true, attn::Activation::relu, {})}};
}

}  // namespace exercise06
