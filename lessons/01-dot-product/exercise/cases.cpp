// Exercise 1's cases: exercise::dot_attention on the lesson's worked examples (the document's own
// values) and on seeded inputs compared with the library — a batch of one, a single source
// position, scores in the hundreds, where a softmax that does not subtract the row's maximum
// overflows, and rows hundreds apart, where one maximum for the whole batch underflows.
#include "01-dot-product/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const std::vector<std::string> step_names = {"scores", "weights", "context"};

std::vector<DynamicTensor> values_of(const AttentionStep& step) { return {step.scores, step.weights, step.context}; }

Case exercise_case(std::string name, const Tensor3& encoder_outputs, const Matrix& decoder_output, const AttentionStep& right,
                   const StepSelection& steps, tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "dot_attention",
                       {{"encoder_outputs", encoder_outputs}, {"decoder_output", decoder_output}}, steps, tolerance);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        return MistakeTable{{"softmax_over_batch", steps.pick(values_of(softmax_over_batch(right, encoder_outputs)))},
                            {"without_softmax", steps.pick(values_of(without_softmax(right, encoder_outputs)))},
                            {"weights_all_one", steps.pick(values_of(weights_all_one(right, encoder_outputs)))},
                            {"unshifted_softmax", steps.pick(values_of(unshifted_softmax(right, encoder_outputs)))}};
    };
    return c;
}

Case document_case(const tutor::LessonDocument& document, std::string name, const std::string& example) {
    const auto inputs = document.inputs(example);
    const Tensor3 encoder_outputs = inputs.at("encoder_outputs");
    const Matrix decoder_output = inputs.at("decoder_output");
    return exercise_case(std::move(name), encoder_outputs, decoder_output, dot_attention(encoder_outputs, decoder_output),
                         document_steps(document, example, step_names, step_names), {1e-6, 1e-6});
}

// Overflowing: the decoder outputs scaled until every row's largest score is in the hundreds (the
// scores are linear in them), where e^score overflows.
Case random_case(const EncoderDecoderShape& shape) {
    RandomInputs draw(shape.seed);
    const Tensor3 encoder_outputs = draw.normal<Tensor3>({shape.B, shape.S, shape.H});
    Matrix decoder_output = draw.normal<Matrix>({shape.B, shape.H});
    if (shape.overflowing) decoder_output *= overflowing_scale(dot_attention(encoder_outputs, decoder_output).scores);
    if (shape.rows_apart) {  // the first sentence's scores, linear in its decoder output, pulled away from the others'
        auto first_scaled = [&](double factor) {
            Matrix scaled = decoder_output;
            for (std::size_t h = 0; h < shape.H; ++h) scaled(0, h) *= factor;
            return scaled;
        };
        decoder_output = first_scaled(rows_apart_factor([&](double f) { return DynamicTensor(dot_attention(encoder_outputs, first_scaled(f)).scores); }));
    }
    const AttentionStep right = dot_attention(encoder_outputs, decoder_output);
    return exercise_case(tutor::tr(shape.name), encoder_outputs, decoder_output, right, all_steps(step_names, values_of(right)),
                         {1e-9, 1e-9});
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("dot-product attention");
    e.practised = "attn::dot_attention";
    e.mistakes = {
        softmax_over_batch_mistake(),
        {"without_softmax", tutor::tr("the raw scores were used as weights: the softmax step is missing.")},
        {"weights_all_one", tutor::tr("every weight is 1: the softmax ran over an axis of size one, lesson 1's `.squeeze()` trap "
                            "(a (1, S) tensor softmaxed over dim 0). Take it along each row of scores, over the S source "
                            "positions.")},
        unshifted_softmax_mistake(tutor::tr("Subtract each row's maximum before exponentiating; it changes nothing else.")),
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    e.cases = {
        document_case(document, tutor::tr("the lesson's worked example (expected values from the lesson document)"), "main"),
        document_case(document, tutor::tr("the lesson's batch of one, where the `.squeeze()` trap shows (its context)"), "one"),
    };
    for (const auto& shape : encoder_decoder_shapes()) e.cases.push_back(random_case(shape));
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
