// src/exercises/exercise_case.hpp — what an exercise checks: its cases, each case's expected
// steps, and the classic mistakes' values in it.
//
// Why this shape: the student's program only computes (student/student_side.hpp); everything
// that judges lives here, in `attn exercise` itself. A case is the inputs sent to the student's
// program, the steps compared (the lesson's worked example with the document's own values and
// written digits, or seeded inputs compared with the library), and, computed only when needed,
// what each known mistake gives in that case — the evidence diagnose() weighs across cases.
//
//   Exercise e = exercise_definition(1, source_directory());
//   e.cases[0].inputs;     // {"encoder_outputs": …, "decoder_output": …}
//   e.cases[0].mistakes(); // {"softmax_over_batch": {scores, weights, context}, …}
#pragma once

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "tutor/check.hpp"

namespace attn::exercises {

using NamedTensors = std::map<std::string, DynamicTensor>;

/// One compared step: the name the student's program returns it under, and the right value.
struct ExpectedStep {
    std::string name;
    DynamicTensor value;
    std::vector<double> resolution = {};  // half a unit of each written digit when `value` comes from a document
};

/// Each known mistake's values in one case (by id), one tensor per expected step, same order. A
/// mistake absent from the table gives the right values in that case, or is not defined there.
using MistakeTable = std::map<std::string, std::vector<DynamicTensor>>;

struct Case {
    std::string name;                       // "random inputs, B = 3, S = 5, H = 4"
    std::string call;                       // what the student's program runs: "dot_attention"
    NamedTensors inputs;                    // sent to it; flags and sizes as one-value tensors
    std::vector<ExpectedStep> expected;     // compared, in order
    tutor::Tolerance tolerance{1e-9, 1e-9};
    std::function<MistakeTable()> mistakes;  // evaluated only when a diagnosis needs it
};

struct KnownMistake {
    std::string id;           // "softmax_over_batch"
    std::string explanation;  // one sentence: what the code did instead, and what is right
};

struct Exercise {
    int number = 0;
    std::string title;
    /// What the student writes, named in the refusal when the library's own is called.
    std::string practised;
    /// The library's functions the student may call (qualified names: "attn::linear"); any other
    /// function of the library in the student's object file is refused.
    std::vector<std::string> library_allowed;
    std::vector<KnownMistake> mistakes;
    std::vector<Case> cases;
};

/// Exercise `number` (1 … 7), its document cases read from `source`/lessons. InputError for an
/// unknown number; the document's own errors (LessonFormatError) pass through.
Exercise exercise_definition(int number, const std::string& source);

Exercise exercise01(const std::string& source);
Exercise exercise02(const std::string& source);
Exercise exercise03(const std::string& source);
Exercise exercise04(const std::string& source);
Exercise exercise05(const std::string& source);
Exercise exercise06(const std::string& source);
Exercise exercise07(const std::string& source);

/// A one-value tensor: how a case sends a size, a flag or eps.
inline DynamicTensor number(double value) { return DynamicTensor({value}); }

/// The random cases' inputs: seeded N(mean, spread²) draws, the same numbers on every run.
///
///   RandomInputs draw(1);
///   const attn::Tensor3 encoder_outputs = draw.normal<attn::Tensor3>({B, S, H});
class RandomInputs {
public:
    explicit RandomInputs(unsigned seed) : generator_(seed) {}

    /// A tensor of `shape` filled, in row-major order, with draws of `spread` around `mean`.
    template <class Tensor>
    Tensor normal(const typename Tensor::shape_type& shape, double spread = 1.0, double mean = 0.0) {
        Tensor tensor = Tensor::from_shape(shape);
        for (double& value : tensor) value = mean + spread * standard_normal_(generator_);
        return tensor;
    }

private:
    std::mt19937 generator_;
    std::normal_distribution<double> standard_normal_{0.0, 1.0};
};

}  // namespace attn::exercises
