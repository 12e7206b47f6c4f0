// tutor/train/interrupt.hpp — Ctrl-C and SIGTERM as a request to stop a training run cleanly.
//
// Why: a class stops a run when it has seen enough; killing it then would lose the weights it
// learned. While a StopRequests lives, SIGINT and SIGTERM only set a flag: the loop looks at it
// after every step, finishes the step in progress, writes what --save and --log ask for (all or
// none, as at the end of a run) and ends with 128 + the signal's number (130 for Ctrl-C, 143 for
// SIGTERM), as a shell expects of a program that a signal stopped. The handlers are installed
// with SA_RESETHAND, so a second Ctrl-C stops the program at once, and with SA_RESTART, so that
// the file writes (flock, write, fsync) are not cut short by the first. A signal the program was
// started ignoring (a script's background job ignores SIGINT) stays ignored.
//
//   attn::tutor::StopRequests stops;
//   for (...) { train_step(...); if (stops.requested()) break; }
//   if (stops.requested()) return 128 + stops.signal_number();
#pragma once

#include <csignal>

namespace attn::tutor {

class StopRequests {
public:
    StopRequests();   // installs the handlers
    ~StopRequests();  // puts the previous ones back
    StopRequests(const StopRequests&) = delete;
    StopRequests& operator=(const StopRequests&) = delete;

    bool requested() const;
    /// The signal that asked to stop (SIGINT or SIGTERM), 0 while none has.
    int signal_number() const;

private:
    struct sigaction previous_interrupt_ {}, previous_terminate_ {};
};

}  // namespace attn::tutor
