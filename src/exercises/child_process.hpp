// src/exercises/child_process.hpp — starting a program in its own process group, and what the
// sandbox and run_captured share to watch it: deadlines, signal names, the signal guard.
//
// Why apart from sandbox.cpp: the fork/exec dance (pipes, resource limits, the parent-death
// signal, only async-signal-safe calls in the child) is one concept; talking to the running
// program (frames, deadlines, output) is another.
//
//   Child child = spawn({"c++", "--version"}, {}, nullptr);   // a trusted helper, from PATH
//   Sandbox::SignalGuard guard(child.pid);                    // Ctrl-C kills its group too
#pragma once

#include <chrono>
#include <csignal>
#include <string>
#include <sys/types.h>
#include <vector>

#include "sandbox.hpp"

namespace attn::exercises {

using Clock = std::chrono::steady_clock;

/// InputError "what: strerror(error)".
[[noreturn]] void system_error(const std::string& what, int error);

/// Milliseconds from now to `deadline` for poll(): 0 once past, at most an hour.
int milliseconds_until(Clock::time_point deadline);

/// What a signal that ended a program means, in words a student understands.
std::string signal_name(int signal);

/// Closes `fd` when open and marks it closed (-1).
void close_fd(int& fd);

/// A started program: its process id (also its process group) and the parent's ends of its pipes,
/// non-blocking.
struct Child {
    pid_t pid = -1;
    int output = -1;             // parent's read end of stdout+stderr
    int requests = -1;           // parent's write end of fd 3 (channels only)
    int replies = -1;            // parent's read end of fd 4 (channels only)
};

/// How to start a program: a trusted helper (the defaults) or the student's program.
struct SpawnSettings {
    const Limits* limits = nullptr;  // resource limits, parent-death signal, channels on fds 3 and 4
    bool whole_environment = false;  // the environment is exactly the one given, none of ours
    bool new_session = false;        // setsid(): its own session, no controlling terminal
    std::string directory;           // its working directory ("": ours)
};

/// Starts `arguments` in a new process group (or session). Without `settings.limits`, a trusted
/// helper looked up in PATH. `environment` ("NAME=value") replaces or adds entries of ours, or is
/// the whole environment. InputError naming the call and its errno when it cannot start.
Child spawn(std::vector<std::string> arguments, const std::vector<std::string>& environment, const SpawnSettings& settings);

// While a sandboxed program runs: Ctrl-C, a hang-up or SIGTERM take its group down with us, and a
// write to its closed pipe is an error (EPIPE), not our death.
class Sandbox::SignalGuard {
public:
    explicit SignalGuard(pid_t group);
    ~SignalGuard();
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

private:
    static constexpr int forwarded[3] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction saved_[3] {};
    struct sigaction saved_pipe_ {};
};

}  // namespace attn::exercises
