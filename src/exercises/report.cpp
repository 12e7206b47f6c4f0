#include "report.hpp"

#include <cstdio>

#include "attn/shape.hpp"
#include "tutor/language.hpp"
#include "sandbox.hpp"
#include "tutor/lesson/lesson_report.hpp"
#include "tutor/lesson/tensor_format.hpp"
#include "tutor/terminal/text_layout.hpp"

namespace attn::exercises {

namespace {

using tutor::paint;
using tutor::Style;

std::string indent(const std::string& text, const std::string& prefix) {
    std::string out = prefix;
    for (std::size_t i = 0; i < text.size(); ++i) {
        out += text[i];
        if (text[i] == '\n' && i + 1 < text.size()) out += prefix;
    }
    return out;
}

// When the summary's six digits show the same number twice, the digits that differ.
std::string same_when_rounded(const tutor::Comparison& comparison) {
    char expected[32], got[32];
    std::snprintf(expected, sizeof expected, "%.6g", comparison.worst_expected);
    std::snprintf(got, sizeof got, "%.6g", comparison.worst_got);
    if (!comparison.shapes_match || std::string(expected) != got) return "";
    std::snprintf(expected, sizeof expected, "%.17g", comparison.worst_expected);
    std::snprintf(got, sizeof got, "%.17g", comparison.worst_got);
    return " — " + tutor::trf("in full: expected {1}, got {2}", {expected, got});
}

// Every line of `text` wrapped to the terminal's width: the first line after `first`, the rest of
// it and the later lines after `rest` (a message may hold several lines of its own).
std::string wrapped(const tutor::Terminal& terminal, const std::string& text, const std::string& first, const std::string& rest) {
    std::string out;
    bool first_line = true;
    for (const std::string& line : tutor::split_lines(text)) {
        out += tutor::wrap_words(line, terminal.width, first_line ? first : rest, rest);
        first_line = false;
    }
    return out.empty() ? first + "\n" : out;
}

// A tensor as PyTorch prints it, narrowed to fit the terminal once indented.
std::string tensor_lines(const tutor::Terminal& terminal, const DynamicTensor& tensor) {
    constexpr std::size_t tensor_indent = 6;
    return indent(tutor::format_to_fit(tensor, tensor_indent, terminal.width), std::string(tensor_indent, ' '));
}

// A case on one line: its name, and the steps that differ when it failed with numbers.
void print_case_line(std::ostream& out, const tutor::Terminal& terminal, const Case& c, const CaseOutcome& outcome,
                     bool& not_implemented_shown) {
    std::string mark = paint(terminal, Style::bad, "✗"), what;
    switch (outcome.status) {
        case CaseOutcome::Status::not_run: mark = "·"; what = tutor::tr("not run"); break;
        case CaseOutcome::Status::passed: mark = paint(terminal, Style::good, "✓"); break;
        case CaseOutcome::Status::not_implemented:
            what = tutor::tr("not implemented yet");
            not_implemented_shown = true;
            break;
        case CaseOutcome::Status::threw: {
            const std::string message = printable(outcome.message);
            what = message.substr(0, message.find('\n'));
            break;
        }
        case CaseOutcome::Status::failed: {
            std::string steps;
            for (std::size_t k = 0; k < c.expected.size() && k < outcome.comparisons.size(); ++k) {
                if (!outcome.comparisons[k].passed) steps += (steps.empty() ? "" : ", ") + c.expected[k].name;
            }
            what = tutor::trf("differs in {1}", {steps});
            break;
        }
    }
    out << wrapped(terminal, mark + " " + c.name + (what.empty() ? "" : " — " + what), "  ", "    ") << std::flush;
}

}  // namespace

void print_heading(std::ostream& out, const tutor::Terminal& terminal, const Exercise& exercise) {
    out << wrapped(terminal, paint(terminal, Style::heading, tutor::trf("Exercise {1}", {std::to_string(exercise.number)}) + " · " + exercise.title), "", "  ");
}

void print_case(std::ostream& out, const tutor::Terminal& terminal, const Case& c, const CaseOutcome& outcome,
                bool& not_implemented_shown, CaseDetail detail) {
    if (detail == CaseDetail::line) {
        print_case_line(out, terminal, c, outcome, not_implemented_shown);
        return;
    }
    const std::size_t largest_tensor = detail == CaseDetail::everything ? 4096 : 64;
    const std::string bad = paint(terminal, Style::bad, "✗");
    out << "\n" << wrapped(terminal, paint(terminal, Style::bold, c.name), "  ", "  ");
    switch (outcome.status) {
        case CaseOutcome::Status::not_run:
            out << "  · " << tutor::tr("not run") << "\n";
            break;
        case CaseOutcome::Status::not_implemented:
            out << wrapped(terminal, not_implemented_shown ? tutor::tr("not implemented yet") : printable(outcome.message), "  " + bad + " ", "    ");
            not_implemented_shown = true;
            break;
        case CaseOutcome::Status::threw:
            out << wrapped(terminal, printable(outcome.message), "  " + bad + " ", "    ");
            break;
        case CaseOutcome::Status::passed:
        case CaseOutcome::Status::failed:
            for (std::size_t k = 0; k < c.expected.size(); ++k) {
                const tutor::Comparison& comparison = outcome.comparisons[k];
                const std::string& name = c.expected[k].name;
                if (comparison.passed) {
                    out << wrapped(terminal, paint(terminal, Style::good, "✓") + " " + name + ": " + comparison.summary(), "  ", "    ");
                    continue;
                }
                out << wrapped(terminal, bad + " " + name + ": " + comparison.summary() + same_when_rounded(comparison), "  ", "    ");
                if (c.expected[k].value.size() > largest_tensor) {
                    out << wrapped(terminal, tutor::tr("(the tensors are large: --verbose prints them)"), "    ", "      ");
                    continue;
                }
                out << "    " << tutor::tr("expected:") << "\n" << tensor_lines(terminal, c.expected[k].value) << "\n";
                const auto got = outcome.got.find(name);
                if (got != outcome.got.end() && got->second.size() <= largest_tensor) {
                    out << "    " << tutor::tr("got:") << "\n" << tensor_lines(terminal, got->second) << "\n";
                } else if (got != outcome.got.end()) {
                    out << wrapped(terminal, tutor::trf("got: a tensor of shape {1}", {shape_string(comparison.got_shape)}), "    ", "      ");
                }
            }
            break;
    }
    out << std::flush;
}

void print_ending(std::ostream& out, const tutor::Terminal& terminal, const RunReport& run, const Diagnosis& diagnosis) {
    // The sentence quotes the student's program (a function's name, a sanitizer's line): sanitised.
    if (!run.stopped.empty()) out << "\n" << wrapped(terminal, paint(terminal, Style::bad, "✗ " + printable(run.stopped)), "", "  ");
    if (!run.output.empty()) {
        out << "\n" << paint(terminal, Style::dim, tutor::tr("Your program printed:")) << "\n"
            << tutor::fit_to_width(indent(printable(run.output), "  | "), terminal.width) << "\n";
    }
    if (!diagnosis.message.empty()) out << "\n" << wrapped(terminal, paint(terminal, Style::accent, printable(diagnosis.message)), "  → ", "    ");
    const std::size_t passed = run.count(CaseOutcome::Status::passed), not_run = run.count(CaseOutcome::Status::not_run);
    const std::size_t failed = run.outcomes.size() - passed - not_run;
    std::string totals = tutor::trfc("exercise cases", "{1} passed, {2} failed", {std::to_string(passed), std::to_string(failed)});
    if (not_run > 0) totals += ", " + tutor::trf("{1} not run", {std::to_string(not_run)});
    out << "\n" << paint(terminal, run.passed() ? Style::good : Style::bad, totals) << "\n" << std::flush;
}

}  // namespace attn::exercises
