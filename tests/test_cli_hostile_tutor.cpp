// Hostile inputs, second round (issue 24), where the tutor meets them: the exercise's own files
// (progress, hints) as FIFOs, devices or escape sequences, folder names with escape sequences on
// every path that prints them, a damaged catalogue beside the program, and the terminal in a pty:
// Ctrl-S in the pager, and Ctrl-C, SIGTERM or Ctrl-Z while the background colour is asked.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/pty_session.hpp"
#include "support/temp_dir.hpp"
#include "tutor/catalogue_check.hpp"

namespace {

using attn::testing::attn_program;
using attn::testing::expect_refused;
using attn::testing::has_control_byte;
using attn::testing::hostile_time_limit;
using attn::testing::PtySession;
using attn::testing::read_file;
using attn::testing::run_attn;
using attn::testing::run_command;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD, what printable_text puts for a control byte

// A source tree with one exercise, lessons/01-dot-product's, in a folder named `folder`, with
// `hints` as its hints.md (no file when empty) and the student's file when `student` is not empty.
std::string exercise_tree(const TempDir& dir, const std::string& folder, const std::string& hints,
                          const std::string& student = "") {
    const std::string exercise = dir.path() + "/source/lessons/" + folder + "/exercise";
    fs::create_directories(exercise);
    write_file(exercise + "/stub.cpp", "// the stub\n");
    if (!hints.empty()) write_file(exercise + "/hints.md", hints);
    if (!student.empty()) write_file(exercise + "/exercise.cpp", student);
    fs::create_directories(dir.path() + "/state");
    return exercise;
}

std::map<std::string, std::string> tree_environment(const TempDir& dir) {
    return {{"ATTN_SOURCE_DIR", dir.path() + "/source"}, {"ATTN_STATE_DIR", dir.path() + "/state"}, {"ATTN_LANG", "en"}};
}

void check_restored(const PtySession& session) {
    const termios now = session.settings();
    CHECK(now.c_lflag == session.initial_settings().c_lflag);
    CHECK(now.c_iflag == session.initial_settings().c_iflag);
    CHECK((now.c_lflag & ECHO));
    CHECK((now.c_lflag & ICANON));
}

// True once the process is stopped (state T in /proc/PID/stat), within a minute.
bool stopped(pid_t pid) {
    for (int attempt = 0; attempt < 6000; ++attempt) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const std::size_t close = text.rfind(')');
        if (close != std::string::npos && text.size() > close + 2 && text[close + 2] == 'T') return true;
        ::usleep(10000);
    }
    return false;
}

// The one child of `parent` (the job a shell started), or -1.
pid_t child_of(pid_t parent) {
    const std::string path = "/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children";
    for (int attempt = 0; attempt < 6000; ++attempt) {
        std::ifstream children(path);
        pid_t child = -1;
        if (children >> child) return child;
        ::usleep(10000);
    }
    return -1;
}

}  // namespace

TEST_CASE("hostile2 - the progress file as a FIFO or a device is refused, never read for ever", "[cli][hostile]") {
    TempDir dir;
    exercise_tree(dir, "01-dot-product", "## Hint 1\n\nLook at the scores.\n");
    const auto environment = tree_environment(dir);
    const std::string progress = dir.path() + "/state/progress";
    REQUIRE(::mkfifo(progress.c_str(), 0600) == 0);
    expect_refused({"progress"}, {"the progress file " + progress, "a FIFO"}, environment);
    expect_refused({"exercise", "1", "--hint"}, {"the progress file " + progress, "a FIFO"}, environment);
    fs::remove(progress);
    fs::create_symlink("/dev/urandom", progress);
    expect_refused({"progress"}, {"the progress file " + progress, "a character device"}, environment);
}

