// `attn check [N...]`: every expected value of the named lessons, one line each, then the totals.
// Every line fits the width (the terminal's, or --width / COLUMNS off a terminal).
#include <iostream>

#include "cli/commands.hpp"
#include "tutor/language.hpp"
#include "tutor/lesson/lesson_report.hpp"
#include "tutor/lesson/lessons.hpp"
#include "tutor/terminal/terminal.hpp"
#include "tutor/terminal/text_layout.hpp"

namespace attn::cli {

int run_check(const GlobalOptions& global, const CheckOptions& options) {
    tutor::TerminalRequest request;
    request.width = options.width;
    request.light = options.light;
    const auto terminal = tutor::detect_terminal(request);
    const auto lessons = tutor::list_lessons(tutor::lessons_directory(global.lessons_dir));
    std::vector<const tutor::LessonInfo*> chosen;
    if (options.lessons.empty()) {
        for (const auto& lesson : lessons) chosen.push_back(&lesson);
    } else {
        // Resolve every name first, so that a typo is reported before any output.
        for (const auto& name : options.lessons) chosen.push_back(&tutor::find_lesson(lessons, name));
    }
    std::size_t passed = 0, failed = 0;
    for (const auto* lesson : chosen) {
        const tutor::LessonRun run = tutor::run_lesson(lesson_in_language(*lesson));
        const std::string heading = tutor::trf("lesson {1} · {2}", {std::to_string(lesson->number), lesson->slug});
        std::cout << paint(terminal, tutor::Style::heading, tutor::truncate_to_width(heading, terminal.width)) << "\n";
        for (const auto& check : run.checks) {
            std::cout << tutor::describe_check(terminal, run, check);
            (check.comparison.passed ? passed : failed) += 1;
        }
    }
    std::cout << tutor::describe_totals(terminal, passed, failed);
    return failed == 0 ? exit_success : exit_check_failed;
}

}  // namespace attn::cli
