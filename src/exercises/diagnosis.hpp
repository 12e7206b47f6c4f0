// src/exercises/diagnosis.hpp — how `attn exercise` judges the student's numbers, case by case
// and across cases.
//
// Why a rule across cases: a classic mistake is a claim about the student's code, and a wrong
// name is worse than none. Two mistakes can give the same numbers in one case (with B = 1 the
// squeeze trap and the softmax over the batch axis both make every weight 1) and different numbers
// in another. So a mistake is named only when
//   - in every case where it would fail the check, the student's numbers equal its numbers, and
//     in every case where it would pass, the student's numbers pass too;
//   - in at least one case its numbers differ from the right ones and from every other known
//     mistake's: a case that cannot tell two candidates apart is no evidence for either;
//   - every case produced numbers (a case that threw or never ran is no evidence).
// Otherwise no name is given: the first step and element that diverge, and, when every difference
// is within a millionth of the values' size, the remark that this looks like float precision.
//
//   CaseOutcome outcome = judge_case(exercise.cases[0], reply_tensors);
//   Diagnosis d = diagnose(exercise, outcomes);   // d.mistake == "softmax_over_batch", d.message …
#pragma once

#include <string>
#include <vector>

#include "exercise_case.hpp"

namespace attn::exercises {

struct CaseOutcome {
    enum class Status { not_run, passed, failed, not_implemented, threw };
    Status status = Status::not_run;
    NamedTensors got;                            // the student's tensors, when the case produced numbers
    std::vector<tutor::Comparison> comparisons;  // one per expected step, when it produced numbers
    std::string message;                         // what the student's code threw

    bool has_numbers() const { return status == Status::passed || status == Status::failed; }
};

/// The student's tensors against the case's expected steps (a step missing from `got` fails as a
/// shape mismatch).
CaseOutcome judge_case(const Case& c, NamedTensors got);

struct Diagnosis {
    std::string mistake;       // the id of the mistake named, or "" when none is
    std::string message;       // for the student; "" when there is nothing to add
    std::string failing_step;  // the earliest step that differs (step_key; the hints follow it); "" when none did
    bool float_precision = false;
};

/// A step's name for the hints and the pointer: "output", or "layer_norm.output" when another
/// function of the exercise has a step of the same name.
std::string step_key(const Exercise& exercise, const Case& c, const std::string& name);

/// The exercise's steps in order (step_key): each case's steps merged, a step new to the list
/// placed right after the case's step before it.
std::vector<std::string> step_order(const Exercise& exercise);

/// The verdict on a run's outcomes, one per case of `exercise` (the rule above). Evaluates the
/// cases' mistake tables only when a case failed with numbers.
Diagnosis diagnose(const Exercise& exercise, const std::vector<CaseOutcome>& outcomes);

/// True when the difference between `expected` and `got` in every failing step of every failing
/// case is at most 1e-6 of the step's largest expected value: what float accumulators give.
bool looks_like_float_precision(const Exercise& exercise, const std::vector<CaseOutcome>& outcomes);

}  // namespace attn::exercises
