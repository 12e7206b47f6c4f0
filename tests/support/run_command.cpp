#include "support/run_command.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "support/temp_dir.hpp"

namespace attn::testing {

namespace {

std::string slurp(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// Waits for `child`; kills it when `timeout_seconds` (> 0) pass first. Returns its wait status.
int wait_for(pid_t child, int timeout_seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    int status = 0;
    while (true) {
        const pid_t done = waitpid(child, &status, timeout_seconds > 0 ? WNOHANG : 0);
        if (done == child) return status;
        if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
        if (timeout_seconds > 0 && std::chrono::steady_clock::now() > deadline) {
            kill(child, SIGKILL);
            while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
            }
            return status;
        }
        if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace

pid_t start_command(const std::string& program, const std::vector<std::string>& arguments,
                    const std::map<std::string, std::string>& environment, const std::string& out_path,
                    const std::string& err_path) {
    const pid_t child = fork();
    if (child < 0) throw std::runtime_error("fork failed");
    if (child == 0) {
        const int in = open("/dev/null", O_RDONLY);
        const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(in, 0);
        dup2(out, 1);
        dup2(err, 2);
        for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
        // As a shell starts a program in the foreground, even when the suite itself runs as a
        // background job (which ignores SIGINT): the tests that send signals see what a user sees.
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        std::vector<char*> argv;
        argv.push_back(const_cast<char*>(program.c_str()));
        for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
        argv.push_back(nullptr);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    return child;
}

CommandResult run_command(const std::string& program, const std::vector<std::string>& arguments,
                          const std::map<std::string, std::string>& environment, int timeout_seconds) {
    TempDir capture;
    const std::string out_path = capture.path() + "/out", err_path = capture.path() + "/err";
    const int status = wait_for(start_command(program, arguments, environment, out_path, err_path), timeout_seconds);
    CommandResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = slurp(out_path);
    result.err = slurp(err_path);
    return result;
}

std::string attn_program() {
#ifndef ATTN_CLI_PATH
    throw std::runtime_error("the tests were built without the attn CLI (ATTN_BUILD_CLI=OFF)");
#else
    return ATTN_CLI_PATH;
#endif
}

CommandResult run_attn(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment,
                       int timeout_seconds) {
    std::map<std::string, std::string> with_defaults = environment;
    with_defaults.emplace("NO_COLOR", "1");
    // English unless a test asks for another language: the suite's expectations do not depend on
    // the locale of the machine that runs it (tutor/language.hpp).
    with_defaults.emplace("ATTN_LANG", "en");
    return run_command(attn_program(), arguments, with_defaults, timeout_seconds);
}

pid_t finished_pid() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    return child;
}

bool no_abort(const CommandResult& result) { return result.exit_code < 128 && result.exit_code != 3; }

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace attn::testing
