// Exercise 6's cases: exercise::layer_norm on the lesson's rows (the document's values) and on
// seeded rows compared with the library — rows whose variance is as small as eps (where eps's
// place shows), a single row — then exercise::transformer_encoder_layer on the lesson's worked
// layer (post-norm, pre-norm, GELU) and on seeded layers: post-norm with a padding mask, pre-norm
// with B = 1, and a single position.
//
// Tolerance 1e-9 everywhere, also for matching a mistake: eps inside or outside the square root
// changes a value by about 1e-6, and the checker must tell those two apart. The document's values
// keep the resolution of their written digits.
#include <cmath>

#include "06-encoder-layer/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"
#include "tutor/compute/named_weights.hpp"

namespace attn::exercises {

namespace {

const tutor::Tolerance tight{1e-9, 1e-9};

// ---------------------------------------------------------------------------------------------
// layer_norm

const std::vector<std::string> norm_steps = {"mean", "variance", "normalized", "output"};

std::vector<DynamicTensor> values_of(const LayerNormStep& step) { return {step.mean, step.variance, step.normalized, step.output}; }

Case norm_case(std::string name, const Matrix& x, const Vector& weight, const Vector& bias, double eps,
               const StepSelection& steps) {
    Case c = make_case(std::move(name), "layer_norm", {{"x", x}, {"weight", weight}, {"bias", bias}, {"eps", number(eps)}},
                       steps, tight);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        MistakeTable table{{"eps_outside_sqrt", steps.pick(values_of(layer_norm_eps_outside_sqrt(x, weight, bias, eps)))},
                           {"whole_tensor", steps.pick(values_of(layer_norm_whole_tensor(x, weight, bias, eps)))}};
        if (x.shape(1) >= 2) {  // the unbiased variance of one value is 0 / 0
            table["unbiased_variance"] = steps.pick(values_of(layer_norm_unbiased_variance(x, weight, bias, eps)));
            table["annotated_transformer"] = steps.pick(values_of(layer_norm_annotated_transformer(x, weight, bias, eps)));
        }
        return table;
    };
    return c;
}

/// A layer-norm example of the document: weight 1, bias 0, as a fresh nn.LayerNorm has them. The
/// document calls nn.LayerNorm's output "pytorch" and does not write `normalized`.
Case norm_document_case(const tutor::LessonDocument& document, std::string name, const std::string& example) {
    const Matrix x = document.inputs(example).at("x");
    const std::size_t D = x.shape(1);
    return norm_case(std::move(name), x, xt::ones<double>({D}), xt::zeros<double>({D}), default_layer_norm_eps,
                     document_steps(document, example, norm_steps, {"mean", "variance", "", "pytorch"}));
}

/// Seeded rows of `spread` around 1, weight near 1, bias near 0.
Case norm_random_case(std::string name, unsigned seed, std::size_t N, std::size_t D, double spread, double eps) {
    RandomInputs draw(seed);
    const Matrix x = draw.normal<Matrix>({N, D}, spread, 1.0);
    const Vector weight = draw.normal<Vector>({D}, 0.3, 1.0), bias = draw.normal<Vector>({D}, 0.3);
    return norm_case(std::move(name), x, weight, bias, eps, all_steps(norm_steps, values_of(layer_norm(x, weight, bias, eps))));
}

// ---------------------------------------------------------------------------------------------
// transformer_encoder_layer

const std::vector<std::string> layer_steps = {"attention_input", "attention_weights", "attention_output", "attention_residual",
                                              "after_attention", "ffn_input",         "ffn_hidden",       "ffn_output",
                                              "ffn_residual",    "output"};

std::vector<DynamicTensor> values_of(const EncoderLayerStep& step) {
    return {step.attention_input, step.attention.weights, step.attention.output, step.attention_residual, step.after_attention,
            step.ffn_input,       step.ffn_hidden,        step.ffn_output,       step.ffn_residual,       step.output};
}

struct LayerInputs {
    Tensor3 x;  // (B, T, D)
    EncoderLayerWeights weights;
    EncoderLayerOptions options;
};

NamedTensors request_of(const LayerInputs& in) {
    const EncoderLayerWeights& w = in.weights;
    NamedTensors inputs{{"x", in.x},
                        {"w_q", w.attention.w_q}, {"w_k", w.attention.w_k}, {"w_v", w.attention.w_v},
                        {"b_q", w.attention.b_q}, {"b_k", w.attention.b_k}, {"b_v", w.attention.b_v},
                        {"w_o", *w.attention.w_o}, {"b_o", *w.attention.b_o},
                        {"norm1_weight", w.norm1_weight}, {"norm1_bias", w.norm1_bias},
                        {"norm2_weight", w.norm2_weight}, {"norm2_bias", w.norm2_bias},
                        {"linear1_weight", w.linear1_weight}, {"linear1_bias", w.linear1_bias},
                        {"linear2_weight", w.linear2_weight}, {"linear2_bias", w.linear2_bias},
                        {"heads", number(double(in.options.heads))},
                        {"norm_first", number(in.options.norm_first ? 1.0 : 0.0)},
                        {"eps", number(in.options.eps)},
                        {"gelu", number(in.options.activation == Activation::gelu ? 1.0 : 0.0)}};
    if (in.options.attention_mask) inputs["attention_mask"] = *in.options.attention_mask;
    return inputs;
}

Case layer_case(std::string name, const LayerInputs& in, const EncoderLayerStep& right, const StepSelection& steps) {
    Case c = make_case(std::move(name), "transformer_encoder_layer", request_of(in), steps, tight);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        const auto& [x, w, options] = in;
        return MistakeTable{
            {"norms_swapped", steps.pick(values_of(norms_swapped(x, w, options)))},
            {"unbiased_variance", steps.pick(values_of(layer_with_norm(right, x, w, options, layer_norm_unbiased_variance)))},
            {"eps_outside_sqrt", steps.pick(values_of(layer_with_norm(right, x, w, options, layer_norm_eps_outside_sqrt)))},
            {"annotated_transformer",
             steps.pick(values_of(layer_with_norm(right, x, w, options, layer_norm_annotated_transformer)))},
            {"whole_tensor", steps.pick(values_of(layer_with_norm(right, x, w, options, layer_norm_whole_tensor)))},
            {"without_output_projection", steps.pick(values_of(layer_without_output_projection(right, x, w, options)))}};
    };
    return c;
}

