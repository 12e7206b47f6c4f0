// `attn exercise N [--watch] [--reset]` and `attn progress`: the student's implementation of a
// lesson, built with the project's own CMake build, checked, and helped along with hints.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <thread>

#include "attn/error.hpp"
#include "cli/commands.hpp"
#include "tutor/exercises.hpp"
#include "tutor/markdown.hpp"
#include "tutor/terminal.hpp"

#ifndef ATTN_BUILD_DIR
#define ATTN_BUILD_DIR "build"
#endif

namespace attn::cli {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Runs a shell command, returning its exit status and everything it printed.
int capture(const std::string& command, std::string& output) {
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) throw InputError("cannot run: " + command);
    char buffer[4096];
    while (std::size_t read = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, read);
    const int status = ::pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The compiler's errors about the student's file, with the source line and caret gcc prints
// under each, and paths relative to the source tree; the rest of the build log is noise here.
std::string compiler_errors(const std::string& log, const std::string& source) {
    std::istringstream lines(log);
    std::string out, line;
    int context = 0, errors = 0;
    while (std::getline(lines, line)) {
        if (line.rfind(source + "/", 0) == 0) line = line.substr(source.size() + 1);
        const bool error = line.find(": error: ") != std::string::npos || line.find(": fatal error: ") != std::string::npos;
        if (error && ++errors <= 6) {
            out += line + "\n";
            context = 2;
        } else if (context > 0 && !error) {
            out += line + "\n";
            --context;
        } else {
            context = 0;
        }
    }
    if (errors > 6) out += "… and " + std::to_string(errors - 6) + " more errors\n";
    return out;
}

// One build-and-check round; returns true when every check passed.
bool check_once(const tutor::ExerciseInfo& exercise, const tutor::Terminal& terminal) {
    const std::string source = tutor::source_directory();
    std::cout << paint(terminal, tutor::Style::dim, "building " + exercise.student_path + " …") << std::endl;
    std::string log;
    const int built = capture("cmake --build " + quoted(ATTN_BUILD_DIR) + " --target " + exercise.target, log);
    if (built != 0) {
        std::string errors = compiler_errors(log, source);
        std::cout << paint(terminal, tutor::Style::bad, "✗ your code does not compile:") << "\n\n"
                  << (errors.empty() ? log : errors) << "\n";
        return false;
    }
    const std::string program = (fs::path(ATTN_BUILD_DIR) / exercise.target).string();
    std::cout.flush();
    const int status = std::system(quoted(program).c_str());
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void record(const tutor::ExerciseInfo& exercise, bool passed, const tutor::Terminal& terminal) {
    const std::string path = tutor::progress_path();
    tutor::Progress progress = tutor::read_progress(path);
    tutor::ExerciseProgress& entry = progress[exercise.number];
    entry.passed = passed;
    if (passed) {
        std::cout << "\n" << paint(terminal, tutor::Style::good, "Exercise " + std::to_string(exercise.number) + " passes.")
                  << " `attn progress` shows where you are.\n";
    } else {
        const auto hints = tutor::read_hints(exercise.hints_path);
        if (!hints.empty()) {
            entry.hints_shown = std::min<int>(entry.hints_shown + 1, static_cast<int>(hints.size()));
            const std::string title = "Hint " + std::to_string(entry.hints_shown) + " of " + std::to_string(hints.size()) +
                                      (entry.hints_shown == static_cast<int>(hints.size()) ? " (the last one)" : "");
            std::cout << "\n" << paint(terminal, tutor::Style::heading, title) << "\n"
                      << tutor::render_markdown(hints[static_cast<std::size_t>(entry.hints_shown - 1)], terminal) << "\n";
        }
    }
    tutor::write_progress(path, progress);
}

}  // namespace

int run_exercise(const GlobalOptions&, const ExerciseOptions& options) {
    const tutor::Terminal terminal = tutor::detect_terminal();
    const auto exercises = tutor::list_exercises(tutor::source_directory());
    const tutor::ExerciseInfo& exercise = tutor::find_exercise(exercises, options.exercise);
    if (options.reset) {
        const std::string backup = tutor::reset_exercise(exercise);
        if (!backup.empty()) std::cout << "Your file was saved as " << backup << "\n";
        std::cout << "Restored the stub: " << exercise.student_path << "\n";
        tutor::Progress progress = tutor::read_progress(tutor::progress_path());
        progress[exercise.number] = tutor::ExerciseProgress{};
        tutor::write_progress(tutor::progress_path(), progress);
        return exit_success;
    }
    if (tutor::ensure_student_file(exercise)) {
        std::cout << "Created " << exercise.student_path << " from the stub: that is the file to edit.\n";
    }
    bool passed = check_once(exercise, terminal);
    record(exercise, passed, terminal);
    if (!options.watch) return passed ? exit_success : exit_check_failed;

    // --watch: check again whenever the student's file changes, until Ctrl-C.
    std::error_code error;
    auto last = fs::last_write_time(exercise.student_path, error);
    std::cout << paint(terminal, tutor::Style::dim, "watching " + exercise.student_path + " — Ctrl-C to stop") << std::endl;
    while (true) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        const auto now = fs::last_write_time(exercise.student_path, error);
        if (error || now == last) continue;
        last = now;
        std::cout << "\n" << paint(terminal, tutor::Style::heading, "── changed: checking again ──") << "\n";
        passed = check_once(exercise, terminal);
        record(exercise, passed, terminal);
        std::cout << paint(terminal, tutor::Style::dim, "watching " + exercise.student_path + " — Ctrl-C to stop") << std::endl;
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
                  << " exercise " << exercise.number << "  " << exercise.folder.substr(3)
                  << (done ? "  passes" : started ? "  not passing yet (" + std::to_string(found->second.hints_shown) + " hints seen)" : "  not started")
                  << "\n";
    }
    std::cout << passed << " of " << exercises.size() << " exercises pass\n";
    return exit_success;
}

}  // namespace attn::cli
