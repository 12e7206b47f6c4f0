#include "sandbox.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <random>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attn/error.hpp"

extern char** environ;

namespace attn::exercises {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void system_error(const std::string& what, int error) {
    throw InputError(what + ": " + std::strerror(error));
}

int milliseconds_until(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 60 * 60 * 1000));
}

std::string signal_name(int signal) {
    switch (signal) {
        case SIGSEGV: return "segmentation fault: a read or write at an address that is not yours";
        case SIGABRT: return "abort";
        case SIGFPE: return "arithmetic exception: an integer division by zero?";
        case SIGBUS: return "bus error";
        case SIGILL: return "illegal instruction";
        case SIGKILL: return "killed";
        case SIGXFSZ: return "file size limit exceeded";
        case SIGXCPU: return "CPU time limit exceeded";
        default: {
            const char* name = ::strsignal(signal);
            return name ? name : "signal";
        }
    }
}

// The group of the program being run, for the signal handlers below (0: none).
volatile std::sig_atomic_t running_group = 0;

extern "C" void kill_group_and_die(int signal) {
    if (running_group > 0) ::kill(-running_group, SIGKILL);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

struct Pipe {
    int read = -1, write = -1;
};

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) system_error("cannot create a pipe", errno);
    return {fds[0], fds[1]};
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// The environment for the child: ours, with `extra` ("NAME=value") replacing or adding entries.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
    std::vector<std::string> out;
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string text = *entry;
        const std::string name = text.substr(0, text.find('='));
        const bool replaced = std::any_of(extra.begin(), extra.end(),
                                          [&](const std::string& e) { return e.substr(0, e.find('=')) == name; });
        if (!replaced) out.push_back(text);
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

struct Child {
    pid_t pid = -1;
    int output = -1;             // parent's read end of stdout+stderr
    int requests = -1;           // parent's write end of fd 3 (channels only)
    int replies = -1;            // parent's read end of fd 4 (channels only)
};

// Starts `arguments` in a new process group. With `limits`: resource limits, parent-death signal,
// and the request/reply channels on fds 3 and 4; without: a trusted helper, looked up in PATH.
Child spawn(std::vector<std::string> arguments, const std::vector<std::string>& extra_environment, const Limits* limits) {
    std::vector<std::string> environment = environment_with(extra_environment);
    std::vector<char*> argv = pointers(arguments), envp = pointers(environment);
    Pipe output = make_pipe(), exec_error = make_pipe(), requests, replies;
    if (limits) {
        requests = make_pipe();
        replies = make_pipe();
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) system_error("cannot start " + arguments[0] + " (fork)", errno);
    if (pid == 0) {
        // The child: only async-signal-safe calls from here to exec.
        ::setpgid(0, 0);
        const int output_fd = ::fcntl(output.write, F_DUPFD_CLOEXEC, 10);
        const int request_fd = limits ? ::fcntl(requests.read, F_DUPFD_CLOEXEC, 10) : -1;
        const int reply_fd = limits ? ::fcntl(replies.write, F_DUPFD_CLOEXEC, 10) : -1;
        const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (output_fd < 0 || null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(output_fd, 1) < 0 || ::dup2(output_fd, 2) < 0 ||
            (limits && (::dup2(request_fd, 3) < 0 || ::dup2(reply_fd, 4) < 0))) {
            const int error = errno;
            (void)!::write(exec_error.write, &error, sizeof error);
            ::_exit(127);
        }
        for (int fd = limits ? 5 : 3; fd < 1024; ++fd) {
            if (fd != exec_error.write) ::close(fd);
        }
        if (limits) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(127);
            const rlimit no_core{0, 0};
            ::setrlimit(RLIMIT_CORE, &no_core);
            const rlimit file_size{64u << 20, 64u << 20};
            ::setrlimit(RLIMIT_FSIZE, &file_size);
            if (!limits->address_sanitizer) {
                const rlim_t bytes = static_cast<rlim_t>(limits->memory_mib) << 20;
                const rlimit memory{bytes, bytes};
                ::setrlimit(RLIMIT_AS, &memory);
            }
            ::execve(argv[0], argv.data(), envp.data());
        } else {
            ::execvpe(argv[0], argv.data(), envp.data());
        }
        const int error = errno;
        (void)!::write(exec_error.write, &error, sizeof error);
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: no window in which a kill of the group misses it
    close_fd(output.write);
    close_fd(exec_error.write);
    close_fd(requests.read);
    close_fd(replies.write);
    int error = 0;
    ssize_t got;
    do {
        got = ::read(exec_error.read, &error, sizeof error);
    } while (got < 0 && errno == EINTR);
    close_fd(exec_error.read);
    if (got == sizeof error) {
        int status;
        ::waitpid(pid, &status, 0);
        close_fd(output.read);
        close_fd(requests.write);
        close_fd(replies.read);
        system_error("cannot run " + arguments[0], error);
    }
    Child child;
    child.pid = pid;
    child.output = output.read;
    child.requests = requests.write;
    child.replies = replies.read;
    for (int fd : {child.output, child.requests, child.replies}) {
        if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    return child;
}

std::uint64_t random_nonce() {
    std::random_device device;
    return (std::uint64_t(device()) << 32) ^ device();
}

}  // namespace

