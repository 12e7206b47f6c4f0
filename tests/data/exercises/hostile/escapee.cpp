// A program that leaves a process behind: a new session and a double fork, the survivor named
// "attn-escapee", holding the report channel (file descriptor 4) open and sleeping; the program
// itself then exits in the middle of the first case. The run must end at once, say that the
// program ended, and leave nothing running.
#include <sys/prctl.h>
#include <unistd.h>

#include "exercise.hpp"

namespace {

void leave_a_process_behind() {
    if (::fork() == 0) {
        ::setsid();
        if (::fork() == 0) {
            ::prctl(PR_SET_NAME, "attn-escapee");
            for (int i = 0; i < 600; ++i) ::sleep(1);
        }
        ::_exit(0);
    }
    ::sleep(1);
    ::_exit(0);
}

}  // namespace

#define PLANTED_BEFORE_ANSWER leave_a_process_behind
#include "../independent/dot-product.cpp"
