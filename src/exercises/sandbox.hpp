// src/exercises/sandbox.hpp — run a program we do not trust, with limits, and talk to it.
//
// Why: a student's program can loop forever, crash, print megabytes, eat memory, call exit(0),
// fork, or try to reach outside its exercise. `attn exercise` must stay in control through all of
// it: the program runs inside the walls of isolation.hpp (bubblewrap's namespaces, or the
// fallback's own session and subreaper), under its own seccomp filter, with a memory limit
// (setrlimit, or AddressSanitizer's own limits when it is built with ASan, which cannot run under
// RLIMIT_AS), no core files, a minimal environment, its output captured and capped, and a deadline
// per wait; on a deadline everything it started is killed (SIGKILL), and so it is when `attn
// exercise` is interrupted or dies (PR_SET_PDEATHSIG). Nothing is left running. The run's nonce is
// the first 8 bytes on file descriptor 3 (never in the environment); requests follow on 3, its
// reports come back on 4 (student/wire.hpp), each frame carrying the nonce.
//
//   Sandbox program("build/exercise_01", limits);
//   program.send(wire::FrameType::request, request);
//   Sandbox::Event e = program.next(std::chrono::steady_clock::now() + std::chrono::seconds(5));
//   if (e.kind == Sandbox::Event::Kind::timed_out) …   // the group is already killed
//
// run_captured() is the plain version for trusted programs (the build, nm): output and exit
// status, with a deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

#include "student/wire.hpp"

namespace attn::exercises {

struct Limits {
    double seconds_per_case = 5.0;    // each case; the program's start gets 5 s more
    std::size_t memory_mib = 2048;    // address space, or ASan's RSS and allocation limits
    bool address_sanitizer = false;   // the program is built with ASan: no RLIMIT_AS
};

/// Keeps the first and the last part of what a program prints, and counts the rest.
class CappedOutput {
public:
    explicit CappedOutput(std::size_t head = 6 * 1024, std::size_t tail = 10 * 1024) : head_limit_(head), tail_limit_(tail) {}
    void append(const char* data, std::size_t size);
    /// Everything kept, with "… (N bytes left out) …" where the middle was dropped.
    std::string text() const;
    bool empty() const { return head_.empty(); }

private:
    std::size_t head_limit_, tail_limit_;
    std::string head_, tail_;
    std::size_t dropped_ = 0;
};

class Sandbox {
public:
    struct Event {
        enum class Kind { frame, ended, timed_out, protocol_error };
        Kind kind = Kind::ended;
        wire::Frame frame;   // Kind::frame
        std::string detail;  // Kind::protocol_error: what was wrong
    };

    /// Starts `program` (no arguments) in its own process group under `limits`, with `environment`
    /// added to ours. InputError naming the call and its errno when it cannot start.
    Sandbox(const std::string& program, const Limits& limits, const std::vector<std::string>& environment = {});
    ~Sandbox();
    Sandbox(const Sandbox&) = delete;
    Sandbox& operator=(const Sandbox&) = delete;

    /// Queues a frame for the program; it is written while next() waits.
    void send(wire::FrameType type, const wire::Encoder& message);

    /// The next frame from the program, or its end, or the deadline (the group is then killed).
    /// Once it ended, timed out or broke the protocol, every later call says so again.
    Event next(std::chrono::steady_clock::time_point deadline);

    /// After the last case: lets the program exit by itself until `deadline`, then kills what is left.
    void finish(std::chrono::steady_clock::time_point deadline);

    /// How the program ended: "exit status 0", "signal 11 (segmentation fault)"; "" while it runs.
    std::string how_it_ended() const;
    bool exited_normally() const { return ended_ && exited_; }
    int exit_code() const { return exit_code_; }
    int signal() const { return signal_; }

    /// What the program printed on stdout and stderr, interleaved, capped.
    std::string output() const { return output_.text(); }

    std::uint64_t nonce() const { return nonce_; }

    /// The program ended while a process it started still held its report channel open (that
    /// process was then killed).
    bool channel_held_after_end() const { return channel_held_; }

    /// While alive: SIGINT, SIGTERM and SIGHUP kill a process group, then us; SIGPIPE is ignored.
    class SignalGuard;

private:
    bool pump(int timeout_ms);           // one poll round; false when nothing can happen any more
    bool reap(bool wait);                // true once the program has ended (it is then reaped)
    void kill_group();
    void drain_output(std::chrono::steady_clock::time_point deadline);

    std::unique_ptr<SignalGuard> guard_;
    pid_t pid_ = -1;
    int request_fd_ = -1, reply_fd_ = -1, output_fd_ = -1;
    std::uint64_t nonce_ = 0;
    std::vector<unsigned char> pending_, replies_;
    bool reply_closed_ = false, ended_ = false, exited_ = false, timed_out_ = false;
    int exit_code_ = 0, signal_ = 0;
    std::string protocol_error_;
    CappedOutput output_;
    bool namespaces_ = false;   // started under bwrap (else the fallback)
    bool channel_held_ = false;
    std::string scratch_;       // the fallback's scratch folder, removed at the end
};

struct CapturedRun {
    int exit_code = -1;     // 128 + N when killed by signal N; -1 when the deadline passed
    bool timed_out = false;
    std::string output;     // stdout and stderr, interleaved, capped
};

/// Runs a trusted program (`arguments[0]` looked up in PATH) to its end or `seconds`, capturing its
/// output. InputError naming the call and its errno when it cannot start.
CapturedRun run_captured(const std::vector<std::string>& arguments, double seconds);

/// `text` safe for a terminal: control characters and escape sequences shown as \xNN, invalid
/// UTF-8 as U+FFFD; newlines and tabs kept.
std::string printable(const std::string& text);

}  // namespace attn::exercises
