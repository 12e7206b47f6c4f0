#include "sandbox.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <random>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attn/error.hpp"
#include "child_process.hpp"
#include "isolation.hpp"
#include "tutor/language.hpp"

namespace attn::exercises {

namespace {

std::uint64_t random_nonce() {
    std::random_device device;
    return (std::uint64_t(device()) << 32) ^ device();
}

}  // namespace

Sandbox::Sandbox(const std::string& program, const Limits& limits, const std::vector<std::string>& environment) {
    const Isolation& walls = isolation();
    namespaces_ = walls.namespaces;
    static bool fallback_said = false;
    if (!namespaces_ && !fallback_said) {
        fallback_said = true;
        std::cerr << tutor::trf("attn: note: the exercise runs without its sandbox's namespaces ({1}): your program gets "
                                "its own session, a seccomp filter and the limits, but it could write wherever you can.",
                                {walls.why_not})
                  << std::endl;
    }
    std::string scratch = "/tmp";
    if (!namespaces_) {
        const char* temporary = std::getenv("TMPDIR");
        scratch_ = std::string(temporary && *temporary ? temporary : "/tmp") + "/attn-scratch-XXXXXX";
        if (::mkdtemp(scratch_.data()) == nullptr) system_error("cannot create a scratch folder " + scratch_, errno);
        scratch = scratch_;
        become_subreaper();
        // Our /proc entries (the terminal behind /proc/<pid>/fd/1) closed to a process of our
        // user without CAP_SYS_PTRACE.
        ::prctl(PR_SET_DUMPABLE, 0);
    }
    nonce_ = random_nonce();
    // The nonce goes first on the request channel: nothing about it is in the environment.
    for (int shift = 0; shift < 64; shift += 8) pending_.push_back(static_cast<unsigned char>(nonce_ >> shift));
    std::vector<std::string> minimal = {"PATH=/usr/bin:/bin", "HOME=" + scratch, "TMPDIR=" + scratch, "LC_ALL=C.UTF-8",
                                        "OPENBLAS_NUM_THREADS=1"};  // one thread: nothing to leave behind, and fair timing
    const std::string memory = std::to_string(limits.memory_mib);
    minimal.push_back("ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:malloc_limit_mb=" + memory +
                      ":hard_rss_limit_mb=" + memory + ":handle_abort=1:color=never");
    minimal.push_back("UBSAN_OPTIONS=print_stacktrace=1:color=never");
    minimal.insert(minimal.end(), environment.begin(), environment.end());
    SpawnSettings settings;
    settings.limits = &limits;
    settings.whole_environment = true;
    const std::vector<std::string> command = namespaces_ ? isolated_arguments(walls, program, minimal) : std::vector<std::string>{program};
    if (!namespaces_) {
        settings.new_session = true;  // bwrap gives the program a new session itself
        settings.directory = scratch_;
    }
    const Child child = spawn(command, namespaces_ ? std::vector<std::string>{"PATH=/usr/bin:/bin"} : minimal, settings);
    pid_ = child.pid;
    output_fd_ = child.output;
    request_fd_ = child.requests;
    reply_fd_ = child.replies;
    guard_ = std::make_unique<SignalGuard>(pid_);
}

Sandbox::~Sandbox() {
    if (!ended_) {
        kill_group();
        reap(true);
    }
    close_fd(request_fd_);
    close_fd(reply_fd_);
    close_fd(output_fd_);
    if (!scratch_.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(scratch_, ignored);
    }
}

void Sandbox::kill_group() {
    if (pid_ > 0) ::kill(-pid_, SIGKILL);
}

bool Sandbox::reap(bool wait) {
    if (ended_) return true;
    siginfo_t info{};
    // Seen but not reaped: its group id stays reserved while what is left of the group is killed.
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT | (wait ? 0 : WNOHANG)) != 0 || info.si_pid != pid_) {
        return false;
    }
    // Whatever is still in the pipe, then: is the report channel still open? Only a process the
    // program started can hold it now (under bwrap none is left once the program has ended).
    while (reply_fd_ >= 0 && ::poll(std::array<pollfd, 1>{pollfd{reply_fd_, POLLIN, 0}}.data(), 1, 0) > 0 && pump(0)) {
    }
    channel_held_ = reply_fd_ >= 0;
    kill_group();
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (!namespaces_) sweep_descendants();  // what escaped the group (setsid, double fork) came back to us
    ended_ = true;
    exited_ = WIFEXITED(status);
    exit_code_ = exited_ ? WEXITSTATUS(status) : 0;
    signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (namespaces_ && exited_ && exit_code_ > 128 && exit_code_ < 128 + 65) {  // bwrap says "killed by N" as 128 + N
        exited_ = false;
        signal_ = exit_code_ - 128;
        exit_code_ = 0;
    }
    return true;
}