TEST_CASE("hostile2 - hints.md as a FIFO is refused; its escape sequences never reach the terminal", "[cli][hostile]") {
    TempDir dir;
    const std::string exercise = exercise_tree(dir, "01-dot-product", "");
    const auto environment = tree_environment(dir);
    REQUIRE(::mkfifo((exercise + "/hints.md").c_str(), 0600) == 0);
    expect_refused({"exercise", "1", "--hint"}, {"the hints file " + exercise + "/hints.md", "a FIFO"}, environment);
    fs::remove(exercise + "/hints.md");
    write_file(exercise + "/hints.md", "## Hint 1\n\nCompare \033]0;owned\007the \033[2Jscores.\n");
    const auto r = run_attn({"exercise", "1", "--hint"}, environment, hostile_time_limit);
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Compare " + replacement + "]0;owned" + replacement + "the " + replacement + "[2Jscores."));
    CHECK_FALSE(has_control_byte(r.out));
}

TEST_CASE("hostile2 - exercise folder names and reset paths are printed sanitised", "[cli][hostile]") {
    TempDir dir;
    const std::string folder = "01-dot\033[31mproduct";
    exercise_tree(dir, folder, "## Hint 1\n\nA hint.\n", "// the student's work\n");
    const auto environment = tree_environment(dir);
    const auto progress = run_attn({"progress"}, environment, hostile_time_limit);
    INFO("progress: " << progress.out << progress.err);
    CHECK(progress.exit_code == 0);
    CHECK_THAT(progress.out, Catch::Contains("dot" + replacement + "[31mproduct"));
    CHECK_FALSE(has_control_byte(progress.out));
    const auto reset = run_attn({"exercise", "1", "--reset"}, environment, hostile_time_limit);
    INFO("reset: " << reset.out << reset.err);
    CHECK(reset.exit_code == 0);
    CHECK_THAT(reset.out, Catch::Contains("Your file was saved as"));
    CHECK_THAT(reset.out, Catch::Contains("Restored the stub: " + dir.path() + "/source/lessons/01-dot" + replacement + "[31mproduct"));
    CHECK_FALSE(has_control_byte(reset.out));
    CHECK_FALSE(has_control_byte(reset.err));
}

TEST_CASE("hostile2 - the --lang es fallback note names a lesson folder sanitised", "[cli][hostile]") {
    TempDir dir;
    const std::string folder = dir.path() + "/lessons/09-a\033]0;x\007b";
    fs::create_directories(folder);
    write_file(folder + "/README.md", "# A lesson without a Spanish edition\n\nSome prose.\n");
    const auto r = run_attn({"--lessons-dir", dir.path() + "/lessons", "list", "--lang", "es"}, {}, hostile_time_limit);
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("09-a" + replacement + "]0;x" + replacement + "b/README.es.md"));
    CHECK_FALSE(has_control_byte(r.err));
    CHECK_FALSE(has_control_byte(r.out));
}

TEST_CASE("hostile2 - a damaged catalogue beside the program is ignored with one note", "[cli][hostile]") {
    // A copy of attn with a locale/ folder of its own: the catalogue it finds beside itself.
    TempDir dir;
    const std::string program = dir.path() + "/attn", catalogue = dir.path() + "/locale/es/LC_MESSAGES/attn.mo";
    fs::copy_file(attn_program(), program);
    fs::create_directories(fs::path(catalogue).parent_path());
    const std::string built = read_file((fs::path(attn_program()).parent_path() / "locale/es/LC_MESSAGES/attn.mo").string());
    REQUIRE(built.size() > 28);
    REQUIRE_FALSE(attn::tutor::catalogue_problem(built));  // the catalogue the build made passes
    auto word = [](std::string bytes, std::size_t at, std::uint32_t value) {
        for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
        return bytes;
    };
    auto word_at = [&built](std::size_t at) {
        std::uint32_t value = 0;
        for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(built[at + i]);
        return value;
    };
    const std::uint32_t originals = word_at(12);  // the originals' table: (length, offset) pairs
    const std::vector<std::pair<std::string, std::string>> damaged = {
        {word(built, 8, 0x7fffffff), "it claims 2147483647 strings"},                 // the string count
        {word(built, 12, 0xfffffff0), "the originals' table lies outside the file"},  // a table's offset
        {word(built, originals + 4, 0x7ffffff0), "string 0 of the originals' table runs past the end"},
    };
    for (const auto& [bytes, fragment] : damaged) {
        INFO(fragment);
        write_file(catalogue, bytes);
        const auto r = run_command(program, {"list", "--lang", "es"}, {{"NO_COLOR", "1"}}, hostile_time_limit);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.err, Catch::Contains("attn: note: the catalogue " + catalogue + " is damaged (" + fragment));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
    write_file(catalogue, built);
    const auto sound = run_command(program, {"list", "--lang", "es"}, {{"NO_COLOR", "1"}}, hostile_time_limit);
    CHECK(sound.exit_code == 0);
    CHECK(sound.err.empty());
}

