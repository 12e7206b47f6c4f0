// `attn train copy` while it runs, through the real program: the progress line redrawn on a
// terminal and never in a pipe; Ctrl-C, SIGTERM and kill -9 in the middle of a run, and what they
// leave on disk.
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "attn/npy.hpp"
#include "attn/npz.hpp"
#include "support/hostile_checks.hpp"
#include "support/pty_session.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "tutor/terminal/terminal.hpp"

using attn::testing::hostile_time_limit;
using attn::testing::PtySession;
using attn::testing::count_of;
using attn::testing::run_attn;

namespace {

// Two epochs of three steps: a model small enough for well under a second.
const std::vector<std::string> tiny = {"train", "copy", "--d-model", "8", "--heads", "2", "--layers", "1",
                                       "--d-ff", "16", "--batch", "4", "--steps", "3", "--epochs", "2"};

// attn compute transformer reads a checkpoint: its output for a small src and tgt is written.
void check_compute_reads(const std::string& model, const std::string& folder) {
    const std::string in = folder + "/in", out = folder + "/out";
    std::filesystem::create_directory(in);
    attn::write_npy(in + "/src.npy", {1, 3, 8}, std::vector<double>(24, 0.25), attn::NpyDtype::float64);
    attn::write_npy(in + "/tgt.npy", {1, 2, 8}, std::vector<double>(16, -0.5), attn::NpyDtype::float64);
    const auto computed = run_attn({"compute", "transformer", "--weights", model, "--in", in, "--out", out});
    INFO(computed.err);
    CHECK(computed.exit_code == 0);
    CHECK(std::filesystem::exists(out + "/output.npy"));
    std::filesystem::remove_all(in);
    std::filesystem::remove_all(out);
}

}  // namespace

TEST_CASE("cli train copy - on a terminal the progress line is redrawn in place; in a pipe nothing is", "[cli][train][slow]") {
    PtySession session(tiny, {}, 24, 100);
    REQUIRE(session.wait_exit() == 0);
    const std::string drawn = session.since_mark();
    INFO(drawn);
    // Every epoch draws its first and its last step; each drawing starts at the line's beginning
    // and erases what an earlier one left.
    CHECK_THAT(drawn, Catch::Contains("\r\033[Kepoch 1/2  step 1/3  loss ") && Catch::Contains("\r\033[Kepoch 1/2  step 3/3  loss ") &&
                          Catch::Contains("\r\033[Kepoch 2/2  step 3/3  loss "));
    // The line is erased before each epoch's own line, which is printed whole.
    CHECK_THAT(drawn, Catch::Contains("\r\033[Kepoch 1/2  loss ") && Catch::Contains("\r\033[Kepoch 2/2  loss "));
    CHECK(count_of(drawn, "% of 100 fresh sequences") == 2);

    // NO_COLOR and TERM=dumb keep the terminal's bytes as they are written: nothing redrawn.
    for (const auto& environment : {std::map<std::string, std::string>{{"NO_COLOR", "1"}},
                                    std::map<std::string, std::string>{{"TERM", "dumb"}}}) {
        PtySession plain(tiny, environment, 24, 100);
        REQUIRE(plain.wait_exit() == 0);
        INFO(plain.since_mark());
        CHECK(plain.since_mark().find('\r') == std::string::npos);
        CHECK(plain.since_mark().find("step 3/3") == std::string::npos);
        CHECK(count_of(plain.since_mark(), "% of 100 fresh sequences") == 2);
    }
    const auto piped = run_attn(tiny, {{"NO_COLOR", ""}, {"TERM", "xterm-256color"}}, hostile_time_limit);
    CHECK(piped.exit_code == 0);
    CHECK(piped.err.empty());
    CHECK(piped.out.find('\r') == std::string::npos);
}

TEST_CASE("cli train copy - the progress line fits a narrow terminal and speaks Spanish", "[cli][train][language][slow]") {
    auto arguments = tiny;
    arguments.insert(arguments.end(), {"--lang", "es"});
    PtySession session(arguments, {}, 24, 40);
    REQUIRE(session.wait_exit() == 0);
    const std::string drawn = session.since_mark();
    INFO(drawn);
    // "época 1/2  paso 3/3  pérdida 2.3456  0.1 s" is 42 columns: cut to 39, the last column left free.
    const auto at = drawn.find("\r\033[Képoca 1/2  paso 3/3  pérdida ");
    REQUIRE(at != std::string::npos);
    const std::string line = drawn.substr(at + 4, drawn.find('\r', at + 4) - (at + 4));
    CHECK(attn::tutor::visible_width(line) == 39);
}

namespace {

// Starts a run with its output in files; returns its pid.
pid_t start_training(const std::vector<std::string>& arguments, const std::string& out, const std::string& err) {
    return attn::testing::start_command(attn::testing::attn_program(), arguments, {{"NO_COLOR", "1"}}, out, err);
}

// Waits until `text` is in the file (what the running program printed so far); false when the
// program ends first or after two minutes, the guard against a hang.
bool wait_for_text(pid_t pid, const std::string& path, const std::string& text) {
    for (int i = 0; i < 120 * 200; ++i) {
        if (attn::testing::read_file(path).find(text) != std::string::npos) return true;
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) return attn::testing::read_file(path).find(text) != std::string::npos;
        ::usleep(5000);
    }
    return false;
}

