// The pager as a class meets it, on a pseudo-terminal: the screens it draws are those of
// `--screens`; Enter, space, b, g N, the arrows, q and Ctrl-D move and stop it; Ctrl-C and
// SIGTERM end it with the terminal's settings restored; --step starts at a step; a resize lays
// the screens out again; the background colour is asked of the terminal when nothing says it.
#include <catch2/catch.hpp>

#include <csignal>

#include "support/pty_session.hpp"
#include "support/run_command.hpp"
#include "tutor/terminal/terminal.hpp"

namespace {

using attn::testing::last_screen;
using attn::testing::PtySession;
using attn::testing::run_attn;

// The screens `attn lesson N --screens` prints for a size: what the pager must draw.
std::vector<std::string> dumped_screens(const std::string& lesson, int width, int height) {
    const auto r = run_attn({"lesson", lesson, "--screens", "--width", std::to_string(width), "--height", std::to_string(height)});
    REQUIRE(r.exit_code == 0);
    std::vector<std::string> screens;
    const std::string separator = "\n\f\n";
    for (std::size_t start = 0, end; (end = r.out.find(separator, start)) != std::string::npos; start = end + separator.size()) {
        screens.push_back(r.out.substr(start, end - start));
    }
    REQUIRE_FALSE(screens.empty());
    return screens;
}

// The first screen whose step rule (its second line) starts with `rule`.
std::size_t first_screen_titled(const std::vector<std::string>& screens, const std::string& rule) {
    for (std::size_t i = 0; i < screens.size(); ++i) {
        const std::size_t line = screens[i].find('\n') + 1;
        if (screens[i].compare(line, rule.size(), rule) == 0) return i;
    }
    FAIL("no screen of " << rule);
    return 0;
}

// Plain text (NO_COLOR) and a background named by the environment: no question to the terminal.
const std::map<std::string, std::string> plain = {{"NO_COLOR", "1"}, {"COLORFGBG", "15;0"}};

bool raw(const termios& settings) { return !(settings.c_lflag & ICANON) && !(settings.c_lflag & ECHO); }

void check_restored(const PtySession& session) {
    const termios now = session.settings();
    CHECK(now.c_lflag == session.initial_settings().c_lflag);
    CHECK((now.c_lflag & ICANON));
    CHECK((now.c_lflag & ECHO));
    CHECK(now.c_cc[VMIN] == session.initial_settings().c_cc[VMIN]);
}

// Sends `keys`, then waits until `screen` has been drawn; the last screen drawn must be it.
void press(PtySession& session, const std::string& keys, const std::string& screen) {
    session.mark();
    session.send(keys);
    INFO("after " << keys.size() << " key(s): last drawn:\n" << last_screen(session.since_mark()));
    REQUIRE(session.wait_for(screen));
    session.drain(50);
    CHECK(last_screen(session.since_mark()) == screen);
}

}  // namespace

TEST_CASE("pager - Enter walks through exactly the screens of --screens, raw mode while it waits", "[pager]") {
    const auto screens = dumped_screens("1", 80, 24);
    PtySession session({"lesson", "1"}, plain, 24, 80);
    REQUIRE(session.wait_for(screens[0]));
    CHECK(raw(session.settings()));
    for (std::size_t i = 1; i < screens.size(); ++i) press(session, "\r", screens[i]);
    session.mark();
    session.send("\r");  // past the last screen: the summary, on the normal screen
    CHECK(session.wait_exit() == 0);
    CHECK_THAT(session.since_mark(), Catch::Contains("\033[?1049l") && Catch::Contains("Lesson 1 checked"));
    CHECK_THAT(session.since_mark(), Catch::Contains(" passed, 0 failed"));
    check_restored(session);
}

