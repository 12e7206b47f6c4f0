#include "tutor/terminal/key_input.hpp"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <termios.h>
#include <unistd.h>

namespace attn::tutor {

namespace {

// What a signal handler needs to give the terminal back. Written before `active` is set.
struct SavedTerminal {
    volatile sig_atomic_t active = 0;
    volatile sig_atomic_t resized = 0;
    volatile sig_atomic_t alternate_screen = 0;  // the pager's session uses it; the colour query does not
    termios original{}, raw{};
    int input_fd = -1, output_fd = -1;
};
SavedTerminal saved;

constexpr char enter_alternate_screen[] = "\033[?1049h\033[H";
constexpr char leave_alternate_screen[] = "\033[?1049l";
constexpr int ending_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction previous_ending[4], previous_stop, previous_resize;

// Async-signal-safe: write(2) in a loop.
void write_all(int fd, const char* data, std::size_t length) {
    while (length > 0) {
        const ssize_t written = ::write(fd, data, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return;
        }
        data += written;
        length -= static_cast<std::size_t>(written);
    }
}

// Both async-signal-safe: only tcsetattr(3) and write(2).
void give_terminal_back() {
    ::tcsetattr(saved.input_fd, TCSANOW, &saved.original);
    if (saved.alternate_screen) write_all(saved.output_fd, leave_alternate_screen, sizeof leave_alternate_screen - 1);
}

void take_terminal() {
    ::tcsetattr(saved.input_fd, TCSANOW, &saved.raw);
    if (saved.alternate_screen) write_all(saved.output_fd, enter_alternate_screen, sizeof enter_alternate_screen - 1);
}

void set_handler(int signal_number, void (*handler)(int), struct sigaction* previous) {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocked read returns, and the pager looks at the flags
    ::sigaction(signal_number, &action, previous);
}

void on_ending_signal(int signal_number) {
    if (saved.active) {
        give_terminal_back();
        saved.active = 0;
    }
    // Re-raise with the default action: the program ends as that signal says (130 for Ctrl-C).
    // The signal stays blocked until this handler returns, then it is delivered.
    set_handler(signal_number, SIG_DFL, nullptr);
    ::raise(signal_number);
}

void on_resize(int) { saved.resized = 1; }

void on_stop(int) {
    const int saved_errno = errno;
    if (saved.active) give_terminal_back();
    set_handler(SIGTSTP, SIG_DFL, nullptr);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTSTP);
    ::sigprocmask(SIG_UNBLOCK, &stop, nullptr);
    ::raise(SIGTSTP);  // the program stops here, until `fg`
    set_handler(SIGTSTP, on_stop, nullptr);
    if (saved.active) {
        take_terminal();
        saved.resized = 1;  // draw the screen again
    }
    errno = saved_errno;
}

// The next byte within `timeout_ms`, or -1.
int next_byte(int fd, int timeout_ms) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, timeout_ms) <= 0) return -1;
    unsigned char byte = 0;
    return ::read(fd, &byte, 1) == 1 ? byte : -1;
}

// The rest of an escape sequence after ESC: a key the pager uses, or nothing.
std::optional<KeyKind> read_escape_sequence(int fd) {
    const int kind = next_byte(fd, 50);
    if (kind < 0) return KeyKind::escape;  // ESC alone
    if (kind == ']' || kind == 'P' || kind == '_') {  // OSC, DCS, APC: a string up to BEL or ESC '\'
        for (int byte; (byte = next_byte(fd, 100)) >= 0;) {
            if (byte == '\a') break;
            if (byte == 0x1b) {
                next_byte(fd, 50);
                break;
            }
        }
        return std::nullopt;
    }
    if (kind != '[' && kind != 'O') return std::nullopt;  // ESC and one character (Alt-key)
    std::string parameters;
    int final_byte = -1;
    for (int byte; (byte = next_byte(fd, 50)) >= 0;) {
        if (byte >= 0x40 && byte <= 0x7e) {
            final_byte = byte;
            break;
        }
        parameters += static_cast<char>(byte);
    }
    switch (final_byte) {
        case 'C': case 'B': return KeyKind::next;       // → ↓
        case 'D': case 'A': return KeyKind::previous;   // ← ↑
        case '~':
            if (parameters == "6") return KeyKind::next;      // Page Down
            if (parameters == "5") return KeyKind::previous;  // Page Up
            return std::nullopt;
        default: return std::nullopt;
    }
}

// Raw mode: no line editing, no echo, and no flow control (IXON): Ctrl-S would otherwise freeze
// the output until Ctrl-Q, and a student who pressed it sees a pager that ignores every key.
termios raw_settings(const termios& original, cc_t minimum_bytes) {
    termios raw = original;
    raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));  // ISIG stays: Ctrl-C is still SIGINT
    raw.c_iflag &= static_cast<tcflag_t>(~IXON);
    raw.c_cc[VMIN] = minimum_bytes;
    raw.c_cc[VTIME] = 0;
    return raw;
}

