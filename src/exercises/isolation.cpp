#include "isolation.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.hpp"

#ifndef ATTN_BWRAP_PROGRAM
#define ATTN_BWRAP_PROGRAM ""
#endif

namespace attn::exercises {

namespace {

bool executable(const std::string& path) {
    struct stat info {};
    return !path.empty() && ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// CMake's path when it is still there, else the first bwrap on PATH.
std::string find_bwrap() {
    if (executable(ATTN_BWRAP_PROGRAM)) return ATTN_BWRAP_PROGRAM;
    const char* path = std::getenv("PATH");
    std::istringstream folders(path ? path : "/usr/bin:/bin");
    for (std::string folder; std::getline(folders, folder, ':');) {
        if (!folder.empty() && executable(folder + "/bwrap")) return folder + "/bwrap";
    }
    return "";
}

std::string first_line(const std::string& text) {
    const std::string line = text.substr(0, text.find('\n'));
    return line.empty() ? "no message" : line;
}

Isolation probe() {
    Isolation walls;
    const char* forced = std::getenv("ATTN_SANDBOX");
    if (forced != nullptr && std::string(forced) == "fallback") {
        walls.why_not = "ATTN_SANDBOX=fallback is set";
        return walls;
    }
    walls.bwrap = find_bwrap();
    if (walls.bwrap.empty()) {
        walls.why_not = "bwrap is not installed (Debian: bubblewrap)";
        return walls;
    }
    const CapturedRun run = run_captured(isolated_arguments(walls, "true", {"PATH=/usr/bin:/bin"}), 20.0);
    walls.namespaces = run.exit_code == 0;
    if (!walls.namespaces) {
        walls.why_not = run.timed_out ? "bwrap did not start within 20 s"
                                      : "bwrap cannot create namespaces here: " + printable(first_line(run.output));
    }
    return walls;
}

// The children of this process (every thread's), from /proc.
std::vector<pid_t> own_children() {
    std::vector<pid_t> children;
    DIR* tasks = ::opendir("/proc/self/task");
    if (tasks == nullptr) return children;
    while (const dirent* task = ::readdir(tasks)) {
        if (task->d_name[0] == '.') continue;
        std::ifstream list(std::string("/proc/self/task/") + task->d_name + "/children");
        for (long pid; list >> pid;) children.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(tasks);
    return children;
}

}  // namespace

const Isolation& isolation() {
    static const Isolation walls = probe();
    return walls;
}

std::vector<std::string> isolated_arguments(const Isolation& walls, const std::string& program,
                                            const std::vector<std::string>& environment) {
    std::vector<std::string> arguments = {walls.bwrap,
                                          "--unshare-all",      // user (when needed), PID, mount, network, IPC, UTS, cgroup
                                          "--die-with-parent",  // we die: the sandbox dies
                                          "--new-session",      // no controlling terminal: /dev/tty cannot be opened
                                          "--cap-drop", "ALL",
                                          "--ro-bind", "/", "/",  // the repository, the build, $HOME: read-only
                                          "--dev", "/dev",        // a minimal /dev of its own (no host terminals)
                                          "--proc", "/proc",      // this PID namespace's processes only
                                          "--tmpfs", "/tmp",      // the scratch folder
                                          "--tmpfs", "/run",      // no host sockets (a Unix socket connects on a read-only mount)
                                          "--chdir", "/tmp",
                                          "--clearenv"};
    for (const auto& entry : environment) {
        const auto equals = entry.find('=');
        arguments.insert(arguments.end(), {"--setenv", entry.substr(0, equals), entry.substr(equals + 1)});
    }
    arguments.insert(arguments.end(), {"--", program});
    return arguments;
}

void become_subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }

void sweep_descendants() {
    // Killing a child hands its own children to us (we are their subreaper): repeat until none is
    // left. A process being killed cannot fork, so each round leaves fewer.
    for (int round = 0; round < 1000; ++round) {
        const std::vector<pid_t> children = own_children();
        if (children.empty()) return;
        for (const pid_t child : children) ::kill(child, SIGKILL);
        for (const pid_t child : children) {
            while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
            }
        }
    }
}

}  // namespace attn::exercises
