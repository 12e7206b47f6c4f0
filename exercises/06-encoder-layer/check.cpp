// The checks of exercise 6: the student's exercise::layer_norm against the lesson's layer-norm
// example and the library on seeded rows (one set as narrow as eps, where eps's place shows), and
// exercise::transformer_encoder_layer against the lesson's worked layer — post-norm, pre-norm and
// GELU (values from lessons/06-encoder-layer/README.md) — and the library on seeded layers,
// post-norm with a padding mask and pre-norm with B = 1.
//
// Tolerance 1e-9 everywhere, also for matching a mistake: eps inside or outside the square root
// changes a value by about 1e-6, and the checker must tell those two apart. The document's values
// keep the resolution of their written digits.
#include "document_steps.hpp"
#include "exercise.hpp"
#include "exercise_checker.hpp"
#include "known_mistakes.hpp"
#include "tutor/lesson_document.hpp"

using namespace attn;
using namespace attn::exercises;

namespace {

using exercise06::LayerInputs;
using exercise06::LayerNormInputs;

const tutor::Tolerance tight{1e-9, 1e-9};

// The steps that `example` of the document writes, each under `written_names[i]`, compared under
// the exercise's step names `names[i]`.
Steps written_steps(DocumentSteps& written, const tutor::LessonDocument& document, const std::string& example,
                    const std::vector<std::string>& names, const std::vector<std::string>& written_names,
                    const std::vector<DynamicTensor>& got) {
    written = document_steps(document, example, written_names, got);
    for (std::size_t i = 0; i < written.steps.size(); ++i) written.steps[i].name = names[written.kept[i]];
    return written.steps;
}

void layer_norm_document_case(ExerciseChecker& checker, const tutor::LessonDocument& document, const std::string& name,
                              const std::string& example) {
    const LayerNormInputs in = exercise06::layer_norm_example(document, example);
    DocumentSteps written;
    checker.run_case(
        name,
        [&] {
            // The document calls nn.LayerNorm's output "pytorch"; it does not write `normalized`.
            return written_steps(written, document, example, exercise06::layer_norm_step_names(),
                                 {"mean", "variance", "", "pytorch"},
                                 exercise06::values_of(exercise::layer_norm(in.x, in.weight, in.bias, in.eps)));
        },
        [&] { return written.mistakes(exercise06::known_layer_norm_mistakes(in)); }, tight);
}

void layer_document_case(ExerciseChecker& checker, const tutor::LessonDocument& document, const std::string& name,
                         const LayerInputs& in, const std::string& prefix) {
    std::vector<std::string> written_names;
    for (const auto& step : exercise06::layer_step_names()) written_names.push_back(prefix + step);
    DocumentSteps written;
    checker.run_case(
        name,
        [&] {
            return written_steps(written, document, "main", exercise06::layer_step_names(), written_names,
                                 exercise06::values_of(exercise::transformer_encoder_layer(in.x, in.weights, in.options)));
        },
        [&] { return written.mistakes(exercise06::known_layer_mistakes(in)); }, tight);
}

}  // namespace

int main() {
    ExerciseChecker checker(6, "the Transformer encoder layer");
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/06-encoder-layer/README.md");

    // layer_norm.
    layer_norm_document_case(checker, document, "layer_norm on the lesson's rows 0 … 4 and 5 … 9 (step 1 of the lesson)",
                             "layer_norm");
    // Not a case: step 2's row [1, 0, 0, 0]. Its unbiased std is exactly 0.5, where √(v + eps) and
    // √v + eps agree to 1e-10, so the unbiased-variance and Annotated Transformer mistakes would
    // give the same numbers there and could not be told apart.
    for (const auto& random : exercise06::random_layer_norm_cases()) {
        const LayerNormInputs& in = random.inputs;
        checker.run_case(
            random.name,
            [&] {
                return exercise06::steps_of(attn::layer_norm(in.x, in.weight, in.bias, in.eps),
                                            exercise::layer_norm(in.x, in.weight, in.bias, in.eps));
            },
            [&] { return exercise06::known_layer_norm_mistakes(in); }, tight);
    }

    // transformer_encoder_layer.
    const LayerInputs post_norm = exercise06::layer_worked_example(document);
    layer_document_case(checker, document, "the lesson's worked layer, post-norm (steps 4 to 7, expected values from the lesson document)",
                        post_norm, "");
    LayerInputs pre_norm = post_norm;
    pre_norm.options.norm_first = true;
    layer_document_case(checker, document, "the same layer, pre-norm: norm_first (step 8 of the lesson)", pre_norm, "prenorm_");
    LayerInputs with_gelu = post_norm;
    with_gelu.options.activation = Activation::gelu;
    layer_document_case(checker, document, "the same layer with activation GELU (step 7 of the lesson: the output)", with_gelu,
                        "gelu_");
    for (const auto& random : exercise06::random_layer_cases()) {
        const LayerInputs& in = random.inputs;
        checker.run_case(
            random.name,
            [&] {
                return exercise06::steps_of(attn::transformer_encoder_layer(in.x, in.weights, in.options),
                                            exercise::transformer_encoder_layer(in.x, in.weights, in.options));
            },
            [&] { return exercise06::known_layer_mistakes(in); }, tight);
    }
    return checker.finish();
}
