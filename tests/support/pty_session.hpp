// tests/support/pty_session.hpp — run the `attn` program on a pseudo-terminal, as a class would:
// send keys, read what it draws, look at the terminal's settings, resize the window.
//
//   PtySession session({"lesson", "1"}, {{"NO_COLOR", "1"}}, 24, 80);
//   REQUIRE(session.wait_for("Lesson 1"));
//   session.send(" ");                       // the next screen
//   CHECK(!(session.settings().c_lflag & ICANON));
#pragma once

#include <map>
#include <string>
#include <sys/types.h>
#include <termios.h>
#include <vector>

namespace attn::testing {

class PtySession {
public:
    /// Starts the built `attn` with `arguments` on a new pseudo-terminal of rows × columns, with
    /// TERM=xterm-256color, COLUMNS and LINES removed, and `environment` added.
    PtySession(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment,
               unsigned short rows, unsigned short columns);
    /// The same for another program (a shell, to see the tutor under job control).
    PtySession(const std::string& program, const std::vector<std::string>& arguments,
               const std::map<std::string, std::string>& environment, unsigned short rows, unsigned short columns);
    ~PtySession();
    PtySession(const PtySession&) = delete;
    PtySession& operator=(const PtySession&) = delete;

    /// Writes bytes as if typed.
    void send(const std::string& keys);
    /// Reads until `text` appears in what was drawn since the last mark(); false after the timeout.
    bool wait_for(const std::string& text, int timeout_ms = 15000);
    /// Reads whatever arrives within `milliseconds`.
    void drain(int milliseconds);
    /// Forgets what was drawn so far, for wait_for and since_mark.
    void mark();
    /// What was drawn since the last mark(), with the terminal's "\r\n" turned back into "\n".
    std::string since_mark() const;
    /// The terminal's settings now (those of its slave side).
    termios settings() const;
    /// The settings the terminal had before the program started.
    const termios& initial_settings() const { return initial_; }
    /// Changes the window size; the kernel sends SIGWINCH to the program.
    void resize(unsigned short rows, unsigned short columns);
    /// Waits for the program to end: its exit status, or 128 + the signal that ended it; -1 when
    /// it did not end within the timeout (it is then killed).
    int wait_exit(int timeout_ms = 15000);
    pid_t pid() const { return child_; }

    /// The path of the built `attn`.
    static std::string attn_path();

private:
    void read_available(int timeout_ms);

    int master_ = -1, slave_ = -1;
    pid_t child_ = -1;
    bool exited_ = false;
    termios initial_{};
    std::string output_;
    std::size_t mark_ = 0;
};

/// The last screen drawn in `drawn`: the text after the last clear-screen sequence, up to the
/// end or to the sequence that leaves the alternate screen.
std::string last_screen(const std::string& drawn);

}  // namespace attn::testing
