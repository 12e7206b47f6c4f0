// exercises/support/exercise_checker.hpp — how an exercise judges a student's implementation.
//
// Why: an exercise is a check program (exercises/NN-slug/check.cpp) linked with the student's
// file. It runs the student's function on a few cases — the lesson's worked example, seeded random
// inputs, a batch of one — and prints each step as the lessons do: ✓ or ✗, expected, got, max |Δ|.
// When a step is wrong it names the classic mistake the numbers match (attn/mistakes.hpp), or else
// shows the first step and element where they diverge.
//
//   ExerciseChecker checker(1, "dot-product attention");
//   checker.run_case("the worked example", [&] {
//       const auto got = exercise::dot_attention(A, b);
//       return Steps{{"scores", expected.scores, got.scores}, {"weights", ...}};
//   }, [&] { return Mistakes{{"the softmax ran over the batch axis", steps_of(mistake)}}; });
//   return checker.finish();
#pragma once

#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "tutor/check.hpp"
#include "tutor/terminal.hpp"

namespace attn::exercises {

/// What a stub throws: the student has not written this function yet.
class NotImplementedYet : public std::logic_error {
public:
    explicit NotImplementedYet(const std::string& what) : std::logic_error(what) {}
};

/// One step of the computation: its name, the right value, and the student's.
struct Step {
    std::string name;
    DynamicTensor expected;
    DynamicTensor got;
    std::vector<double> resolution = {};  // the written digits' tolerance when `expected` comes from a document
};
using Steps = std::vector<Step>;

/// A classic mistake and the values of each step computed with it (same order and names as Steps).
struct Mistake {
    std::string explanation;  // one sentence: what the code did instead
    std::vector<DynamicTensor> steps;
};
using Mistakes = std::vector<Mistake>;

/// What diagnose() concluded.
struct Diagnosis {
    const Mistake* mistake = nullptr;  // the mistake the student's numbers match, if any
    std::string message;               // one sentence for the student
};

/// Which mistake, if any, explains the student's steps: a mistake matches when every step the
/// student got wrong equals the mistake's value there. Otherwise the message names the first
/// step and element that diverge.
Diagnosis diagnose(const Steps& steps, const Mistakes& mistakes, const tutor::Tolerance& tolerance);

/// The random cases' inputs: seeded N(0, spread²) draws, the same numbers on every run.
///
///   RandomInputs draw(1);
///   const attn::Tensor3 encoder_outputs = draw.normal<attn::Tensor3>({B, S, H});
class RandomInputs {
public:
    explicit RandomInputs(unsigned seed) : generator_(seed) {}

    /// A tensor of `shape` filled, in row-major order, with draws of spread (standard deviation) `spread`.
    template <class Tensor>
    Tensor normal(const typename Tensor::shape_type& shape, double spread = 1.0) {
        Tensor tensor = Tensor::from_shape(shape);
        for (double& value : tensor) value = spread * standard_normal_(generator_);
        return tensor;
    }

private:
    std::mt19937 generator_;
    std::normal_distribution<double> standard_normal_{0.0, 1.0};
};

class ExerciseChecker {
public:
    ExerciseChecker(int lesson, std::string title);

    /// Runs one case. `compute` calls the student's code and returns its steps; `mistakes` is only
    /// evaluated when a step fails. A NotImplementedYet, a ShapeError or any exception from the
    /// student's code is reported as a failed case with its message.
    void run_case(const std::string& name, const std::function<Steps()>& compute,
                  const std::function<Mistakes()>& mistakes = {}, tutor::Tolerance tolerance = {1e-9, 1e-9});

    /// Prints the totals line; returns 0 when every case passed, 1 otherwise.
    int finish();

private:
    int lesson_;
    std::string title_;
    tutor::Terminal terminal_;
    std::size_t passed_ = 0, failed_ = 0;
    bool not_implemented_reported_ = false;
};

}  // namespace attn::exercises
