// exercises/support/document_steps.hpp — a check case whose expected values are the ones a lesson
// document writes out.
//
// Why: an exercise's first case is the lesson's worked example, and its expected values must be
// the document's own (with their written-digit resolution), not recomputed by the library. An
// example of the document need not write every step (lesson 4's "one" example writes only the
// weights and the output), so the case compares the steps that are written, and each classic
// mistake is cut down to the same steps.
//
//   const auto names = exercise02::step_names();                  // projected, scores, weights, context
//   DocumentSteps written = document_steps(document, "identity", names, exercise02::values_of(got));
//   // written.steps: scores and context only; written.mistakes(all_mistakes) keeps those two of each
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "exercise_checker.hpp"
#include "tutor/lesson_document.hpp"

namespace attn::exercises {

/// The steps of one document example, and which of the exercise's steps they are.
struct DocumentSteps {
    Steps steps;
    std::vector<std::size_t> kept;  // indices into the exercise's step names, in order

    /// `mistakes` (with every step of the exercise) cut down to the steps written in the document.
    Mistakes mistakes(const Mistakes& all) const {
        Mistakes cut;
        for (const auto& mistake : all) {
            Mistake kept_steps{mistake.explanation, {}};
            for (std::size_t index : kept) kept_steps.steps.push_back(mistake.steps.at(index));
            cut.push_back(std::move(kept_steps));
        }
        return cut;
    }
};

/// For each of `names` (the exercise's steps, in its order) with an expect block in `example`:
/// the document's value and resolution, and `got` at the same index (the student's value). A
/// block's own atol= and rtol= widen its resolution, as they do in the lesson.
inline DocumentSteps document_steps(const tutor::LessonDocument& document, const std::string& example,
                                    const std::vector<std::string>& names, const std::vector<DynamicTensor>& got) {
    DocumentSteps written;
    for (std::size_t i = 0; i < names.size(); ++i) {
        for (const auto& block : document.blocks) {
            if (block.kind != tutor::LessonBlock::Kind::expect || block.example != example || block.name != names[i]) continue;
            const DynamicTensor& expected = block.literal.tensor;
            std::vector<double> resolution = block.literal.resolution;
            if (block.absolute_tolerance || block.relative_tolerance) {
                resolution.resize(expected.size(), 0.0);
                for (std::size_t k = 0; k < expected.size(); ++k) {
                    resolution[k] += block.absolute_tolerance.value_or(0.0) +
                                     block.relative_tolerance.value_or(0.0) * std::abs(expected.data()[k]);
                }
            }
            written.steps.push_back({names[i], expected, got.at(i), std::move(resolution)});
            written.kept.push_back(i);
            break;
        }
    }
    return written;
}

}  // namespace attn::exercises
