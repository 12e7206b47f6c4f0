// Exercise 2's cases: exercise::luong_general_attention on the lesson's worked examples (the main
// example, and W_a = I giving back lesson 1) and on seeded inputs compared with the library — a
// batch of one, a single source position, and scores in the hundreds.
#include "02-luong/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const std::vector<std::string> step_names = {"projected", "scores", "weights", "context"};

std::vector<DynamicTensor> values_of(const LuongGeneralStep& step) {
    return {step.projected, step.scores, step.weights, step.context};
}

Case exercise_case(std::string name, const Tensor3& encoder_outputs, const Matrix& decoder_output, const Matrix& W_a,
                   const LuongGeneralStep& right, const StepSelection& steps, tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "luong_general_attention",
                       {{"encoder_outputs", encoder_outputs}, {"decoder_output", decoder_output}, {"W_a", W_a}}, steps,
                       tolerance);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        return MistakeTable{
            {"weight_transposed", steps.pick(values_of(luong_weight_transposed(encoder_outputs, decoder_output, W_a)))},
            {"softmax_over_batch", steps.pick(values_of(softmax_over_batch(right, encoder_outputs)))},
            {"context_of_projected", steps.pick(values_of(luong_context_of_projected(right)))},
            {"unshifted_softmax", steps.pick(values_of(unshifted_softmax(right, encoder_outputs)))}};
    };
    return c;
}

Case document_case(const tutor::LessonDocument& document, std::string name, const std::string& example) {
    const auto inputs = document.inputs(example);
    const Tensor3 encoder_outputs = inputs.at("encoder_outputs");
    const Matrix decoder_output = inputs.at("decoder_output");
    const Matrix W_a = inputs.at("W");
    return exercise_case(std::move(name), encoder_outputs, decoder_output, W_a,
                         luong_general_attention(encoder_outputs, decoder_output, W_a),
                         document_steps(document, example, step_names, step_names), {1e-6, 1e-6});
}

// Overflowing: the decoder outputs scaled until every row's largest score is in the hundreds.
Case random_case(const EncoderDecoderShape& shape) {
    RandomInputs draw(shape.seed);
    const std::size_t B = shape.B, S = shape.S, H = shape.H;
    const Tensor3 encoder_outputs = draw.normal<Tensor3>({B, S, H});
    Matrix decoder_output = draw.normal<Matrix>({B, H});
    const Matrix W_a = draw.normal<Matrix>({H, H});
    if (shape.overflowing) decoder_output *= overflowing_scale(luong_general_attention(encoder_outputs, decoder_output, W_a).scores);
    if (shape.rows_apart) {  // the first sentence's scores, linear in its decoder output, pulled away from the others'
        auto first_scaled = [&](double factor) {
            Matrix scaled = decoder_output;
            for (std::size_t h = 0; h < shape.H; ++h) scaled(0, h) *= factor;
            return scaled;
        };
        decoder_output = first_scaled(rows_apart_factor(
            [&](double f) { return DynamicTensor(luong_general_attention(encoder_outputs, first_scaled(f), W_a).scores); }));
    }
    const LuongGeneralStep right = luong_general_attention(encoder_outputs, decoder_output, W_a);
    return exercise_case(tutor::tr(shape.name), encoder_outputs, decoder_output, W_a, right, all_steps(step_names, values_of(right)),
                         {1e-9, 1e-9});
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("Luong attention, general score");
    e.practised = "attn::luong_general_attention";
    e.mistakes = {
        {"weight_transposed", tutor::tr("W where Wᵀ was meant: encoder_outputs @ W_a computes h̄_sᵀ W_a h_t (the seed's first "
                              "LuAttention), but W_a is stored as nn.Linear stores it, so projected[i] = Σ_j W_a[i, j] · "
                              "h̄_s[j] (row i of W_a).")},
        softmax_over_batch_mistake(),
        {"context_of_projected", tutor::tr("the context averaged the projected encoder outputs W_a h̄_s instead of the original h̄_s: "
                                 "W_a only changes how the positions are scored.")},
        unshifted_softmax_mistake(tutor::tr("Subtract each row's maximum before exponentiating; it changes nothing else.")),
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    e.cases = {
        document_case(document, tutor::tr("the lesson's worked example (expected values from the lesson document)"), "main"),
        document_case(document, tutor::tr("W_a = I gives back lesson 1 (expected values from the lesson document)"), "identity"),
    };
    for (const auto& shape : encoder_decoder_shapes()) e.cases.push_back(random_case(shape));
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
