// `attn lesson N`: the literate walkthrough — each step's prose, the tensors it computes as
// PyTorch prints them, and a check of each against the document. On a terminal it is paged for a
// projector (tutor/terminal/pager.hpp); `--screens` prints those screens; otherwise, or with --no-pause,
// it is one continuous text.
#include <filesystem>
#include <iostream>

#include "attn/error.hpp"
#include "cli/commands.hpp"
#include "tutor/exercises.hpp"
#include "tutor/language.hpp"
#include "tutor/lesson/lesson_report.hpp"
#include "tutor/lesson/lessons.hpp"
#include "tutor/terminal/pager.hpp"
#include "tutor/terminal/screens.hpp"
#include "tutor/terminal/terminal.hpp"
#include "tutor/terminal/text_layout.hpp"
#include "tutor/lesson/walkthrough.hpp"

namespace attn::cli {

namespace {

tutor::TensorView tensor_view(const std::string& show) {
    if (show == "tensor") return tutor::TensorView::tensor;
    if (show == "both") return tutor::TensorView::both;
    return tutor::TensorView::heatmap;
}

std::size_t first_step(const tutor::Walkthrough& walkthrough, const LessonOptions& options) {
    if (!options.step) return 0;
    if (const auto step = tutor::find_step(walkthrough, *options.step)) return *step;
    throw InputError(tutor::trf("--step {1}: lesson {2} has steps {3} to {4}",
                                {std::to_string(*options.step), std::to_string(walkthrough.lesson_number),
                                 std::to_string(walkthrough.steps.front().number), std::to_string(walkthrough.steps.back().number)}));
}

// A command in `backquotes` kept on one line ("`attn exercise 1`", never "`attn exercise" / "1`").
std::string commands_whole(std::string text) {
    bool inside = false;
    for (char& c : text) {
        if (c == '`') inside = !inside;
        else if (inside && c == ' ') c = tutor::unbreakable_space;
    }
    return text;
}

// The totals and the student's next move, after the last step. Paths are named from the working
// folder when they are inside it, else from the lessons folder's parent (the document) or the
// repository (the exercise): short, and never the build's absolute source path.
std::string closing(const tutor::Terminal& terminal, const tutor::Walkthrough& walkthrough, const tutor::LessonRun& run,
                    const std::string& lessons_folder) {
    namespace fs = std::filesystem;
    const std::size_t width = terminal.width;
    const std::string lessons_parent = fs::absolute(lessons_folder).lexically_normal().parent_path().string();
    std::string out = tutor::step_rule(terminal, tutor::trf("Lesson {1} checked", {std::to_string(walkthrough.lesson_number)})) +
                      "  " + tutor::describe_totals(terminal, walkthrough.passed, walkthrough.failed);
    out += tutor::wrap_words(tutor::trf("Every number above was computed by the attn library and compared with the value written in {1}.",
                                        {tutor::display_path(run.document.path, width - 4, lessons_parent)}),
                             width, "  ", "  ");
    const std::string repository = tutor::source_directory();
    for (const auto& exercise : tutor::list_exercises(repository)) {
        if (exercise.number != walkthrough.lesson_number) continue;
        out += "\n" + tutor::wrap_words(paint(terminal, tutor::Style::accent, tutor::tr("Your turn:")) + " " +
                                            commands_whole(tutor::trf("implement this lesson yourself in {1} and check it with `attn exercise {2}`.",
                                                                      {tutor::display_path(exercise.student_path, width - 4, repository),
                                                                       std::to_string(walkthrough.lesson_number)})),
                                        width, "  ", "  ");
    }
    return out;
}

// Where the pager stopped, and the totals, wrapped to the width like every other line.
std::string stopped(const tutor::Terminal& terminal, const tutor::Walkthrough& walkthrough, const std::string& where) {
    std::string totals = tutor::describe_totals(terminal, walkthrough.passed, walkthrough.failed);
    if (!totals.empty() && totals.back() == '\n') totals.pop_back();
    return tutor::wrap_words(where + totals, terminal.width, "", "");
}

}  // namespace

int run_lesson(const GlobalOptions& global, const LessonOptions& options) {
    tutor::TerminalRequest request;
    request.width = options.width;
    request.height = options.height;
    request.light = options.light;
    request.may_query_background = !options.no_pause && !options.screens;
    tutor::Terminal terminal = tutor::detect_terminal(request);
    if (options.no_pause || options.screens) terminal.interactive = false;
    const std::string lessons_folder = tutor::lessons_directory(global.lessons_dir);
    const auto lessons = tutor::list_lessons(lessons_folder);
    const tutor::LessonInfo lesson = lesson_in_language(tutor::find_lesson(lessons, options.lesson));
    // Everything is computed and checked before the first line is printed: a malformed document
    // stops here with its file and line, not halfway through the class.
    const tutor::LessonRun run = tutor::run_lesson(lesson);
    const tutor::TensorView view = tensor_view(options.show);
    const tutor::InputView inputs = options.all_inputs ? tutor::InputView::all : tutor::InputView::new_ones;
    const tutor::WalkthroughLayout layout = [&run, view, inputs](const tutor::Terminal& for_terminal) {
        return tutor::build_walkthrough(run, for_terminal, view, inputs);
    };
    const tutor::Walkthrough walkthrough = layout(terminal);
    const std::size_t start = first_step(walkthrough, options);
    const int exit_code = walkthrough.failed == 0 ? exit_success : exit_check_failed;

    if (options.screens) {
        // The screens the pager would show, each followed by a line holding a form feed.
        const auto screens = tutor::paginate(walkthrough, terminal);
        for (std::size_t i = tutor::first_screen_of_step(screens, start); i < screens.size(); ++i) {
            std::cout << tutor::draw_screen(walkthrough, screens, i, terminal, "") << "\n\f\n";
        }
        return exit_code;
    }
    if (!terminal.interactive) {
        std::cout << tutor::continuous_text(walkthrough, terminal, start) << closing(terminal, walkthrough, run, lessons_folder);
        return exit_code;
    }
    const tutor::PagerResult result = tutor::run_pager(layout, request, terminal, start);
    const std::string step = std::to_string(walkthrough.steps[result.step].number),
                      lesson_number = std::to_string(walkthrough.lesson_number);
    switch (result.outcome) {
        case tutor::PagerOutcome::finished: std::cout << closing(terminal, walkthrough, run, lessons_folder); break;
        case tutor::PagerOutcome::quit:
            std::cout << stopped(terminal, walkthrough,
                                 tutor::trf("Stopped at step {1} of lesson {2} (q). The lesson's checks: ", {step, lesson_number}));
            break;
        case tutor::PagerOutcome::end_of_input:
            std::cout << stopped(terminal, walkthrough,
                                 tutor::trf("End of input (Ctrl-D): stopped at step {1} of lesson {2}. The lesson's checks: ",
                                            {step, lesson_number}));
            break;
    }
    return exit_code;
}

}  // namespace attn::cli
