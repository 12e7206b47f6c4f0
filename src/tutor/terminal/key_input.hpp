// tutor/terminal/key_input.hpp — single keys from the terminal, and a terminal that is always given back.
//
// Why: a teacher at a projector presses one key (Enter, space, b, q, g 3), not a key and Enter.
// That needs the terminal's raw mode (termios: no line editing, no echo, no Ctrl-S/Ctrl-Q flow
// control, which would freeze the pager's output), and a raw terminal left
// behind by a crash or a Ctrl-C is unusable: so the settings are restored when the session ends,
// when an exception unwinds it, and from the handler of every signal that ends the program
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT), which then re-raises the signal so that the exit status is
// the usual one. Ctrl-Z gives the terminal back too, and takes it again on `fg`. The handlers are
// installed before the terminal is changed, for the session and for the background-colour query
// alike, so that no signal finds it changed without them.
//
//   TerminalSession session(STDIN_FILENO, STDOUT_FILENO);
//   const Key key = session.read_key();   // KeyKind::enter, KeyKind::character 'q', …
#pragma once

#include <optional>
#include <string>

namespace attn::tutor {

enum class KeyKind {
    character,     // a printable ASCII key, in Key::character (space included)
    enter,
    backspace,
    escape,
    next,          // →, ↓, Page Down
    previous,      // ←, ↑, Page Up
    end_of_input,  // Ctrl-D, or the input closed
    resized,       // the window changed size (SIGWINCH), or the program came back from Ctrl-Z
};

struct Key {
    KeyKind kind = KeyKind::character;
    char character = 0;
};

/// The terminal, in raw mode and on the alternate screen, for as long as the object lives. Only
/// one session may exist at a time.
class TerminalSession {
public:
    TerminalSession(int input_fd, int output_fd);
    ~TerminalSession();
    TerminalSession(const TerminalSession&) = delete;
    TerminalSession& operator=(const TerminalSession&) = delete;

    /// Waits for the next key. Escape sequences the pager does not use (other function keys, a
    /// late answer to a query) are skipped whole, so that their letters are never read as keys.
    Key read_key();

private:
    int input_fd_, output_fd_;
};

/// Asks the terminal its background colour (OSC 11, followed by a Device Attributes query that
/// every terminal answers, so that one without OSC 11 answers at once): true for a light
/// background, false for a dark one, empty when there is no answer within `timeout_ms`. While it
/// waits, the terminal (echo off) is given back by the same signal handlers as a session's.
std::optional<bool> ask_terminal_background_is_light(int input_fd, int output_fd, int timeout_ms);

/// True for an OSC 11 answer ("\033]11;rgb:ffff/ffff/ffff\033\\") naming a light colour, false
/// for a dark one, empty when `answer` holds none.
std::optional<bool> background_answer_is_light(const std::string& answer);

}  // namespace attn::tutor
