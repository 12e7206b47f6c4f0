// cli/commands.hpp — the tutor's commands: per command an options struct and a run function.
//
// The CLI11 set-up of each command lives in main.cpp, the only file that compiles CLI11's header;
// the run functions here know nothing of the parser. Each returns the exit code:
//   0 success · 1 a check failed · 2 bad input (the message says what and where)
#pragma once

#include <string>
#include <vector>

namespace attn::cli {

/// Exit codes, as documented in the README.
enum ExitCode { exit_success = 0, exit_check_failed = 1, exit_bad_input = 2, exit_internal_error = 3 };

struct GlobalOptions {
    std::string lessons_dir;  // empty: $ATTN_LESSONS_DIR, else the source tree's lessons/
};

struct ListOptions {};
int run_list(const GlobalOptions& global, const ListOptions& options);

struct LessonOptions {
    std::string lesson;  // number or slug
    bool no_pause = false;
};
int run_lesson(const GlobalOptions& global, const LessonOptions& options);

struct CheckOptions {
    std::vector<std::string> lessons;  // numbers or slugs; empty: all
};
int run_check(const GlobalOptions& global, const CheckOptions& options);

struct ComputeOptions {
    std::string module;
    std::string in_dir;
    std::string out_dir;
};
int run_compute(const GlobalOptions& global, const ComputeOptions& options);

struct ExerciseOptions {
    std::string exercise;  // number or slug
    bool watch = false;
    bool reset = false;
};
int run_exercise(const GlobalOptions& global, const ExerciseOptions& options);

struct ProgressOptions {};
int run_progress(const GlobalOptions& global, const ProgressOptions& options);

/// The text that `attn compute --help` adds after the options: every module and its tensors.
std::string describe_compute_modules();

}  // namespace attn::cli
