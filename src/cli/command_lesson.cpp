// `attn lesson N`: the literate walkthrough — each step's prose, the tensors it computes as
// PyTorch prints them, and a check of each against the document.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "tutor/exercises.hpp"
#include "tutor/lesson_report.hpp"
#include "tutor/lessons.hpp"
#include "tutor/terminal.hpp"

namespace attn::cli {

namespace {

std::string rule(const tutor::Terminal& terminal, std::string title) {
    // Headings are painted as a whole: drop Markdown's code backticks rather than nest styles.
    title.erase(std::remove(title.begin(), title.end(), '`'), title.end());
    const std::size_t used = tutor::visible_width(title) + 4;
    const std::size_t fill = terminal.width > used ? terminal.width - used : 2;
    std::string line;
    for (std::size_t i = 0; i < fill; ++i) line += "─";
    return tutor::paint(terminal, tutor::Style::heading, "── " + title + " " + line) + "\n";
}

}  // namespace

int run_lesson(const GlobalOptions& global, const LessonOptions& options) {
    tutor::Terminal terminal = tutor::detect_terminal();
    if (options.no_pause) terminal.interactive = false;
    const auto lessons = tutor::list_lessons(tutor::lessons_directory(global.lessons_dir));
    const tutor::LessonInfo& lesson = tutor::find_lesson(lessons, options.lesson);
    // Everything is computed and checked before the first line is printed: a malformed document
    // stops here with its file and line, not halfway through the class.
    const tutor::LessonRun run = tutor::run_lesson(lesson);

    std::size_t passed = 0, failed = 0;
    const auto& sections = run.document.sections;
    for (std::size_t s = 0; s < sections.size(); ++s) {
        const tutor::LessonSection& section = sections[s];
        std::cout << "\n" << rule(terminal, section.heading) << "\n";
        for (const auto& segment : section.segments) {
            if (segment.block < 0) {
                std::cout << tutor::render_markdown(segment.prose, terminal) << "\n";
                continue;
            }
            const tutor::LessonBlock& block = run.document.blocks[static_cast<std::size_t>(segment.block)];
            if (block.kind == tutor::LessonBlock::Kind::input) {
                std::cout << tutor::describe_tensor(terminal, "input ", block, block.literal.tensor) << "\n";
                if (block.heatmap) std::cout << tutor::describe_heatmap(terminal, block, block.literal.tensor) << "\n";
                continue;
            }
            const tutor::CheckResult* check = run.check_for_block(segment.block);
            std::cout << tutor::describe_tensor(terminal, "", block, check->got);
            if (block.heatmap) std::cout << "\n" << tutor::describe_heatmap(terminal, block, check->got) << "\n";
            std::cout << tutor::describe_check(terminal, run, *check) << "\n";
            (check->comparison.passed ? passed : failed) += 1;
        }
        if (s + 1 < sections.size() && !tutor::wait_for_next_step(terminal)) {
            std::cout << "\nStopped before the end of the lesson: " << tutor::describe_totals(terminal, passed, failed);
            return failed == 0 ? exit_success : exit_check_failed;
        }
    }
    std::cout << rule(terminal, "Lesson " + std::to_string(lesson.number) + " checked") << "  "
              << tutor::describe_totals(terminal, passed, failed);
    std::cout << "\n  Every number above was computed by the attn library and compared with the value written in\n"
                 "  " << run.document.path << ".\n";
    // The next step for a student: writing the lesson's function themselves.
    for (const auto& exercise : tutor::list_exercises(tutor::source_directory())) {
        if (exercise.number != lesson.number) continue;
        std::cout << "\n  " << paint(terminal, tutor::Style::accent, "Your turn:") << " implement this lesson yourself in "
                  << exercise.student_path << "\n  and check it with `attn exercise " << lesson.number << "`.\n";
    }
    return failed == 0 ? exit_success : exit_check_failed;
}

}  // namespace attn::cli