TEST_CASE("hostile2 - pager: raw mode turns flow control off, so Ctrl-S then q ends it", "[pager][hostile]") {
    PtySession session({"lesson", "1"}, {{"NO_COLOR", "1"}, {"COLORFGBG", "15;0"}}, 24, 80);
    REQUIRE(session.wait_for("\033[?1049h"));  // the pager has the terminal
    REQUIRE((session.initial_settings().c_iflag & IXON));
    CHECK_FALSE((session.settings().c_iflag & IXON));
    session.send("\x13");  // Ctrl-S: with IXON on, the terminal would stop the pager's output here
    session.send("q");
    CHECK(session.wait_exit() == 0);
    check_restored(session);
}

TEST_CASE("hostile2 - pager: Ctrl-C, SIGTERM and Ctrl-Z while the background colour is asked restore the terminal",
          "[pager][hostile]") {
    // Colour on and no COLORFGBG: attn asks the terminal and waits up to 150 ms for an answer
    // that this terminal never gives. Each signal arrives during that wait.
    SECTION("Ctrl-C") {
        PtySession session({"lesson", "1"}, {}, 24, 80);
        REQUIRE(session.wait_for("\033]11;?"));
        session.send("\x03");
        CHECK(session.wait_exit() == 128 + SIGINT);
        check_restored(session);
    }
    SECTION("SIGTERM") {
        PtySession session({"lesson", "1"}, {}, 24, 80);
        REQUIRE(session.wait_for("\033]11;?"));
        ::kill(session.pid(), SIGTERM);
        CHECK(session.wait_exit() == 128 + SIGTERM);
        check_restored(session);
    }
    SECTION("Ctrl-Z") {
        // Under dash with job control (set -m): the lesson is a job that can be stopped, and dash,
        // unlike bash, leaves the terminal as the stopped job left it. It then waits in `read`.
        PtySession session("/bin/sh", {"-c", "set -m; \"$0\" lesson 1; read answer", PtySession::attn_path()}, {}, 24, 80);
        REQUIRE(session.wait_for("\033]11;?"));
        const pid_t lesson = child_of(session.pid());
        REQUIRE(lesson > 0);
        session.send("\x1a");
        REQUIRE(stopped(lesson));
        check_restored(session);  // given back by attn's handler before it stopped
        ::kill(lesson, SIGKILL);
        session.send("\n");
        CHECK(session.wait_exit() == 0);
        check_restored(session);
    }
}

TEST_CASE("hostile2 - every cut of the built catalogue is refused before gettext sees it", "[language][hostile]") {
    // A catalogue cut anywhere loses a table, a string or its NUL; none may pass the check.
    const std::string built = read_file((fs::path(attn_program()).parent_path() / "locale/es/LC_MESSAGES/attn.mo").string());
    REQUIRE(built.size() > 28);
    std::size_t passed = 0;
    for (std::size_t size = 0; size < built.size(); ++size) passed += !attn::tutor::catalogue_problem(built.substr(0, size));
    CHECK(passed == 0);
    CHECK_FALSE(attn::tutor::catalogue_problem(built));
}