// Installs the handlers that give the terminal back before the terminal is changed, so that no
// signal finds it changed without them, then applies `raw` (again after Ctrl-Z and `fg`).
// Undone by release_terminal.
void hold_terminal(int input_fd, int output_fd, const termios& original, const termios& raw, bool alternate_screen) {
    saved.original = original;
    saved.raw = raw;
    saved.input_fd = input_fd;
    saved.output_fd = output_fd;
    saved.resized = 0;
    saved.alternate_screen = alternate_screen ? 1 : 0;
    for (std::size_t i = 0; i < 4; ++i) {
        set_handler(ending_signals[i], on_ending_signal, &previous_ending[i]);
        // A signal the parent asked us to ignore (nohup) stays ignored.
        if (previous_ending[i].sa_handler == SIG_IGN) ::sigaction(ending_signals[i], &previous_ending[i], nullptr);
    }
    set_handler(SIGTSTP, on_stop, &previous_stop);
    set_handler(SIGWINCH, on_resize, &previous_resize);
    saved.active = 1;
    take_terminal();
}

void release_terminal() {
    if (saved.active) {
        saved.active = 0;
        give_terminal_back();
    }
    for (std::size_t i = 0; i < 4; ++i) ::sigaction(ending_signals[i], &previous_ending[i], nullptr);
    ::sigaction(SIGTSTP, &previous_stop, nullptr);
    ::sigaction(SIGWINCH, &previous_resize, nullptr);
}

}  // namespace

TerminalSession::TerminalSession(int input_fd, int output_fd) : input_fd_(input_fd), output_fd_(output_fd) {
    if (saved.active) throw std::logic_error("a terminal session is already open");
    termios original{};
    if (::tcgetattr(input_fd, &original) != 0) throw std::runtime_error("cannot read the terminal's settings");
    hold_terminal(input_fd, output_fd, original, raw_settings(original, 1), true);
}

TerminalSession::~TerminalSession() { release_terminal(); }

Key TerminalSession::read_key() {
    for (;;) {
        if (saved.resized) {
            saved.resized = 0;
            return {KeyKind::resized, 0};
        }
        // Wake up now and then: a resize signal may have been delivered to another thread.
        pollfd ready{input_fd_, POLLIN, 0};
        const int polled = ::poll(&ready, 1, 200);
        if (polled < 0 && errno != EINTR) return {KeyKind::end_of_input, 0};
        if (polled <= 0) continue;
        unsigned char byte = 0;
        const ssize_t got = ::read(input_fd_, &byte, 1);
        if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (got <= 0) return {KeyKind::end_of_input, 0};  // closed, or the terminal hung up
        if (byte == '\r' || byte == '\n') return {KeyKind::enter, 0};
        if (byte == 0x04) return {KeyKind::end_of_input, 0};  // Ctrl-D
        if (byte == 0x7f || byte == 0x08) return {KeyKind::backspace, 0};
        if (byte == 0x1b) {
            if (const auto key = read_escape_sequence(input_fd_)) return {*key, 0};
            continue;
        }
        if (byte >= 0x20 && byte < 0x7f) return {KeyKind::character, static_cast<char>(byte)};
        // Any other control character or a byte of a non-ASCII character: not a key of ours.
    }
    (void)output_fd_;
}

std::optional<bool> background_answer_is_light(const std::string& answer) {
    const std::size_t start = answer.find("]11;rgb:");
    if (start == std::string::npos) return std::nullopt;
    double channels[3];
    std::size_t position = start + 8;
    for (double& channel : channels) {
        std::size_t digits = 0;
        unsigned long value = 0;
        while (position < answer.size() && digits < 4 && std::isxdigit(static_cast<unsigned char>(answer[position]))) {
            value = value * 16 + static_cast<unsigned long>(std::stoul(answer.substr(position, 1), nullptr, 16));
            ++position;
            ++digits;
        }
        if (digits == 0) return std::nullopt;
        channel = static_cast<double>(value) / static_cast<double>((1UL << (4 * digits)) - 1);
        if (position < answer.size() && answer[position] == '/') ++position;
    }
    const double luminance = 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2];
    return luminance > 0.5;
}

std::optional<bool> ask_terminal_background_is_light(int input_fd, int output_fd, int timeout_ms) {
    termios original{};
    if (saved.active || ::tcgetattr(input_fd, &original) != 0) return std::nullopt;
    // The wait below lasts timeout_ms on a terminal that never answers: Ctrl-C, SIGTERM or Ctrl-Z
    // during it must find the handlers that give the terminal back its echo and line editing.
    hold_terminal(input_fd, output_fd, original, raw_settings(original, 0), false);
    const char query[] = "\033]11;?\033\\\033[c";
    write_all(output_fd, query, sizeof query - 1);
    std::string answer;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        const int byte = next_byte(input_fd, static_cast<int>(left));
        if (byte < 0) break;
        answer += static_cast<char>(byte);
        // The Device Attributes answer, "ESC [ ? … c", comes last: nothing more to wait for.
        const std::size_t attributes = answer.find("\033[?");
        if (attributes != std::string::npos && answer.back() == 'c' && answer.size() > attributes + 3) break;
    }
    release_terminal();
    return background_answer_is_light(answer);
}

}  // namespace attn::tutor
