// The checks of exercise 3: the student's exercise::bahdanau_attention against the lesson's worked
// example (values from lessons/03-bahdanau/README.md) and against the library on seeded random
// inputs, including B = 1 and S = 1.
#include <cmath>
#include <random>

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
    std::mt19937 generator(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    Tensor3 encoder_outputs = Tensor3::from_shape({B, S, H});
    Matrix decoder_output = Matrix::from_shape({B, H});
    Matrix W1 = Matrix::from_shape({2 * H, 2 * H}), w2 = Matrix::from_shape({1, 2 * H});
    Vector b1 = Vector::from_shape({2 * H}), b2 = Vector::from_shape({1});
    for (double& v : encoder_outputs) v = normal(generator);
    for (double& v : decoder_output) v = normal(generator);
    // Layer weights of about 1/√(2H), as nn.Linear initialises them: the tanh stays away from ±1.
    const double spread = 1.0 / std::sqrt(2.0 * double(H));
    for (double& v : W1) v = spread * normal(generator);
    for (double& v : b1) v = spread * normal(generator);
    for (double& v : w2) v = normal(generator);
    for (double& v : b2) v = normal(generator);
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
