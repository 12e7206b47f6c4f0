// `attn list`: the lessons, numbered, with their titles.
#include <iostream>

#include "cli/commands.hpp"
#include "tutor/language.hpp"
#include "tutor/lessons.hpp"
#include "tutor/terminal.hpp"

namespace attn::cli {

int run_list(const GlobalOptions& global, const ListOptions&) {
    const auto terminal = tutor::detect_terminal();
    const auto lessons = tutor::list_lessons(tutor::lessons_directory(global.lessons_dir));
    std::size_t slug_width = 0;
    for (const auto& lesson : lessons) slug_width = std::max(slug_width, lesson.slug.size());
    for (const auto& english : lessons) {
        const tutor::LessonInfo lesson = lesson_in_language(english);
        std::string number = std::to_string(lesson.number);
        std::cout << paint(terminal, tutor::Style::accent, std::string(2 - std::min<std::size_t>(2, number.size()), ' ') + number)
                  << "  " << lesson.slug << std::string(slug_width - lesson.slug.size() + 2, ' ') << lesson.title
                  << (lesson.program ? "" : "  " + tutor::tr("(no program in this build)")) << "\n";
    }
    std::cout << "\n" << tutor::tr("Start with: attn lesson 1") << "\n";
    return exit_success;
}

}  // namespace attn::cli
