// Exercise 3's cases: exercise::bahdanau_attention on the lesson's worked example (the document's
// values) and on seeded inputs compared with the library — a batch of one, a single source
// position (where the seed's reshape is invisible), and scores in the hundreds.
#include <cmath>

#include "03-bahdanau/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const std::vector<std::string> step_names = {"concatenated", "preactivation", "hidden", "scores", "weights", "context"};

std::vector<DynamicTensor> values_of(const BahdanauStep& step) {
    return {step.concatenated, step.preactivation, step.hidden, step.scores, step.weights, step.context};
}

struct Inputs {
    Tensor3 encoder_outputs;
    Matrix decoder_output, W1, w2;
    Vector b1, b2;
};

Case exercise_case(std::string name, const Inputs& in, const BahdanauStep& right, const StepSelection& steps,
                   tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "bahdanau_attention",
                       {{"encoder_outputs", in.encoder_outputs}, {"decoder_output", in.decoder_output}, {"W1", in.W1},
                        {"b1", in.b1}, {"w2", in.w2}, {"b2", in.b2}},
                       steps, tolerance);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        const auto& [A, b, W1, w2, b1, b2] = in;
        return MistakeTable{
            {"concatenation_swapped", steps.pick(values_of(bahdanau_concatenation_swapped(A, b, W1, b1, w2, b2)))},
            {"reshape_not_transpose", steps.pick(values_of(bahdanau_reshape_not_transpose(right, A, W1, b1, w2, b2)))},
            {"softmax_over_batch", steps.pick(values_of(softmax_over_batch(right, A)))},
            {"unshifted_softmax", steps.pick(values_of(unshifted_softmax(right, A)))}};
    };
    return c;
}

BahdanauStep right_of(const Inputs& in) {
    return bahdanau_attention(in.encoder_outputs, in.decoder_output, in.W1, in.b1, in.w2, in.b2);
}

Case document_case(const tutor::LessonDocument& document, std::string name) {
    const auto inputs = document.inputs("main");
    const Inputs in{inputs.at("encoder_outputs"), inputs.at("decoder_output"), inputs.at("W1"), inputs.at("w2"),
                    inputs.at("b1"), inputs.at("b2")};
    return exercise_case(std::move(name), in, right_of(in), document_steps(document, "main", step_names, step_names),
                         {1e-6, 1e-6});
}

// Layer weights of about 1/√(2H), as nn.Linear initialises them (the tanh stays away from ±1).
// Overflowing: w2 and b2 scaled until every row's largest score is in the hundreds.
Case random_case(const EncoderDecoderShape& shape) {
    RandomInputs draw(shape.seed);
    const std::size_t B = shape.B, S = shape.S, H = shape.H;
    const double spread = 1.0 / std::sqrt(2.0 * double(H));
    Inputs in;
    in.encoder_outputs = draw.normal<Tensor3>({B, S, H});
    in.decoder_output = draw.normal<Matrix>({B, H});
    in.W1 = draw.normal<Matrix>({2 * H, 2 * H}, spread);
    in.b1 = draw.normal<Vector>({2 * H}, spread);
    in.w2 = draw.normal<Matrix>({1, 2 * H});
    in.b2 = draw.normal<Vector>({1});
    if (shape.overflowing) {
        const double scale = overflowing_scale(right_of(in).scores);
        in.w2 *= scale;
        in.b2 *= scale;
    }
    if (shape.rows_apart) {  // the tanh is bounded: w2 (every score's scale) is what pulls the rows apart
        const double factor = rows_apart_factor([&](double f) {
            Inputs scaled = in;
            scaled.w2 *= f;
            return DynamicTensor(right_of(scaled).scores);
        });
        in.w2 *= factor;
    }
    const BahdanauStep right = right_of(in);
    return exercise_case(tutor::tr(shape.name), in, right, all_steps(step_names, values_of(right)), {1e-9, 1e-9});
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("Bahdanau attention");
    e.practised = "attn::bahdanau_attention";
    e.mistakes = {
        {"concatenation_swapped", tutor::tr("the concatenation is in the wrong order: h = [h_t ; h̄_s] instead of [h̄_s ; h_t], so "
                                  "W1's first H columns meet the decoder state instead of the encoder output.")},
        {"reshape_not_transpose", tutor::tr("h was reshaped to (2H, S) instead of transposed (the seed's first BaAttention): each "
                                  "column fed to W1 mixes numbers of several positions and of h_t — take "
                                  "concatenated(b, s, ·) for position s.")},
        softmax_over_batch_mistake(),
        unshifted_softmax_mistake(tutor::tr("Subtract each row's maximum before exponentiating; it changes nothing else.")),
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    e.cases = {
        document_case(document, tutor::tr("the lesson's worked example (expected values from the lesson document)")),
    };
    for (const auto& shape : encoder_decoder_shapes()) e.cases.push_back(random_case(shape));
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