TEST_CASE("pager - space and arrows go forward, b and arrows go back, g N goes to step N", "[pager]") {
    const auto screens = dumped_screens("1", 100, 30);
    PtySession session({"lesson", "1"}, plain, 30, 100);
    REQUIRE(session.wait_for(screens[0]));
    press(session, " ", screens[1]);
    press(session, "b", screens[0]);
    press(session, "\033[C", screens[1]);  // →
    press(session, "\033[D", screens[0]);  // ←
    press(session, "\033[6~", screens[1]);  // Page Down
    const std::size_t step3 = first_screen_titled(screens, "── Step 3 ");
    press(session, "g3\r", screens[step3]);
    press(session, "b", screens[step3 - 1]);  // back to the last screen of step 2
    CHECK_THAT(screens[step3 - 1], Catch::Contains("── Step 2 "));
    // A step that does not exist: the screen stays, the status bar says why.
    session.mark();
    session.send("g99\r");
    REQUIRE(session.wait_for("There is no step 99"));
    // Esc cancels a step number being typed.
    press(session, "g4\033", screens[step3 - 1]);
    session.mark();
    session.send("q");
    CHECK(session.wait_exit() == 0);
    CHECK_THAT(session.since_mark(), Catch::Contains("Stopped at step 2 of lesson 1 (q)"));
    check_restored(session);
}

TEST_CASE("pager - --step starts at that step", "[pager]") {
    const auto screens = dumped_screens("1", 80, 24);
    PtySession session({"lesson", "1", "--step", "4"}, plain, 24, 80);
    REQUIRE(session.wait_for(screens[first_screen_titled(screens, "── Step 4 ")]));
    session.send("q");
    CHECK(session.wait_exit() == 0);
}

TEST_CASE("pager - Ctrl-D stops and says so instead of printing the rest", "[pager]") {
    const auto screens = dumped_screens("1", 80, 24);
    PtySession session({"lesson", "1"}, plain, 24, 80);
    REQUIRE(session.wait_for(screens[0]));
    session.mark();
    session.send("\x04");
    CHECK(session.wait_exit() == 0);
    const std::string after = session.since_mark();
    CHECK_THAT(after, Catch::Contains("End of input (Ctrl-D): stopped at step 0 of lesson 1"));
    CHECK_THAT(after, !Catch::Contains("Step 2 —"));  // nothing of the later steps
    check_restored(session);
}

TEST_CASE("pager - s goes to the step's last screen, then on; n and p go by step", "[pager]") {
    const auto screens = dumped_screens("6", 80, 24);
    PtySession session({"lesson", "6", "--step", "4"}, plain, 24, 80);
    const std::size_t step4 = first_screen_titled(screens, "── Step 4 "), step5 = first_screen_titled(screens, "── Step 5 ");
    const std::size_t step6 = first_screen_titled(screens, "── Step 6 ");
    REQUIRE(step5 > step4 + 1);  // step 4 has several screens: s has something to skip
    REQUIRE(session.wait_for(screens[step4]));
    press(session, "s", screens[step5 - 1]);  // the last screen of step 4
    press(session, "s", screens[step5]);      // already there: the next step
    press(session, "n", screens[step6]);      // the next step's first screen
    press(session, "p", screens[step5]);      // the previous step's first screen
    press(session, " ", screens[step5 + 1]);
    press(session, "p", screens[step4]);      // from inside step 5: step 4, its first screen
    session.mark();
    session.send("q");
    CHECK(session.wait_exit() == 0);
    CHECK_THAT(session.since_mark(), Catch::Contains("Stopped at step 4 of lesson 6 (q)"));
}

TEST_CASE("pager - the messages after q and Ctrl-D are wrapped to the width, in either language", "[pager][slow]") {
    for (const std::string& language : {std::string("en"), std::string("es")}) {
        for (const std::string& key : {std::string("q"), std::string("\x04")}) {
            PtySession session({"lesson", "7", "--lang", language, "--step", "4"}, plain, 24, 80);
            REQUIRE(session.wait_for("\033[?1049h"));
            session.drain(200);
            session.mark();
            session.send(key);
            CHECK(session.wait_exit() == 0);
            std::string after = session.since_mark();
            after = after.substr(after.find("\033[?1049l") + 8);  // what the normal screen shows
            INFO(language << ":\n" << after);
            CHECK_THAT(after, Catch::Contains(language == "en" ? "lesson 7" : "lección 7"));
            std::size_t start = 0;
            for (std::size_t end; (end = after.find('\n', start)) != std::string::npos; start = end + 1) {
                CHECK(attn::tutor::visible_width(after.substr(start, end - start)) <= 80);
            }
        }
    }
}

