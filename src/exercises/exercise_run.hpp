// src/exercises/exercise_run.hpp — one check of a student's program: every case sent to it in
// the sandbox, each answer judged as it arrives.
//
// Why the parent judges: a pass is decided here, from the tensors the student's program reports
// for each case on a pipe this process owns (with the run's nonce), never from its exit status or
// anything it prints. A program that stops before reporting every case — exit(0), a crash, an
// endless loop stopped at the time limit — fails, and the sentence in `stopped` says which case,
// inside which of the student's functions, and why; the cases judged before it are kept.
//
//   RunReport run = run_cases(exercise, build.program, limits, [&](std::size_t i, const CaseOutcome& o) {
//       print_case(std::cout, terminal, exercise.cases[i], o);     // streamed: kept even if a later case crashes
//   });
//   run.passed();
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "diagnosis.hpp"
#include "sandbox.hpp"

namespace attn::exercises {

struct RunReport {
    std::vector<CaseOutcome> outcomes;  // one per case; not_run for those after a stop
    std::string stopped;                // why the run ended before every case reported; "" otherwise
    std::string output;                 // what the student's program printed (capped, raw bytes)
    bool internal_error = false;        // the checker and the student's program disagree: a bug of ours

    bool passed() const;
    std::size_t count(CaseOutcome::Status status) const;
};

using CaseCallback = std::function<void(std::size_t index, const CaseOutcome& outcome)>;

/// Runs `exercise`'s cases in `program` under `limits`, calling `on_case` as each is judged.
RunReport run_cases(const Exercise& exercise, const std::string& program, const Limits& limits, const CaseCallback& on_case);

}  // namespace attn::exercises
