// Everything a student's program must not get through, then the right answer: writes outside its
// scratch folder (the build, the repository's root, $HOME), the checker's terminal (/dev/tty, its
// parent's standard output through /proc), signals and ptrace to its parent, exec
// (std::system of the library's own `attn`), the network. What got through is thrown as the
// case's error; when nothing does, the run passes. Files it managed to write are named
// ".written-by-student" (the test removes them).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdexcept>
#include <string>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exercise.hpp"

namespace {

std::string got_through;

void note(bool succeeded, const std::string& what) {
    if (succeeded) got_through += (got_through.empty() ? "" : "; ") + what;
}

bool write_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return false;
    const bool wrote = ::write(fd, "x\n", 2) == 2;
    ::close(fd);
    return wrote;
}

void reach_outside() {
    got_through.clear();
    char exe[4096] = {};
    const ssize_t length = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string build = std::string(exe, length > 0 ? std::size_t(length) : 0);
    for (int up = 0; up < 4; ++up) build = build.substr(0, build.rfind('/'));  // <build>/exercises/runs/run-X/program
    note(write_file(build + "/exercises/.written-by-student"), "wrote in the build");
    note(write_file(build + "/../.written-by-student"), "wrote at the repository's root");
    if (const passwd* user = ::getpwuid(::getuid())) note(write_file(std::string(user->pw_dir) + "/.written-by-student"), "wrote in $HOME");
    const int tty = ::open("/dev/tty", O_WRONLY);
    note(tty >= 0 && ::write(tty, "\x1b[2JExercise 1 passes.\n", 23) > 0, "wrote to /dev/tty");
    // Under bubblewrap the parent is the sandbox's init, whose standard output is the captured
    // pipe: what arrives there is shown escaped, so it is not counted; the test checks that no raw
    // escape reaches attn's output.
    const int out = ::open(("/proc/" + std::to_string(::getppid()) + "/fd/1").c_str(), O_WRONLY);
    if (out >= 0) (void)!::write(out, "\x1b[2J", 4);
    note(::kill(::getppid(), SIGSTOP) == 0, "stopped its parent");
    note(::ptrace(PTRACE_ATTACH, ::getppid(), nullptr, nullptr) == 0, "attached to its parent");
    note(std::system((build + "/attn --version > /dev/null 2>&1").c_str()) == 0, "ran build/attn");
    const int network = ::socket(AF_INET, SOCK_STREAM, 0);
    note(network >= 0, "opened a network socket");
    if (!got_through.empty()) throw std::runtime_error("got through: " + got_through);
}

}  // namespace

#define PLANTED_BEFORE_ANSWER reach_outside
#include "../independent/dot-product.cpp"
