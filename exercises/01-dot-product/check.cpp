// The checks of exercise 1: the student's exercise::dot_attention against the lesson's worked
// example (values from lessons/01-dot-product/README.md) and against the library on seeded random
// inputs, including B = 1 and S = 1.

#include "exercise.hpp"
#include "exercise_checker.hpp"
#include "known_mistakes.hpp"
#include "tutor/lesson_document.hpp"

using namespace attn;
using namespace attn::exercises;

namespace {

using exercise01::known_mistakes;
using exercise01::steps_of;

void random_case(ExerciseChecker& checker, const std::string& name, std::size_t B, std::size_t S, std::size_t H,
                 unsigned seed) {
    RandomInputs draw(seed);
    const Tensor3 encoder_outputs = draw.normal<Tensor3>({B, S, H});
    const Matrix decoder_output = draw.normal<Matrix>({B, H});
    checker.run_case(
        name, [&] { return steps_of(dot_attention(encoder_outputs, decoder_output), exercise::dot_attention(encoder_outputs, decoder_output)); },
        [&] { return known_mistakes(encoder_outputs, decoder_output); });
}

}  // namespace

int main() {
    ExerciseChecker checker(1, "dot-product attention");
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/01-dot-product/README.md");
    const auto inputs = document.inputs("main");
    const Tensor3 encoder_outputs = inputs.at("encoder_outputs");
    const Matrix decoder_output = inputs.at("decoder_output");
    checker.run_case(
        "the lesson's worked example (expected values from the lesson document)",
        [&] {
            const AttentionStep got = exercise::dot_attention(encoder_outputs, decoder_output);
            Steps steps;
            for (const char* name : {"scores", "weights", "context"}) {
                for (const auto& block : document.blocks) {
                    if (block.kind != tutor::LessonBlock::Kind::expect || block.example != "main" || block.name != name) continue;
                    const DynamicTensor& value = std::string(name) == "scores" ? got.scores
                                                 : std::string(name) == "weights" ? got.weights : got.context;
                    steps.push_back({name, block.literal.tensor, value, block.literal.resolution});
                }
            }
            return steps;
        },
        [&] { return known_mistakes(encoder_outputs, decoder_output); }, {1e-6, 1e-6});
    random_case(checker, "random inputs, B = 3, S = 5, H = 4 (compared with the library)", 3, 5, 4, 1);
    random_case(checker, "a batch of one, B = 1, S = 4, H = 3", 1, 4, 3, 2);
    random_case(checker, "a single source position, B = 2, S = 1, H = 5", 2, 1, 5, 3);
    return checker.finish();
}
