// The checks of exercise 3: the student's exercise::bahdanau_attention against the lesson's worked
// example (values from lessons/03-bahdanau/README.md) and against the library on seeded random
// inputs, including B = 1 and S = 1.
#include <cmath>

#include "document_steps.hpp"
#include "exercise.hpp"
#include "exercise_checker.hpp"
#include "known_mistakes.hpp"
#include "tutor/lesson_document.hpp"

using namespace attn;
using namespace attn::exercises;

namespace {

using exercise03::known_mistakes;
using exercise03::step_names;
using exercise03::steps_of;
using exercise03::values_of;

void random_case(ExerciseChecker& checker, const std::string& name, std::size_t B, std::size_t S, std::size_t H,
                 unsigned seed) {
    RandomInputs draw(seed);
    const Tensor3 encoder_outputs = draw.normal<Tensor3>({B, S, H});
    const Matrix decoder_output = draw.normal<Matrix>({B, H});
    // Layer weights of about 1/√(2H), as nn.Linear initialises them: the tanh stays away from ±1.
    const double spread = 1.0 / std::sqrt(2.0 * double(H));
    const Matrix W1 = draw.normal<Matrix>({2 * H, 2 * H}, spread);
    const Vector b1 = draw.normal<Vector>({2 * H}, spread);
    const Matrix w2 = draw.normal<Matrix>({1, 2 * H});
    const Vector b2 = draw.normal<Vector>({1});
    checker.run_case(
        name,
        [&] {
            return steps_of(bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2),
                            exercise::bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2));
        },
        [&] { return known_mistakes(encoder_outputs, decoder_output, W1, b1, w2, b2); });
}

}  // namespace

int main() {
    ExerciseChecker checker(3, "Bahdanau attention");
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/03-bahdanau/README.md");
    const auto inputs = document.inputs("main");
    const Tensor3 encoder_outputs = inputs.at("encoder_outputs");
    const Matrix decoder_output = inputs.at("decoder_output");
    const Matrix W1 = inputs.at("W1"), w2 = inputs.at("w2");
    const Vector b1 = inputs.at("b1"), b2 = inputs.at("b2");
    DocumentSteps written;
    checker.run_case(
        "the lesson's worked example (expected values from the lesson document)",
        [&] {
            written = document_steps(document, "main", step_names(),
                                     values_of(exercise::bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2)));
            return written.steps;
        },
        [&] { return written.mistakes(known_mistakes(encoder_outputs, decoder_output, W1, b1, w2, b2)); }, {1e-6, 1e-6});
    random_case(checker, "random inputs, B = 3, S = 5, H = 4 (compared with the library)", 3, 5, 4, 1);
    random_case(checker, "a batch of one, B = 1, S = 4, H = 2", 1, 4, 2, 2);
    random_case(checker, "a single source position, B = 2, S = 1, H = 3", 2, 1, 3, 3);
    return checker.finish();
}
