// The checks of exercise 4: the student's exercise::scaled_dot_product_attention against the
// lesson's worked examples (values from lessons/04-causal-self-attention/README.md: seed 002's
// example, a sequence of one, two queries over four keys, and the saturation example without a
// mask) and against the library on seeded random inputs, causal or not, including B = 1 and T ≠ S.

#include "document_steps.hpp"
#include "exercise.hpp"
#include "exercise_checker.hpp"
#include "known_mistakes.hpp"
#include "tutor/lesson_document.hpp"

using namespace attn;
using namespace attn::exercises;

namespace {

using exercise04::known_mistakes;
using exercise04::step_names;
using exercise04::steps_of;
using exercise04::values_of;

// One example of the document; `q`, `k`, `v` name its inputs (the saturation example has no
// values: its keys stand in for them, as in the lesson, since only its weights are written).
void document_case(ExerciseChecker& checker, const tutor::LessonDocument& document, const std::string& name,
                   const std::string& example, bool causal, const char* q = "Q", const char* k = "K", const char* v = "V") {
    const auto inputs = document.inputs(example);
    const Tensor3 Q = inputs.at(q), K = inputs.at(k), V = inputs.at(v);
    DocumentSteps written;
    checker.run_case(
        name,
        [&] {
            written = document_steps(document, example, step_names(), values_of(exercise::scaled_dot_product_attention(Q, K, V, causal)));
            return written.steps;
        },
        [&] { return written.mistakes(known_mistakes(Q, K, V, causal)); }, {1e-6, 1e-6});
}

void random_case(ExerciseChecker& checker, const std::string& name, std::size_t B, std::size_t T, std::size_t S,
                 std::size_t d_k, std::size_t d_v, bool causal, unsigned seed) {
    RandomInputs draw(seed);
    const Tensor3 Q = draw.normal<Tensor3>({B, T, d_k}), K = draw.normal<Tensor3>({B, S, d_k}), V = draw.normal<Tensor3>({B, S, d_v});
    AttentionOptions options;
    options.causal = causal;
    checker.run_case(
        name,
        [&] {
            return steps_of(attn::scaled_dot_product_attention(Q, K, V, options),
                            exercise::scaled_dot_product_attention(Q, K, V, causal));
        },
        [&] { return known_mistakes(Q, K, V, causal); });
}

}  // namespace

int main() {
    ExerciseChecker checker(4, "causal scaled dot-product self-attention");
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/04-causal-self-attention/README.md");
    document_case(checker, document, "the lesson's worked example, causal (expected values from the lesson document)", "main", true);
    document_case(checker, document, "a sequence of one, causal (step 10 of the lesson)", "one", true);
    document_case(checker, document, "two queries over four keys, causal (step 11 of the lesson)", "cross", true);
    document_case(checker, document, "one query, four keys of width 16, no mask (step 8 of the lesson: weights only)",
                  "saturation", false, "q", "k", "k");
    random_case(checker, "random inputs, causal, B = 3, T = S = 5, d_k = 4, d_v = 3 (compared with the library)", 3, 5, 5, 4, 3, true, 1);
    random_case(checker, "random inputs, no mask, B = 2, T = 3 queries over S = 5 keys, d_k = 4, d_v = 2", 2, 3, 5, 4, 2, false, 2);
    random_case(checker, "a batch of one, causal, B = 1, T = S = 4, d_k = 8, d_v = 3", 1, 4, 4, 8, 3, true, 3);
    return checker.finish();
}
