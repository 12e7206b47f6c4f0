// The checks of exercise 5: the student's exercise::split_heads, exercise::merge_heads and
// exercise::multi_head_attention against the lesson's worked example and padded batch (values from
// lessons/05-multi-head-attention/README.md) and against the library on seeded random inputs:
// padded, B = 1 without a mask or W_o, and cross-attention with T ≠ S.
#include "document_steps.hpp"
#include "exercise.hpp"
#include "exercise_checker.hpp"
#include "known_mistakes.hpp"
#include "tutor/lesson_document.hpp"

using namespace attn;
using namespace attn::exercises;

namespace {

using exercise05::Inputs;

MultiHeadAttentionResult student_result(const Inputs& in) {
    return exercise::multi_head_attention(in.query, in.key, in.value, in.weights, in.heads, in.attention_mask);
}

// One example of the document: the steps it writes, under the names `prefix` + step name
// (step 9 writes batch_weights and batch_output), compared under the exercise's own step names.
void document_case(ExerciseChecker& checker, const tutor::LessonDocument& document, const std::string& name,
                   const Inputs& in, const std::string& prefix) {
    std::vector<std::string> written_names;
    for (const auto& step : exercise05::step_names()) written_names.push_back(prefix + step);
    DocumentSteps written;
    checker.run_case(
        name,
        [&] {
            written = document_steps(document, "main", written_names, exercise05::values_of(student_result(in)));
            for (std::size_t i = 0; i < written.steps.size(); ++i) written.steps[i].name = exercise05::step_names()[written.kept[i]];
            return written.steps;
        },
        [&] { return written.mistakes(exercise05::known_mistakes(in)); }, {1e-6, 1e-6});
}

}  // namespace

int main() {
    ExerciseChecker checker(5, "multi-head attention");
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/05-multi-head-attention/README.md");
    const Inputs example = exercise05::worked_example(document);

    // split_heads and merge_heads alone, on the worked example's q and context_heads.
    const MultiHeadAttentionResult right = exercise05::library_result(example);
    DocumentSteps written;
    checker.run_case(
        "split_heads(q) and merge_heads(context_heads) on the worked example (steps 3 and 6 of the lesson)",
        [&] {
            written = document_steps(document, "main", {"q_heads", "context"},
                                     {exercise::split_heads(right.q, example.heads), exercise::merge_heads(right.context_heads)});
            for (std::size_t i = 0; i < written.steps.size(); ++i) written.steps[i].name = exercise05::split_merge_step_names()[written.kept[i]];
            return written.steps;
        },
        [&] { return written.mistakes(exercise05::known_split_merge_mistakes(right.q, example.heads, right.context_heads)); },
        {1e-6, 1e-6});
    const auto split_merge = exercise05::random_split_merge_inputs();
    const Tensor3& x = split_merge.first;
    const Tensor4& y = split_merge.second;
    checker.run_case(
        "split_heads and merge_heads on random tensors, B = 2, T = 5, D = 6, h = 3 (compared with the library)",
        [&] {
            return Steps{{"split_heads", split_heads(x, 3), exercise::split_heads(x, 3)},
                         {"merge_heads", merge_heads(y), exercise::merge_heads(y)}};
        },
        [&] { return exercise05::known_split_merge_mistakes(x, 3, y); });

    // multi_head_attention.
    document_case(checker, document,
                  "the lesson's worked example, \"the cat sat\", D = 4, h = 2, with W_o (expected values from the lesson document)",
                  example, "");
    document_case(checker, document,
                  "the lesson's padded batch, attention_mask [[1, 1, 1], [1, 1, 0]] (step 9: weights and output)",
                  exercise05::padded_batch(document), "batch_");
    for (const auto& random : exercise05::random_cases()) {
        checker.run_case(
            random.name, [&] { return exercise05::steps_of(exercise05::library_result(random.inputs), student_result(random.inputs)); },
            [&] { return exercise05::known_mistakes(random.inputs); });
    }
    return checker.finish();
}
