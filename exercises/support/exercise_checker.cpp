#include "exercise_checker.hpp"

#include <iostream>

#include "attn/error.hpp"
#include "attn/shape.hpp"
#include "tutor/tensor_format.hpp"

namespace attn::exercises {

namespace {

std::string indent(const std::string& text, const std::string& prefix) {
    std::string out = prefix;
    for (char c : text) {
        out += c;
        if (c == '\n') out += prefix;
    }
    return out;
}

tutor::Comparison compare_step(const Step& step, const tutor::Tolerance& tolerance) {
    return tutor::compare(step.expected, step.got, tolerance, step.resolution);
}

}  // namespace

Diagnosis diagnose(const Steps& steps, const Mistakes& mistakes, const tutor::Tolerance& tolerance) {
    Diagnosis diagnosis;
    for (const auto& mistake : mistakes) {
        bool explains = mistake.steps.size() == steps.size();
        bool any_wrong = false;
        for (std::size_t i = 0; explains && i < steps.size(); ++i) {
            if (compare_step(steps[i], tolerance).passed) continue;
            any_wrong = true;
            explains = tutor::compare(mistake.steps[i], steps[i].got, tolerance).passed;
        }
        if (explains && any_wrong) {
            diagnosis.mistake = &mistake;
            diagnosis.message = "Your numbers match a classic mistake: " + mistake.explanation;
            return diagnosis;
        }
    }
    for (const auto& step : steps) {
        const auto comparison = compare_step(step, tolerance);
        if (comparison.passed) continue;
        if (!comparison.shapes_match) {
            diagnosis.message = "The first step that differs is '" + step.name + "': its shape is " +
                                shape_string(comparison.got_shape) + ", expected " + shape_string(comparison.expected_shape) + ".";
        } else {
            std::string index;
            for (std::size_t i = 0; i < comparison.worst.size(); ++i) index += (i ? ", " : "") + std::to_string(comparison.worst[i]);
            diagnosis.message = "No classic mistake matches. The first step that differs is '" + step.name +
                                "', first at [" + index + "]: expected " + std::to_string(comparison.worst_expected) +
                                ", got " + std::to_string(comparison.worst_got) + ".";
        }
        return diagnosis;
    }
    return diagnosis;
}

ExerciseChecker::ExerciseChecker(int lesson, std::string title)
    : lesson_(lesson), title_(std::move(title)), terminal_(tutor::detect_terminal()) {
    std::cout << paint(terminal_, tutor::Style::heading, "Exercise " + std::to_string(lesson_) + " · " + title_) << "\n";
}

void ExerciseChecker::run_case(const std::string& name, const std::function<Steps()>& compute,
                               const std::function<Mistakes()>& mistakes, tutor::Tolerance tolerance) {
    std::cout << "\n  " << paint(terminal_, tutor::Style::bold, name) << "\n";
    Steps steps;
    try {
        steps = compute();
    } catch (const NotImplementedYet& e) {
        ++failed_;
        if (!not_implemented_reported_) std::cout << "  " << paint(terminal_, tutor::Style::bad, "✗") << " " << e.what() << "\n";
        else std::cout << "  " << paint(terminal_, tutor::Style::bad, "✗") << " not implemented yet\n";
        not_implemented_reported_ = true;
        return;
    } catch (const std::exception& e) {
        ++failed_;
        std::cout << "  " << paint(terminal_, tutor::Style::bad, "✗") << " your code threw an exception: " << e.what() << "\n";
        return;
    }
    bool all_passed = true;
    for (const auto& step : steps) {
        const auto comparison = compare_step(step, tolerance);
        if (comparison.passed) {
            std::cout << "  " << paint(terminal_, tutor::Style::good, "✓") << " " << step.name << ": " << comparison.summary() << "\n";
            continue;
        }
        all_passed = false;
        std::cout << "  " << paint(terminal_, tutor::Style::bad, "✗") << " " << step.name << ": " << comparison.summary() << "\n"
                  << "    expected:\n" << indent(tutor::format_like_pytorch(step.expected), "      ") << "\n"
                  << "    got:\n" << indent(tutor::format_like_pytorch(step.got), "      ") << "\n";
    }
    if (all_passed) {
        ++passed_;
        return;
    }
    ++failed_;
    const Diagnosis diagnosis = diagnose(steps, mistakes ? mistakes() : Mistakes{}, tolerance);
    if (!diagnosis.message.empty()) std::cout << "  → " << paint(terminal_, tutor::Style::accent, diagnosis.message) << "\n";
}

int ExerciseChecker::finish() {
    std::cout << "\n" << paint(terminal_, failed_ == 0 ? tutor::Style::good : tutor::Style::bad,
                               std::to_string(passed_) + " passed, " + std::to_string(failed_) + " failed")
              << "\n";
    return failed_ == 0 ? 0 : 1;
}

}  // namespace attn::exercises
