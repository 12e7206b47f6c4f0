// `attn list`: the lessons, numbered, with their titles.
#include <iostream>

#include "cli/commands.hpp"
#include "tutor/language.hpp"
#include "tutor/lesson/lessons.hpp"
#include "tutor/terminal/terminal.hpp"
#include "tutor/terminal/text_layout.hpp"

namespace attn::cli {

int run_list(const GlobalOptions& global, const ListOptions&) {
    const auto terminal = tutor::detect_terminal();
    const auto lessons = tutor::list_lessons(tutor::lessons_directory(global.lessons_dir));
    std::size_t slug_width = 0;
    for (const auto& lesson : lessons) slug_width = std::max(slug_width, tutor::visible_width(lesson.slug));
    // " 1  dot-product  Title …": a title too long for the line goes on under itself (a hanging
    // indent); on a narrow terminal the slug column is left out so that the titles keep their room.
    const bool slugs = 4 + slug_width + 2 + 30 <= terminal.width;
    const std::string indent(4 + (slugs ? slug_width + 2 : 0), ' ');
    for (const auto& english : lessons) {
        const tutor::LessonInfo lesson = lesson_in_language(english);
        const std::string number = std::to_string(lesson.number);
        const std::string first = paint(terminal, tutor::Style::accent, std::string(2 - std::min<std::size_t>(2, number.size()), ' ') + number) +
                                  "  " + (slugs ? lesson.slug + std::string(slug_width - tutor::visible_width(lesson.slug) + 2, ' ') : "");
        std::cout << tutor::wrap_words(lesson.title + (lesson.program ? "" : "  " + tutor::tr("(no program in this build)")),
                                       terminal.width, first, indent);
    }
    // The first lesson found, whatever its number: list_lessons gives them in order.
    std::cout << "\n" << tutor::trf("Start with: attn lesson {1}", {std::to_string(lessons.front().number)}) << "\n";
    return exit_success;
}

}  // namespace attn::cli
