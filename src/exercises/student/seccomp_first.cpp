// The student's program's first act: a seccomp filter (libseccomp), installed before any of the
// student's code can run.
//
// Why here and this early: the filter must hold for the whole program, yet the program itself has
// to be started by exec. A .preinit_array entry runs before every constructor (.init_array), so
// before any static initialiser of the student's file; CMake lists this file first among the
// executable's sources, so its entry comes first among the program's own. Only the sanitizers'
// runtime, which the compiler driver links ahead of everything, starts before it.
//
// What it refuses (EPERM), whatever isolation surrounds the program (docs/architecture.md):
//   - exec of anything (execve, execveat): no `std::system("build/attn compute …")`, no shell;
//   - signals to another process (kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo unless the target
//     is this program itself; tkill, pidfd_send_signal, pidfd_open, pidfd_getfd always): the checker
//     can be neither stopped nor killed;
//   - reading or writing another process (ptrace, process_vm_readv/writev, process_madvise);
//   - remounting, new namespaces, chroot (mount, umount2, pivot_root, chroot, unshare, setns);
//   - typing into a terminal (ioctl TIOCSTI) and sockets other than AF_UNIX (no network).
// Arguments that are pid_t are compared on their low 32 bits (SCMP_A0_32), as the kernel reads them.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

[[noreturn]] void refuse_to_start(const char* what, int error) {
    const char* reason = std::strerror(error);
    const char prefix[] = "attn sandbox: cannot install the seccomp filter: ";
    (void)!::write(2, prefix, sizeof prefix - 1);
    (void)!::write(2, what, std::strlen(what));
    (void)!::write(2, ": ", 2);
    (void)!::write(2, reason, std::strlen(reason));
    (void)!::write(2, "\n", 1);
    ::_exit(3);
}

void install_seccomp_filter(int, char**, char**) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == nullptr) refuse_to_start("seccomp_init", ENOMEM);
    const auto self = static_cast<scmp_datum_t>(::getpid());
    const std::uint32_t refuse = SCMP_ACT_ERRNO(EPERM);
    int status = 0;
    for (const int call : {SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv),
                           SCMP_SYS(process_vm_writev), SCMP_SYS(process_madvise), SCMP_SYS(tkill), SCMP_SYS(pidfd_send_signal),
                           SCMP_SYS(pidfd_open), SCMP_SYS(pidfd_getfd), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
                           SCMP_SYS(chroot), SCMP_SYS(unshare), SCMP_SYS(setns)}) {
        status = status ? status : seccomp_rule_add(filter, refuse, call, 0);
    }
    for (const int call : {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo)}) {
        status = status ? status : seccomp_rule_add(filter, refuse, call, 1, SCMP_A0_32(SCMP_CMP_NE, self));
    }
    status = status ? status : seccomp_rule_add(filter, refuse, SCMP_SYS(ioctl), 1, SCMP_A1_32(SCMP_CMP_EQ, TIOCSTI));
    status = status ? status : seccomp_rule_add(filter, refuse, SCMP_SYS(socket), 1, SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
    if (status != 0) refuse_to_start("seccomp_rule_add", -status);
    status = seccomp_load(filter);
    if (status != 0) refuse_to_start("seccomp_load", -status);
    seccomp_release(filter);
}

}  // namespace

// Run by the dynamic loader before any constructor (see above).
__attribute__((section(".preinit_array"), used)) void (*const attn_install_seccomp_filter)(int, char**, char**) =
    install_seccomp_filter;
