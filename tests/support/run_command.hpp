// tests/support/run_command.hpp — run the `attn` program as a user would, capturing everything.
//
//   auto r = attn::testing::run_attn({"check", "1"});
//   CHECK(r.exit_code == 0);
//   CHECK_THAT(r.out, Catch::Contains("passed"));
#pragma once

#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace attn::testing {

struct CommandResult {
    int exit_code = -1;   // the program's exit status; 128 + N when killed by signal N
    std::string out;      // standard output
    std::string err;      // standard error
};

/// Starts `program` with `arguments` without waiting for it: standard input from /dev/null,
/// standard output and error appended to the files named (or /dev/null), extra environment set.
pid_t start_command(const std::string& program, const std::vector<std::string>& arguments,
                    const std::map<std::string, std::string>& environment = {},
                    const std::string& out_path = "/dev/null", const std::string& err_path = "/dev/null");

/// Runs `program` with `arguments`, standard input from /dev/null, extra environment variables set.
/// With `timeout_seconds` > 0 a program still running then is killed (exit code 128 + 9): a test
/// of a hang fails instead of hanging the suite.
CommandResult run_command(const std::string& program, const std::vector<std::string>& arguments,
                          const std::map<std::string, std::string>& environment = {}, int timeout_seconds = 0);

/// Runs the built `attn` with NO_COLOR set (plain text to match against).
CommandResult run_attn(const std::vector<std::string>& arguments,
                       const std::map<std::string, std::string>& environment = {}, int timeout_seconds = 0);

/// The program ended by itself: not killed by a signal (an abort, a crash) and no internal error
/// (exit 3).
bool no_abort(const CommandResult& result);

/// The PID of a process that has already exited (a child started and reaped here): what a
/// killed run's leftover temporaries carry in their names.
pid_t finished_pid();

/// The path of the built `attn`.
std::string attn_program();

/// How many times `what` occurs in `text` (occurrences may overlap): "five decodes were printed".
std::size_t count_of(const std::string& text, const std::string& what);

}  // namespace attn::testing