void Sandbox::send(wire::FrameType type, const wire::Encoder& message) {
    const auto bytes = wire::frame_bytes(nonce_, type, message.bytes);
    pending_.insert(pending_.end(), bytes.begin(), bytes.end());
}

bool Sandbox::pump(int timeout_ms) {
    pollfd fds[3];
    nfds_t count = 0;
    int reply_index = -1, output_index = -1, request_index = -1;
    if (reply_fd_ >= 0) {
        reply_index = static_cast<int>(count);
        fds[count++] = {reply_fd_, POLLIN, 0};
    }
    if (output_fd_ >= 0) {
        output_index = static_cast<int>(count);
        fds[count++] = {output_fd_, POLLIN, 0};
    }
    if (request_fd_ >= 0 && !pending_.empty()) {
        request_index = static_cast<int>(count);
        fds[count++] = {request_fd_, POLLOUT, 0};
    }
    if (count == 0) return false;
    const int ready = ::poll(fds, count, timeout_ms);
    if (ready < 0 && errno != EINTR) system_error("cannot wait for the exercise program (poll)", errno);
    if (ready <= 0) return true;
    char buffer[65536];
    if (reply_index >= 0 && fds[reply_index].revents) {
        const ssize_t n = ::read(reply_fd_, buffer, sizeof buffer);
        if (n > 0) replies_.insert(replies_.end(), buffer, buffer + n);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            close_fd(reply_fd_);
            reply_closed_ = true;
        }
    }
    if (output_index >= 0 && fds[output_index].revents) {
        const ssize_t n = ::read(output_fd_, buffer, sizeof buffer);
        if (n > 0) output_.append(buffer, static_cast<std::size_t>(n));
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) close_fd(output_fd_);
    }
    if (request_index >= 0 && fds[request_index].revents) {
        const ssize_t n = ::write(request_fd_, pending_.data(), pending_.size());
        if (n > 0) pending_.erase(pending_.begin(), pending_.begin() + n);
        if (n < 0 && errno != EAGAIN && errno != EINTR) {  // EPIPE: the program is gone; its end shows on the replies
            pending_.clear();
            close_fd(request_fd_);
        }
    }
    return true;
}

void Sandbox::drain_output(Clock::time_point deadline) {
    while (output_fd_ >= 0 && Clock::now() < deadline) pump(std::min(milliseconds_until(deadline), 50));
}

Sandbox::Event Sandbox::next(Clock::time_point deadline) {
    Event event;
    while (true) {
        if (!protocol_error_.empty()) {
            event.kind = Event::Kind::protocol_error;
            event.detail = protocol_error_;
            return event;
        }
        if (timed_out_) {
            event.kind = Event::Kind::timed_out;
            return event;
        }
        if (replies_.size() >= wire::header_size) {
            std::uint32_t length = 0;
            try {
                wire::parse_header(replies_.data(), nonce_, event.frame.type, length);
            } catch (const wire::ProtocolError& e) {
                protocol_error_ = e.what();
                kill_group();
                reap(true);
                continue;
            }
            if (replies_.size() >= wire::header_size + length) {
                event.kind = Event::Kind::frame;
                event.frame.payload.assign(replies_.begin() + wire::header_size, replies_.begin() + wire::header_size + length);
                replies_.erase(replies_.begin(), replies_.begin() + wire::header_size + length);
                return event;
            }
        }
        if (ended_ || reap(false)) {
            drain_output(Clock::now() + std::chrono::milliseconds(500));
            event.kind = Event::Kind::ended;
            return event;
        }
        if (Clock::now() >= deadline) {
            timed_out_ = true;
            kill_group();
            reap(true);
            drain_output(Clock::now() + std::chrono::milliseconds(500));
            continue;
        }
        // Wait in small steps: the program's end shows by reaping it, not by its channel closing
        // (a process it started may hold the channel open).
        const int wait_ms = std::min(milliseconds_until(deadline), reply_closed_ ? 10 : 50);
        if (!pump(wait_ms)) ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
    }
}

void Sandbox::finish(Clock::time_point deadline) {
    while (!ended_ && Clock::now() < deadline) {
        if (reap(false)) break;
        pump(std::min(milliseconds_until(deadline), 10));
    }
    if (!ended_) {
        kill_group();
        reap(true);
    }
    drain_output(Clock::now() + std::chrono::milliseconds(500));
}

std::string Sandbox::how_it_ended() const {
    if (!ended_) return "";
    if (exited_) return "exit status " + std::to_string(exit_code_);
    return "signal " + std::to_string(signal_) + ", " + signal_name(signal_);
}

}  // namespace attn::exercises