/// The worked layer of the document, whose steps it writes under `prefix` + the step's name.
Case layer_document_case(const tutor::LessonDocument& document, std::string name, const LayerInputs& in,
                         const std::vector<std::string>& written_names) {
    return layer_case(std::move(name), in, transformer_encoder_layer(in.x, in.weights, in.options),
                      document_steps(document, "main", layer_steps, written_names));
}

/// A seeded encoder layer. `lengths`: the real tokens of each sentence (empty: no mask).
LayerInputs random_layer(unsigned seed, std::size_t B, std::size_t T, std::size_t D, std::size_t heads, std::size_t F,
                         bool norm_first, Activation activation, const std::vector<std::size_t>& lengths) {
    RandomInputs draw(seed);
    const double spread = 1.0 / std::sqrt(double(D));
    LayerInputs in;
    in.x = draw.normal<Tensor3>({B, T, D});
    EncoderLayerWeights& w = in.weights;
    w.attention.w_q = draw.normal<Matrix>({D, D}, 2.0 * spread);
    w.attention.w_k = draw.normal<Matrix>({D, D}, 2.0 * spread);
    w.attention.w_v = draw.normal<Matrix>({D, D}, spread);
    w.attention.w_o = draw.normal<Matrix>({D, D}, spread);
    w.attention.b_q = draw.normal<Vector>({D}, 0.3);
    w.attention.b_k = draw.normal<Vector>({D}, 0.3);
    w.attention.b_v = draw.normal<Vector>({D}, 0.3);
    w.attention.b_o = draw.normal<Vector>({D}, 0.3);
    w.norm1_weight = draw.normal<Vector>({D}, 0.3, 1.0);
    w.norm1_bias = draw.normal<Vector>({D}, 0.3);
    w.norm2_weight = draw.normal<Vector>({D}, 0.3, 1.0);
    w.norm2_bias = draw.normal<Vector>({D}, 0.3);
    w.linear1_weight = draw.normal<Matrix>({F, D}, spread);
    w.linear1_bias = draw.normal<Vector>({F}, 0.3);
    w.linear2_weight = draw.normal<Matrix>({D, F}, 1.0 / std::sqrt(double(F)));
    w.linear2_bias = draw.normal<Vector>({D}, 0.3);
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

Case layer_random_case(std::string name, const LayerInputs& in) {
    const EncoderLayerStep right = transformer_encoder_layer(in.x, in.weights, in.options);
    return layer_case(std::move(name), in, right, all_steps(layer_steps, values_of(right)));
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("the Transformer encoder layer");
    e.practised = "layer_norm and transformer_encoder_layer";
    e.library_allowed = {"attn::multi_head_attention", "attn::feed_forward", "attn::linear", "attn::softmax_last_axis",
                         "attn::split_heads", "attn::merge_heads", "attn::relu", "attn::gelu"};
    e.mistakes = {
        {"norms_swapped", tutor::tr("pre-norm and post-norm are swapped: post-norm is y = norm(x + sublayer(x)), pre-norm "
                          "(norm_first) is y = x + sublayer(norm(x)), and your layer computes the other one.")},
        {"unbiased_variance", tutor::tr("in your layer_norm, the variance is the unbiased one (÷ (D − 1), what torch.var and "
                              "x.std(-1) compute by default): nn.LayerNorm divides the squared deviations by D.")},
        {"eps_outside_sqrt", tutor::tr("in your layer_norm, eps was added outside the square root, (x − mean) / (√variance + eps): "
                             "nn.LayerNorm divides by √(variance + eps), which differs most when a row's variance is as "
                             "small as eps.")},
        {"annotated_transformer", tutor::tr("your layer_norm is the Annotated Transformer's, (x − mean) / (unbiased std + eps): "
                                  "nn.LayerNorm uses the biased variance (÷ D) and puts eps inside the square root.")},
        {"whole_tensor", tutor::tr("your layer_norm takes one mean and one variance over the whole tensor (every row together, as "
                         "nn.LayerNorm(x.shape) would): each row, one position's D features, is normalised on its own.")},
        {"without_output_projection", tutor::tr("the attention sub-layer's output is missing its output projection: the residual "
                                      "adds attention.output (context W_oᵀ + b_o), not attention.context.")},
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    LayerInputs post_norm;
    post_norm.x = document.inputs("main").at("x");
    post_norm.weights = tutor::encoder_layer_weights_from(document.inputs("main"));
    post_norm.options.heads = 2;  // the document's example: D = 4 in two heads of d_k = 2
    LayerInputs pre_norm = post_norm, with_gelu = post_norm;
    pre_norm.options.norm_first = true;
    with_gelu.options.activation = Activation::gelu;
    std::vector<std::string> gelu_names(layer_steps.size(), "");
    gelu_names.back() = "gelu_output";
    e.cases = {
        norm_document_case(document, tutor::tr("layer_norm on the lesson's rows 0 … 4 and 5 … 9"), "layer_norm"),
        norm_document_case(document, tutor::tr("layer_norm on the lesson's row [1, 0, 0, 0] (its output)"), "one_hot"),
        norm_random_case(tutor::tr("layer_norm on rows whose variance is as small as eps, N = 3, D = 6 (compared with the library)"), 1,
                         3, 6, 3e-3, 1e-5),
        norm_random_case(tutor::tr("layer_norm on random rows with a random weight and bias, N = 4, D = 5, eps = 1e-3"), 2, 4, 5, 1.0,
                         1e-3),
        norm_random_case(tutor::tr("layer_norm on a single row, N = 1, D = 4"), 5, 1, 4, 1.0, 1e-5),
        layer_document_case(document, tutor::tr("the lesson's worked layer, post-norm (expected values from the lesson document)"),
                            post_norm, layer_steps),
        layer_document_case(document, tutor::tr("the same layer, pre-norm: norm_first (the document's prenorm_ values)"), pre_norm,
                            prefixed("prenorm_", layer_steps)),
        layer_document_case(document, tutor::tr("the same layer with activation GELU (the document's output)"), with_gelu, gelu_names),
        layer_random_case(tutor::tr("a post-norm layer on a padded batch, B = 2, T = 4, D = 6, h = 3, F = 12, GELU (compared with the library)"),
                          random_layer(3, 2, 4, 6, 3, 12, false, Activation::gelu, {4, 3})),
        layer_random_case(tutor::tr("a pre-norm layer (norm_first), a batch of one, B = 1, T = 3, D = 4, h = 2, F = 8, ReLU"),
                          random_layer(4, 1, 3, 4, 2, 8, true, Activation::relu, {})),
        layer_random_case(tutor::tr("a single position per sentence, B = 2, T = 1, D = 4, h = 2, F = 8, post-norm"),
                          random_layer(6, 2, 1, 4, 2, 8, false, Activation::relu, {})),
    };
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