// While a sandboxed program runs: Ctrl-C, a hang-up or SIGTERM take its group down with us, and a
// write to its closed pipe is an error (EPIPE), not our death.
class Sandbox::SignalGuard {
public:
    explicit SignalGuard(pid_t group) {
        running_group = group;
        struct sigaction action {};
        action.sa_handler = kill_group_and_die;
        sigemptyset(&action.sa_mask);
        for (std::size_t i = 0; i < 3; ++i) sigaction(forwarded[i], &action, &saved_[i]);
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGPIPE, &ignore, &saved_pipe_);
    }
    ~SignalGuard() {
        for (std::size_t i = 0; i < 3; ++i) sigaction(forwarded[i], &saved_[i], nullptr);
        sigaction(SIGPIPE, &saved_pipe_, nullptr);
        running_group = 0;
    }
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

private:
    static constexpr int forwarded[3] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction saved_[3] {};
    struct sigaction saved_pipe_ {};
};

// ---------------------------------------------------------------------------------------------

void CappedOutput::append(const char* data, std::size_t size) {
    const std::size_t to_head = std::min(size, head_limit_ - head_.size());
    head_.append(data, to_head);
    data += to_head;
    size -= to_head;
    if (size == 0) return;
    tail_.append(data, size);
    if (tail_.size() > tail_limit_) {
        dropped_ += tail_.size() - tail_limit_;
        tail_.erase(0, tail_.size() - tail_limit_);
    }
}

std::string CappedOutput::text() const {
    if (dropped_ == 0) return head_ + tail_;
    return head_ + "\n… (" + std::to_string(dropped_) + " bytes left out) …\n" + tail_;
}

std::string printable(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
            out += static_cast<char>(c);
            ++i;
            continue;
        }
        std::size_t length = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
        bool valid = length > 0 && i + length <= text.size();
        for (std::size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
        if (valid) {
            out.append(text, i, length);
            i += length;
        } else if (c < 0x80) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            out += escaped;
            ++i;
        } else {
            out += "\xef\xbf\xbd";  // U+FFFD
            ++i;
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------

Sandbox::Sandbox(const std::string& program, const Limits& limits, const std::vector<std::string>& environment) {
    nonce_ = random_nonce();
    char nonce_text[32];
    std::snprintf(nonce_text, sizeof nonce_text, "%016llx", static_cast<unsigned long long>(nonce_));
    std::vector<std::string> extra = environment;
    extra.push_back(std::string("ATTN_EXERCISE_NONCE=") + nonce_text);
    extra.push_back("OPENBLAS_NUM_THREADS=1");  // one thread: nothing to leave behind, and fair timing
    const std::string memory = std::to_string(limits.memory_mib);
    extra.push_back("ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:malloc_limit_mb=" + memory +
                    ":hard_rss_limit_mb=" + memory + ":handle_abort=1:color=never");
    extra.push_back("UBSAN_OPTIONS=print_stacktrace=1:color=never");
    const Child child = spawn({program}, extra, &limits);
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
    kill_group();
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    ended_ = true;
    exited_ = WIFEXITED(status);
    exit_code_ = exited_ ? WEXITSTATUS(status) : 0;
    signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
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
        if (ended_ || (reply_closed_ && reap(false))) {
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
        // With the replies closed, wait for the end in small steps (draining the output meanwhile).
        const int wait_ms = reply_closed_ ? std::min(milliseconds_until(deadline), 10) : milliseconds_until(deadline);
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

// ---------------------------------------------------------------------------------------------

CapturedRun run_captured(const std::vector<std::string>& arguments, double seconds) {
    // LANGUAGE emptied: the language attn speaks (tutor/language.hpp sets it) must not turn the
    // compiler's and the linker's messages, which student_build reads, into another language.
    const Child child = spawn(arguments, {"LANGUAGE="}, nullptr);
    Sandbox::SignalGuard guard(child.pid);
    CappedOutput output(64 * 1024, 64 * 1024);
    const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
    CapturedRun run;
    int fd = child.output;
    while (fd >= 0) {
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, milliseconds_until(deadline));
        if (ready == 0) {
            run.timed_out = true;
            ::kill(-child.pid, SIGKILL);
            break;
        }
        if (ready < 0 && errno == EINTR) continue;
        char buffer[65536];
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) output.append(buffer, static_cast<std::size_t>(n));
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) close_fd(fd);
    }
    close_fd(fd);
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    ::kill(-child.pid, SIGKILL);  // anything it left behind in its group, while the group id is still its own
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    run.output = output.text();
    if (!run.timed_out) run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return run;
}

}  // namespace attn::exercises
