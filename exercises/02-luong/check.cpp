// The checks of exercise 2: the student's exercise::luong_general_attention against the lesson's
// worked examples (values from lessons/02-luong/README.md: the main example, and W_a = I giving
// back lesson 1) and against the library on seeded random inputs, including B = 1 and S = 1.

#include "document_steps.hpp"
#include "exercise.hpp"
#include "exercise_checker.hpp"
#include "known_mistakes.hpp"
#include "tutor/lesson_document.hpp"

using namespace attn;
using namespace attn::exercises;

namespace {

using exercise02::known_mistakes;
using exercise02::step_names;
using exercise02::steps_of;
using exercise02::values_of;

void document_case(ExerciseChecker& checker, const tutor::LessonDocument& document, const std::string& name,
                   const std::string& example) {
    const auto inputs = document.inputs(example);
    const Tensor3 encoder_outputs = inputs.at("encoder_outputs");
    const Matrix decoder_output = inputs.at("decoder_output");
    const Matrix W = inputs.at("W");
    DocumentSteps written;
    checker.run_case(
        name,
        [&] {
            written = document_steps(document, example, step_names(),
                                     values_of(exercise::luong_general_attention(encoder_outputs, decoder_output, W)));
            return written.steps;
        },
        [&] { return written.mistakes(known_mistakes(encoder_outputs, decoder_output, W)); }, {1e-6, 1e-6});
}

void random_case(ExerciseChecker& checker, const std::string& name, std::size_t B, std::size_t S, std::size_t H,
                 unsigned seed) {
    RandomInputs draw(seed);
    const Tensor3 encoder_outputs = draw.normal<Tensor3>({B, S, H});
    const Matrix decoder_output = draw.normal<Matrix>({B, H});
    const Matrix W = draw.normal<Matrix>({H, H});
    checker.run_case(
        name,
        [&] {
            return steps_of(luong_general_attention(encoder_outputs, decoder_output, W),
                            exercise::luong_general_attention(encoder_outputs, decoder_output, W));
        },
        [&] { return known_mistakes(encoder_outputs, decoder_output, W); });
}

}  // namespace

int main() {
    ExerciseChecker checker(2, "Luong attention, general score");
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/02-luong/README.md");
    document_case(checker, document, "the lesson's worked example (expected values from the lesson document)", "main");
    document_case(checker, document, "W_a = I gives back lesson 1 (step 6 of the lesson)", "identity");
    random_case(checker, "random inputs, B = 3, S = 5, H = 4 (compared with the library)", 3, 5, 4, 1);
    random_case(checker, "a batch of one, B = 1, S = 4, H = 3", 1, 4, 3, 2);
    random_case(checker, "a single source position, B = 2, S = 1, H = 5", 2, 1, 5, 3);
    return checker.finish();
}
