// A countdown with an unsigned counter never ends: s >= 0 is always true. It also starts a
// grandchild that would sleep forever, named "attn-pauser", so that the test can check that
// everything the program started was stopped.
#include <cstdio>
#include <sys/prctl.h>
#include <unistd.h>

#include "exercise.hpp"

namespace exercise {

attn::AttentionStep dot_attention(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    const std::size_t S = encoder_outputs.shape(1);
    (void)decoder_output;
    std::printf("program %d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    const pid_t child = ::fork();
    if (child == 0) {
        ::prctl(PR_SET_NAME, "attn-pauser");
        for (;;) ::pause();
    }
    std::printf("grandchild %d\n", static_cast<int>(child));
    std::fflush(stdout);
    volatile double sink = 0.0;
    for (std::size_t s = S - 1; s >= 0; --s) sink = sink + 1.0;
    return {};
}

}  // namespace exercise
