// src/exercises/isolation.hpp — the walls around the student's program: bubblewrap's namespaces
// where user namespaces work, else the fallback.
//
// Why bubblewrap (Debian's `bubblewrap`, what Flatpak uses): it is a small, audited program made
// for exactly this — new PID, mount, network, IPC and UTS namespaces, the root file system bound
// read-only with a scratch tmpfs, a new session without a controlling terminal, capabilities
// dropped, and everything in the sandbox killed when its first process ends or we die. Writing
// that ourselves would be several hundred lines of clone/mount/pivot_root, each a chance of a hole.
// Inside, the program installs its own seccomp filter before the student's code runs
// (student/seccomp_first.cpp): no exec, no signal or ptrace to another process.
//
// Where user namespaces are not available (some containers) bwrap cannot start; then the program
// runs as a plain child in its own session, in a scratch folder, with the same seccomp filter and
// limits, and `attn` makes itself the subreaper of everything the program starts, so that every
// descendant is killed and reaped after the run (sweep_descendants). The file system is not
// read-only then: that is the fallback's documented limit. ATTN_SANDBOX=fallback forces it (tests).
//
//   const Isolation& walls = isolation();                 // probed once per process
//   if (!walls.namespaces) std::cerr << walls.why_not;    // said once (Sandbox does)
//   argv = isolated_arguments(walls, program, environment);
#pragma once

#include <string>
#include <vector>

namespace attn::exercises {

struct Isolation {
    bool namespaces = false;  // bwrap works here
    std::string bwrap;        // its path, when found
    std::string why_not;      // !namespaces: what failed, one line
};

/// Probed once per process: bwrap found (CMake's path, else PATH) and able to start a sandbox.
const Isolation& isolation();

/// The command that runs `program` in the sandbox (bwrap's options, then the program), with
/// exactly `environment` ("NAME=value") and /tmp as its scratch folder and working directory.
std::vector<std::string> isolated_arguments(const Isolation& walls, const std::string& program,
                                            const std::vector<std::string>& environment);

/// The fallback: makes this process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER).
void become_subreaper();

/// The fallback: kills (SIGKILL) and reaps every child of this process, and what they leave
/// behind, until none is left. Called only when no other child of ours runs.
void sweep_descendants();

}  // namespace attn::exercises
