#include "support/pty_session.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdexcept>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utmp.h>

namespace attn::testing {

namespace {

using Clock = std::chrono::steady_clock;

int milliseconds_left(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
}

std::string without_carriage_returns(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
        out += text[i];
    }
    return out;
}

}  // namespace

std::string PtySession::attn_path() {
#ifndef ATTN_CLI_PATH
    throw std::runtime_error("the tests were built without the attn CLI (ATTN_BUILD_CLI=OFF)");
#else
    return ATTN_CLI_PATH;
#endif
}

PtySession::PtySession(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment,
                       unsigned short rows, unsigned short columns)
    : PtySession(attn_path(), arguments, environment, rows, columns) {}

PtySession::PtySession(const std::string& program, const std::vector<std::string>& arguments,
                       const std::map<std::string, std::string>& environment, unsigned short rows, unsigned short columns) {
    winsize size{};
    size.ws_row = rows;
    size.ws_col = columns;
    if (::openpty(&master_, &slave_, nullptr, nullptr, &size) != 0) throw std::runtime_error("openpty failed");
    ::tcgetattr(slave_, &initial_);
    child_ = ::fork();
    if (child_ < 0) throw std::runtime_error("fork failed");
    if (child_ == 0) {
        ::close(master_);
        if (::login_tty(slave_) != 0) _exit(126);  // a new session, the pty as its terminal and stdio
        ::unsetenv("COLUMNS");
        ::unsetenv("LINES");
        ::unsetenv("COLORFGBG");
        ::unsetenv("NO_COLOR");
        ::setenv("TERM", "xterm-256color", 1);
        ::setenv("ATTN_LANG", "en", 1);  // English whatever the machine's locale, unless the test says
        for (const auto& [name, value] : environment) ::setenv(name.c_str(), value.c_str(), 1);
        std::vector<char*> argv{const_cast<char*>(program.c_str())};
        for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
        _exit(127);
    }
    // The slave stays open here too, so that its settings can be read after the program ends.
    ::fcntl(master_, F_SETFL, ::fcntl(master_, F_GETFL) | O_NONBLOCK);
}

PtySession::~PtySession() {
    if (child_ > 0 && !exited_) {
        ::kill(child_, SIGKILL);
        int status = 0;
        ::waitpid(child_, &status, 0);
    }
    if (master_ >= 0) ::close(master_);
    if (slave_ >= 0) ::close(slave_);
}

void PtySession::send(const std::string& keys) {
    std::size_t written = 0;
    while (written < keys.size()) {
        const ssize_t n = ::write(master_, keys.data() + written, keys.size() - written);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            throw std::runtime_error("cannot write to the pseudo-terminal");
        }
        written += static_cast<std::size_t>(n);
    }
}

void PtySession::read_available(int timeout_ms) {
    pollfd ready{master_, POLLIN, 0};
    if (::poll(&ready, 1, timeout_ms) <= 0) return;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(master_, buffer, sizeof buffer);
        if (n <= 0) return;
        output_.append(buffer, static_cast<std::size_t>(n));
    }
}

bool PtySession::wait_for(const std::string& text, int timeout_ms) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        if (since_mark().find(text) != std::string::npos) return true;
        if (milliseconds_left(deadline) == 0) return false;
        read_available(std::min(50, milliseconds_left(deadline)));
    }
}

void PtySession::drain(int milliseconds) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(milliseconds);
    while (milliseconds_left(deadline) > 0) read_available(milliseconds_left(deadline));
}

void PtySession::mark() {
    read_available(0);
    mark_ = output_.size();
}

std::string PtySession::since_mark() const { return without_carriage_returns(output_.substr(mark_)); }

termios PtySession::settings() const {
    termios now{};
    ::tcgetattr(slave_, &now);
    return now;
}

void PtySession::resize(unsigned short rows, unsigned short columns) {
    winsize size{};
    size.ws_row = rows;
    size.ws_col = columns;
    ::ioctl(master_, TIOCSWINSZ, &size);
}

int PtySession::wait_exit(int timeout_ms) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    int status = 0;
    for (;;) {
        read_available(10);  // keep reading, so that the program never blocks on a full terminal
        const pid_t done = ::waitpid(child_, &status, WNOHANG);
        if (done == child_) break;
        if (milliseconds_left(deadline) == 0) {
            ::kill(child_, SIGKILL);
            ::waitpid(child_, &status, 0);
            exited_ = true;
            return -1;
        }
    }
    exited_ = true;
    read_available(50);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string last_screen(const std::string& drawn) {
    const std::string clear = "\033[H\033[2J";
    const std::size_t start = drawn.rfind(clear);
    if (start == std::string::npos) return "";
    std::string screen = drawn.substr(start + clear.size());
    const std::size_t leave = screen.find("\033[?1049l");
    if (leave != std::string::npos) screen.erase(leave);
    return screen;
}

}  // namespace attn::testing