int exit_code_of(pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A run of the tiny model with epochs enough to last until a signal stops it.
std::vector<std::string> endless(std::vector<std::string> extra) {
    std::vector<std::string> arguments = {"train", "copy", "--d-model", "8", "--heads", "2", "--layers", "1", "--d-ff",
                                          "16", "--batch", "4", "--steps", "20", "--epochs", "10000"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return arguments;
}

// The names of the files in a folder.
std::set<std::string> names_in(const std::string& folder) {
    std::set<std::string> names;
    for (const auto& [name, contents] : attn::testing::snapshot(folder)) names.insert(name);
    return names;
}

// The number of steps in a --log file.
std::size_t logged_steps(const std::string& json) { return count_of(json, "{\"step\": "); }

}  // namespace

TEST_CASE("cli train copy - Ctrl-C and SIGTERM stop after the step in progress and keep the model and the log",
          "[cli][train][slow]") {
    for (const int signal_number : {SIGINT, SIGTERM}) {
        attn::testing::TempDir dir, files;
        const std::string model = files.path() + "/model.npz", log = files.path() + "/log.json";
        const std::string out = dir.path() + "/out", err = dir.path() + "/err";
        const pid_t pid = start_training(endless({"--save", model, "--log", log}), out, err);
        REQUIRE(wait_for_text(pid, out, "epoch 1/10000  loss"));
        ::kill(pid, signal_number);
        const int code = exit_code_of(pid);
        const std::string said = attn::testing::read_file(err);
        INFO(attn::testing::read_file(out) << said);
        CHECK(code == 128 + signal_number);
        // "Stopped by Ctrl-C after 37 training steps (epoch 2, step 17 of 20)."
        const std::regex stopped("Stopped by " + std::string(signal_number == SIGINT ? "Ctrl-C" : "SIGTERM") +
                                 " after ([0-9]+) training steps \\(epoch ([0-9]+), step ([0-9]+) of 20\\)\\.");
        std::smatch found;
        REQUIRE(std::regex_search(said, found, stopped));
        const std::size_t steps = std::stoul(found[1]);
        CHECK(steps >= 20);  // the first epoch's 20 at least
        CHECK(steps == (std::stoul(found[2]) - 1) * 20 + std::stoul(found[3]));
        CHECK_THAT(said, Catch::Contains("Kept: " + model + " (the model after step " + std::to_string(steps) + "), " + log +
                                         " (" + std::to_string(steps) + " steps)."));
        // Both files whole, the model readable by attn and by attn compute transformer, the log the steps said.
        CHECK(names_in(files.path()) == std::set<std::string>{"model.npz", "log.json"});
        CHECK(logged_steps(attn::testing::read_file(log)) == steps);
        const auto members = attn::read_npz(model, [](const std::string&) { return attn::NpyAccept::floats_bools_integers; });
        CHECK(members.size() == 34 + 4 + 1);
        check_compute_reads(model, files.path());
        auto resumed = tiny;
        resumed.insert(resumed.end(), {"--init", model});
        CHECK(run_attn(resumed, {}, hostile_time_limit).exit_code == 0);
    }
}

TEST_CASE("cli train copy - killed outright, the last epoch's model and log are whole", "[cli][train][slow]") {
    attn::testing::TempDir dir, files;
    const std::string model = files.path() + "/model.npz", log = files.path() + "/log.json";
    const std::string out = dir.path() + "/out";
    const pid_t pid = start_training(endless({"--save", model, "--log", log}), out, dir.path() + "/err");
    REQUIRE(wait_for_text(pid, out, "epoch 2/10000  loss"));
    ::kill(pid, SIGKILL);
    CHECK(exit_code_of(pid) == 128 + SIGKILL);
    // Epoch 2's files at least (a later epoch's when the kill came after its write).
    const std::size_t steps = logged_steps(attn::testing::read_file(log));
    CHECK(steps % 20 == 0);
    CHECK(steps >= 40);
    const auto members = attn::read_npz(model, [](const std::string&) { return attn::NpyAccept::floats_bools_integers; });
    CHECK(members.size() == 34 + 4 + 1);
    check_compute_reads(model, files.path());
}

TEST_CASE("cli train copy - stopped with no --save, nothing is written", "[cli][train][slow]") {
    attn::testing::TempDir dir;
    const std::string out = dir.path() + "/out", err = dir.path() + "/err";
    const pid_t pid = start_training(endless({}), out, err);
    REQUIRE(wait_for_text(pid, out, "attn train copy:"));
    ::kill(pid, SIGINT);
    CHECK(exit_code_of(pid) == 130);
    const std::string said = attn::testing::read_file(err);
    INFO(said);
    CHECK_THAT(said, Catch::Contains("Stopped by Ctrl-C ") &&
                         (Catch::Contains("before the first training step; nothing was written.") ||
                          Catch::Contains("Nothing was written: give --save model.npz")));
    CHECK(names_in(dir.path()) == std::set<std::string>{"out", "err"});
}

TEST_CASE("cli train copy - a stop is reported in Spanish", "[cli][train][language][slow]") {
    attn::testing::TempDir dir;
    const std::string out = dir.path() + "/out", err = dir.path() + "/err";
    const std::string log = dir.path() + "/log.json";
    const pid_t pid = start_training(endless({"--log", log, "--lang", "es"}), out, err);
    REQUIRE(wait_for_text(pid, out, "época 1/10000"));
    ::kill(pid, SIGINT);
    CHECK(exit_code_of(pid) == 130);
    const std::string said = attn::testing::read_file(err);
    INFO(said);
    CHECK_THAT(said, Catch::Contains("Detenido con Ctrl-C tras ") && Catch::Contains("Se conserva: " + log + " ("));
}
