#include "child_process.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attn/error.hpp"

extern char** environ;

namespace attn::exercises {

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

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

namespace {

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

// The pipes between the checker and the child: its output (stdout and stderr), the exec error,
// and with limits the requests (fd 3) and reports (fd 4).
struct ChildPipes {
    Pipe output, exec_error, requests, replies;
};

// In the child, with limits: killed with its parent, no core, files ≤ 64 MiB, its address space.
void apply_limits(const Limits& limits) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    const rlimit file_size{64u << 20, 64u << 20};
    ::setrlimit(RLIMIT_FSIZE, &file_size);
    if (!limits.address_sanitizer) {
        const rlim_t bytes = static_cast<rlim_t>(limits.memory_mib) << 20;
        const rlimit memory{bytes, bytes};
        ::setrlimit(RLIMIT_AS, &memory);
    }
}

// The child, from fork to exec: only async-signal-safe calls. An error before or in exec is
// written to the exec-error pipe, then the child exits with 127.
[[noreturn]] void exec_child(const SpawnSettings& settings, const ChildPipes& pipes, pid_t parent, std::vector<char*>& argv,
                             std::vector<char*>& envp) {
    const Limits* limits = settings.limits;
    const char* directory = settings.directory.empty() ? nullptr : settings.directory.c_str();
    if (settings.new_session) {
        ::setsid();
    } else {
        ::setpgid(0, 0);
    }
    const int output_fd = ::fcntl(pipes.output.write, F_DUPFD_CLOEXEC, 10);
    const int request_fd = limits ? ::fcntl(pipes.requests.read, F_DUPFD_CLOEXEC, 10) : -1;
    const int reply_fd = limits ? ::fcntl(pipes.replies.write, F_DUPFD_CLOEXEC, 10) : -1;
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (output_fd < 0 || null_fd < 0 || (directory != nullptr && ::chdir(directory) != 0) || ::dup2(null_fd, 0) < 0 || ::dup2(output_fd, 1) < 0 || ::dup2(output_fd, 2) < 0 ||
        (limits && (::dup2(request_fd, 3) < 0 || ::dup2(reply_fd, 4) < 0))) {
        const int error = errno;
        (void)!::write(pipes.exec_error.write, &error, sizeof error);
        ::_exit(127);
    }
    for (int fd = limits ? 5 : 3; fd < 1024; ++fd) {
        if (fd != pipes.exec_error.write) ::close(fd);
    }
    if (limits) {
        apply_limits(*limits);
        if (::getppid() != parent) ::_exit(127);
        ::execve(argv[0], argv.data(), envp.data());
    } else {
        ::execvpe(argv[0], argv.data(), envp.data());
    }
    const int error = errno;
    (void)!::write(pipes.exec_error.write, &error, sizeof error);
    ::_exit(127);
}

// In the checker after fork: the child's ends closed, and the error the child reported before or
// in exec (none when it ran: exec closed the pipe).
std::optional<int> exec_error_of(ChildPipes& pipes) {
    close_fd(pipes.output.write);
    close_fd(pipes.exec_error.write);
    close_fd(pipes.requests.read);
    close_fd(pipes.replies.write);
    int error = 0;
    ssize_t got;
    do {
        got = ::read(pipes.exec_error.read, &error, sizeof error);
    } while (got < 0 && errno == EINTR);
    close_fd(pipes.exec_error.read);
    if (got != sizeof error) return std::nullopt;
    return error;
}

}  // namespace

Child spawn(std::vector<std::string> arguments, const std::vector<std::string>& extra_environment, const SpawnSettings& settings) {
    std::vector<std::string> environment = settings.whole_environment ? extra_environment : environment_with(extra_environment);
    std::vector<char*> argv = pointers(arguments), envp = pointers(environment);
    ChildPipes pipes;
    pipes.output = make_pipe();
    pipes.exec_error = make_pipe();
    if (settings.limits) {
        pipes.requests = make_pipe();
        pipes.replies = make_pipe();
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) system_error("cannot start " + arguments[0] + " (fork)", errno);
    if (pid == 0) exec_child(settings, pipes, parent, argv, envp);
    // Also here: no window in which a kill of the group misses it (a session leader sets its own).
    if (!settings.new_session) ::setpgid(pid, pid);
    if (const std::optional<int> error = exec_error_of(pipes)) {
        int status;
        ::waitpid(pid, &status, 0);
        close_fd(pipes.output.read);
        close_fd(pipes.requests.write);
        close_fd(pipes.replies.read);
        system_error("cannot run " + arguments[0], *error);
    }
    Child child;
    child.pid = pid;
    child.output = pipes.output.read;
    child.requests = pipes.requests.write;
    child.replies = pipes.replies.read;
    for (int fd : {child.output, child.requests, child.replies}) {
        if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    return child;
}

Sandbox::SignalGuard::SignalGuard(pid_t group) {
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

Sandbox::SignalGuard::~SignalGuard() {
    for (std::size_t i = 0; i < 3; ++i) sigaction(forwarded[i], &saved_[i], nullptr);
    sigaction(SIGPIPE, &saved_pipe_, nullptr);
    running_group = 0;
}

}  // namespace attn::exercises
