// CappedOutput, printable and run_captured (sandbox.hpp): what a program prints, kept within
// bounds and made safe for a terminal, and the plain run of a trusted helper (the build, nm).
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_process.hpp"
#include "sandbox.hpp"

namespace attn::exercises {

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

CapturedRun run_captured(const std::vector<std::string>& arguments, double seconds) {
    // LANGUAGE emptied: the language attn speaks (tutor/language.hpp sets it) must not turn the
    // compiler's and the linker's messages, which student_build reads, into another language.
    const Child child = spawn(arguments, {"LANGUAGE="}, SpawnSettings{});
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
