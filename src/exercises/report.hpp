// src/exercises/report.hpp — what `attn exercise` prints: each case's steps as the lessons
// print them (✓ or ✗, expected, got, max |Δ|), then why a run stopped, what the student's program
// printed, the diagnosis and the totals.
//
//   print_heading(std::cout, terminal, exercise);
//   print_case(std::cout, terminal, exercise.cases[i], outcome, state);   // as each case is judged
//   print_ending(std::cout, terminal, run, diagnosis);
#pragma once

#include <ostream>

#include "exercise_run.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::exercises {

void print_heading(std::ostream& out, const tutor::Terminal& terminal, const Exercise& exercise);

/// How much of a case to print: every step, with the expected and the student's tensors of a
/// failing step (tensors over 64 values only with `everything`), or one line.
enum class CaseDetail { line, full, everything };

/// One case. `not_implemented_shown`: whether a case already printed the stub's full message
/// (the later ones just say "not implemented yet").
void print_case(std::ostream& out, const tutor::Terminal& terminal, const Case& c, const CaseOutcome& outcome,
                bool& not_implemented_shown, CaseDetail detail = CaseDetail::everything);

/// Why the run stopped early (if it did), what the program printed, the diagnosis, the totals.
void print_ending(std::ostream& out, const tutor::Terminal& terminal, const RunReport& run, const Diagnosis& diagnosis);

}  // namespace attn::exercises