TEST_CASE("pager - Ctrl-C restores the terminal, then ends the program with SIGINT", "[pager]") {
    const auto screens = dumped_screens("2", 80, 24);
    PtySession session({"lesson", "2"}, plain, 24, 80);
    REQUIRE(session.wait_for(screens[0]));
    press(session, " ", screens[1]);
    REQUIRE(raw(session.settings()));
    session.mark();
    session.send("\x03");  // the terminal turns it into SIGINT
    CHECK(session.wait_exit() == 128 + SIGINT);
    CHECK_THAT(session.since_mark(), Catch::Contains("\033[?1049l"));  // back from the alternate screen
    check_restored(session);
}

TEST_CASE("pager - SIGTERM restores the terminal, then ends the program with SIGTERM", "[pager]") {
    const auto screens = dumped_screens("3", 80, 24);
    PtySession session({"lesson", "3"}, plain, 24, 80);
    REQUIRE(session.wait_for(screens[0]));
    REQUIRE(raw(session.settings()));
    ::kill(session.pid(), SIGTERM);
    CHECK(session.wait_exit() == 128 + SIGTERM);
    check_restored(session);
}

TEST_CASE("pager - a resized window gets its own screens", "[pager]") {
    const auto small = dumped_screens("1", 80, 24);
    const auto large = dumped_screens("1", 100, 30);
    PtySession session({"lesson", "1"}, plain, 24, 80);
    REQUIRE(session.wait_for(small[0]));
    session.mark();
    session.resize(30, 100);
    REQUIRE(session.wait_for(large[0]));
    session.send("q");
    CHECK(session.wait_exit() == 0);
}

TEST_CASE("pager - the background colour is asked of the terminal when nothing else says it", "[pager]") {
    for (const bool light : {true, false}) {
        PtySession session({"lesson", "1"}, {}, 24, 80);
        REQUIRE(session.wait_for("\033]11;?"));
        // The terminal's answer, then its Device Attributes.
        session.send(light ? "\033]11;rgb:ffff/ffff/ffff\033\\\033[?62;c" : "\033]11;rgb:0000/0000/0000\033\\\033[?62;c");
        const std::string heading = light ? "\033[1;38;5;18m" : "\033[1;96m";  // the rule of the introduction
        INFO("light " << light);
        CHECK(session.wait_for(heading + "── Introduction"));
        session.send("q");
        CHECK(session.wait_exit() == 0);
        check_restored(session);
    }
    // No answer at all: a dark background after a short wait.
    PtySession silent({"lesson", "1"}, {}, 24, 80);
    CHECK(silent.wait_for("\033[1;96m── Introduction"));
    silent.send("q");
    CHECK(silent.wait_exit() == 0);
    // --light is not asked about.
    PtySession told({"lesson", "1", "--light"}, {}, 24, 80);
    CHECK(told.wait_for("\033[1;38;5;18m── Introduction"));
    CHECK_THAT(told.since_mark(), !Catch::Contains("\033]11;?"));
    told.send("q");
    CHECK(told.wait_exit() == 0);
}

TEST_CASE("pager - Ctrl-Z gives the terminal back to the shell, fg takes it again", "[pager]") {
    // Under an interactive shell, so that the lesson is a job that can be stopped (without line
    // editing, which would put the terminal in its own raw mode at the prompt).
    const auto screens = dumped_screens("1", 80, 24);
    PtySession shell("/bin/bash", {"--norc", "--noprofile", "--noediting", "-i"}, {{"PS1", "$ "}, {"NO_COLOR", "1"}, {"COLORFGBG", "15;0"}}, 24, 80);
    REQUIRE(shell.wait_for("$ "));
    shell.mark();
    shell.send(PtySession::attn_path() + " lesson 1\n");
    REQUIRE(shell.wait_for(screens[0]));
    REQUIRE(raw(shell.settings()));
    shell.mark();
    shell.send("\x1a");
    REQUIRE(shell.wait_for("Stopped"));
    CHECK_THAT(shell.since_mark(), Catch::Contains("\033[?1049l"));
    shell.drain(100);
    check_restored(shell);
    shell.mark();
    shell.send("fg\n");
    REQUIRE(shell.wait_for(screens[0]));  // drawn again
    CHECK(raw(shell.settings()));
    press(shell, " ", screens[1]);  // and it still answers keys
    shell.mark();
    shell.send("q");
    CHECK(shell.wait_for("Stopped at step 0 of lesson 1 (q)"));
    shell.send("exit\n");
    CHECK(shell.wait_exit() == 0);
}
