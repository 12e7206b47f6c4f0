// `attn exercise N [--watch] [--reset] [--hint] [--file F] [--time-limit S]` and `attn progress`:
// the student's implementation of a lesson, built with the project's own CMake build, run in a
// sandbox, judged case by case (src/exercises), and helped along with hints that follow the
// failure.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "cli/commands.hpp"
#include "exercises/exercise_run.hpp"
#include "exercises/report.hpp"
#include "exercises/student_build.hpp"
#include "tutor/exercises.hpp"
#include "tutor/language.hpp"
#include "tutor/document/markdown.hpp"
#include "tutor/terminal/terminal.hpp"

#ifndef ATTN_BUILD_DIR
#define ATTN_BUILD_DIR "build"
#endif
#ifndef ATTN_EXERCISE_ASAN
#define ATTN_EXERCISE_ASAN 0
#endif

namespace attn::cli {

namespace fs = std::filesystem;

namespace {

using exercises::CaseOutcome;

/// What one build-and-check round found, for the progress file and the hints.
struct Round {
    bool passed = false;
    bool internal_error = false;
    bool untouched_stub = false;  // every case said "not implemented yet"
    std::string numbers;          // fingerprint of the student's numbers; "" when no case produced any
    std::string failing_step;     // the first step that differs
};

// FNV-1a over everything the student's program reported: a changed file that computes the same
// numbers has the same fingerprint.
std::string fingerprint(const exercises::RunReport& run) {
    std::uint64_t hash = 1469598103934665603ull;
    auto mix = [&](const void* data, std::size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
    };
    bool any = false;
    for (const auto& outcome : run.outcomes) {
        const int status = static_cast<int>(outcome.status);
        mix(&status, sizeof status);
        for (const auto& [name, tensor] : outcome.got) {
            any = true;
            mix(name.data(), name.size());
            for (std::size_t size : tensor.shape()) mix(&size, sizeof size);
            mix(tensor.data(), tensor.size() * sizeof(double));
        }
    }
    if (!any) return "";
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

Round check_once(const exercises::Exercise& exercise, const std::string& student_file, const ExerciseOptions& options,
                 const tutor::Terminal& terminal) {
    Round round;
    std::string shown = student_file;
    const std::string source = fs::path(tutor::source_directory()).lexically_normal().string() + "/";
    if (shown.rfind(source, 0) == 0) shown = shown.substr(source.size());
    std::cout << paint(terminal, tutor::Style::dim, tutor::trf("building {1} …", {printable_text(shown)})) << std::endl;
    const exercises::StudentBuild build =
        exercises::build_student_program({ATTN_BUILD_DIR, tutor::source_directory()}, exercise, student_file);
    if (build.status == exercises::StudentBuild::Status::compile_error) {
        std::cout << paint(terminal, tutor::Style::bad, "✗ " + tutor::tr("your code does not compile:")) << "\n\n"
                  << exercises::printable(build.messages) << "\n";
        return round;
    }
    if (!build.warnings.empty()) {
        std::cout << paint(terminal, tutor::Style::dim, tutor::tr("The compiler warns about your file:")) << "\n"
                  << exercises::printable(build.warnings) << "\n";
    }
    if (build.status == exercises::StudentBuild::Status::refused) {
        std::cout << paint(terminal, tutor::Style::bad, "✗ " + build.messages) << "\n";
        return round;
    }

    exercises::Limits limits;
    limits.seconds_per_case = options.time_limit;
    limits.address_sanitizer = ATTN_EXERCISE_ASAN != 0;
    exercises::print_heading(std::cout, terminal, exercise);
    std::cout.flush();  // the heading marks the start of the run (tests time the run from it)
    bool not_implemented_shown = false, failure_shown = false;
    const exercises::RunReport run = exercises::run_cases(exercise, build.program, limits, [&](std::size_t i, const CaseOutcome& o) {
        // A screen or two: the first failing case in full, every other case one line (--verbose: all in full).
        const bool failing = o.status != CaseOutcome::Status::passed && o.status != CaseOutcome::Status::not_run;
        const bool first_failure = failing && !failure_shown;
        failure_shown = failure_shown || failing;
        exercises::print_case(std::cout, terminal, exercise.cases[i], o, not_implemented_shown,
                              options.verbose ? exercises::CaseDetail::everything
                              : first_failure ? exercises::CaseDetail::full
                                              : exercises::CaseDetail::line);
    });
    const exercises::Diagnosis diagnosis = exercises::diagnose(exercise, run.outcomes);
    exercises::print_ending(std::cout, terminal, run, diagnosis);
    round.passed = run.passed();
    round.internal_error = run.internal_error;
    round.untouched_stub = run.stopped.empty() && run.count(CaseOutcome::Status::not_implemented) == run.outcomes.size();
    round.numbers = fingerprint(run);
    round.failing_step = diagnosis.failing_step;
    return round;
}

void print_hint(const std::vector<tutor::Hint>& hints, int number, const std::string& note, const tutor::Terminal& terminal) {
    if (number <= 0) return;
    const tutor::Hint& hint = hints[static_cast<std::size_t>(number - 1)];
    std::string about;
    for (const auto& step : hint.steps) about += (about.empty() ? "" : ", ") + step;
    const std::string title = tutor::trf("Hint {1} of {2}", {std::to_string(number), std::to_string(hints.size())}) +
                              (about.empty() ? "" : " (" + about + ")") + note;
    std::cout << "\n" << paint(terminal, tutor::Style::heading, title) << "\n" << tutor::render_markdown(hint.text, terminal) << "\n";
}

void record(const tutor::ExerciseInfo& info, const Round& round, const tutor::Terminal& terminal) {
    const std::string path = tutor::progress_path();
    tutor::Progress progress = tutor::read_progress(path);
    tutor::ExerciseProgress& entry = progress[info.number];
    entry.passed = round.passed;
    if (round.passed) {
        std::cout << "\n" << paint(terminal, tutor::Style::good, tutor::trf("Exercise {1} passes.", {std::to_string(info.number)}))
                  << " " << tutor::tr("`attn progress` shows where you are.") << "\n";
    } else {
        const auto hints = tutor::read_hints(info.hints_path);
        if (round.untouched_stub && !hints.empty()) {
            // The first hint, recorded as shown: the next one (a failure, --hint) is hint 2.
            const bool again = entry.hints_shown.count(1) != 0;
            entry.hints_shown.insert(1);
            print_hint(hints, 1, again ? " — " + tutor::tr("again") : "", terminal);
        } else if (!round.numbers.empty() && !round.failing_step.empty()) {  // wrong numbers, not a crash or a throw
            bool revealed = false;
            const bool unchanged = round.numbers == entry.last_numbers;
            const int number = tutor::hint_after_failure(hints, entry, round.failing_step, round.numbers, revealed);
            print_hint(hints, number, unchanged ? " — " + tutor::tr("again: your numbers have not changed") : revealed ? "" : " — " + tutor::tr("again"), terminal);
            if (number == 0 && unchanged) {
                std::cout << "\n"
                          << tutor::trf("Your numbers are the same as last time. `attn exercise {1} --hint` shows the next hint.",
                                        {std::to_string(info.number)})
                          << "\n";
            }
        }
    }
    tutor::write_progress(path, progress);
}

std::string student_file_of(const tutor::ExerciseInfo& info, const ExerciseOptions& options) {
    if (options.file.empty()) {
        if (tutor::ensure_student_file(info)) {
            std::cout << tutor::trf("Created {1} from the stub: that is the file to edit.", {printable_text(info.student_path)}) << "\n";
        }
        return fs::absolute(info.student_path).lexically_normal().string();
    }
    std::error_code error;
    if (!fs::is_regular_file(options.file, error)) throw InputError(tutor::trf("--file {1}: not a regular file", {options.file}));
    return fs::absolute(options.file).lexically_normal().string();
}

}  // namespace

int run_exercise(const GlobalOptions&, const ExerciseOptions& options) {
    const tutor::Terminal terminal = tutor::detect_terminal();
    const auto all = tutor::list_exercises(tutor::source_directory());
    tutor::ExerciseInfo info = tutor::find_exercise(all, options.exercise);
    // The stub's comments and the hints in the chosen language (stub.es.cpp, hints.es.md) when
    // they exist; the code is the same in every edition.
    info.stub_path = tutor::localized_file(info.stub_path);
    info.hints_path = tutor::localized_file(info.hints_path);
    if (options.reset) {
        const std::string backup = tutor::reset_exercise(info);
        if (!backup.empty()) std::cout << tutor::trf("Your file was saved as {1}", {printable_text(backup)}) << "\n";
        std::cout << tutor::trf("Restored the stub: {1}", {printable_text(info.student_path)}) << "\n";
        tutor::Progress progress = tutor::read_progress(tutor::progress_path());
        progress[info.number] = tutor::ExerciseProgress{};
        tutor::write_progress(tutor::progress_path(), progress);
        return exit_success;
    }
    if (options.hint) {
        const auto hints = tutor::read_hints(info.hints_path);
        tutor::Progress progress = tutor::read_progress(tutor::progress_path());
        const int number = tutor::next_hint_on_demand(hints, progress[info.number]);
        if (number == 0) std::cout << tutor::trf("Exercise {1} has no hints.", {std::to_string(info.number)}) << "\n";
        print_hint(hints, number, "", terminal);
        tutor::write_progress(tutor::progress_path(), progress);
        return exit_success;
    }
    const std::string student_file = student_file_of(info, options);
    if (!fs::is_regular_file(student_file)) {
        throw InputError(tutor::trf("{1} is a folder or another special file, not your exercise's source file: move it away, "
                                    "and `attn exercise {2}` creates the file from the stub",
                                    {student_file, std::to_string(info.number)}));
    }
    const exercises::Exercise exercise = exercises::exercise_definition(info.number, tutor::source_directory());
    Round round = check_once(exercise, student_file, options, terminal);
    record(info, round, terminal);
    if (round.internal_error) return exit_internal_error;
    if (!options.watch) return round.passed ? exit_success : exit_check_failed;

    // --watch: check again whenever the student's file changes, until Ctrl-C.
    std::error_code error;
    auto last = fs::last_write_time(student_file, error);
    std::cout << paint(terminal, tutor::Style::dim, tutor::trf("watching {1} — Ctrl-C to stop", {printable_text(student_file)})) << std::endl;
    while (true) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const auto now = fs::last_write_time(student_file, error);
        if (error || now == last) continue;
        last = now;
        std::cout << "\n" << paint(terminal, tutor::Style::heading, "── " + tutor::tr("changed: checking again") + " ──") << "\n";
        round = check_once(exercise, student_file, options, terminal);
        record(info, round, terminal);
        std::cout << paint(terminal, tutor::Style::dim, tutor::trf("watching {1} — Ctrl-C to stop", {printable_text(student_file)})) << std::endl;
    }
}

int run_progress(const GlobalOptions&, const ProgressOptions&) {
    const tutor::Terminal terminal = tutor::detect_terminal();
    const auto exercises = tutor::list_exercises(tutor::source_directory());
    const tutor::Progress progress = tutor::read_progress(tutor::progress_path());
    std::size_t passed = 0;
    for (const auto& exercise : exercises) {
        const auto found = progress.find(exercise.number);
        const bool done = found != progress.end() && found->second.passed;
        const bool started = found != progress.end();
        passed += done;
        std::cout << "  " << (done ? paint(terminal, tutor::Style::good, "✓") : started ? paint(terminal, tutor::Style::bad, "✗") : "·")
                  << " " << tutor::trf("exercise {1}", {std::to_string(exercise.number)}) << "  " << printable_text(exercise.folder.substr(3)) << "  "
                  << (done ? tutor::tr("passes")
                           : started ? tutor::trn("not passing yet ({1} hint seen)", "not passing yet ({1} hints seen)",
                                                  found->second.hints_shown.size(), {std::to_string(found->second.hints_shown.size())})
                                     : tutor::tr("not started"))
                  << "\n";
    }
    std::cout << tutor::trf("{1} of {2} exercises pass", {std::to_string(passed), std::to_string(exercises.size())}) << "\n";
    return exit_success;
}

}  // namespace attn::cli
