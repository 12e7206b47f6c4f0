// Ctrl-C and SIGTERM as a request to stop (tutor/train/interrupt.hpp).
#include "tutor/train/interrupt.hpp"

namespace attn::tutor {

namespace {

volatile std::sig_atomic_t stop_signal = 0;

void on_stop_signal(int signal_number) { stop_signal = signal_number; }

void install(int signal_number, struct sigaction* previous) {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    ::sigaction(signal_number, &action, previous);
    // A signal the caller ignores stays ignored (a background job of a script ignores SIGINT).
    if (previous->sa_handler == SIG_IGN) ::sigaction(signal_number, previous, nullptr);
}

}  // namespace

StopRequests::StopRequests() {
    stop_signal = 0;
    install(SIGINT, &previous_interrupt_);
    install(SIGTERM, &previous_terminate_);
}

StopRequests::~StopRequests() {
    ::sigaction(SIGINT, &previous_interrupt_, nullptr);
    ::sigaction(SIGTERM, &previous_terminate_, nullptr);
}

bool StopRequests::requested() const { return stop_signal != 0; }

int StopRequests::signal_number() const { return stop_signal; }

}  // namespace attn::tutor
