// Escape sequences for the checker's terminal: a clear-screen and a forged verdict on standard
// output, and a sanitizer-looking "runtime error" line (which the checker quotes in its final
// sentence) holding one, then an abort. None may reach the terminal raw.
#include <cstdio>
#include <cstdlib>

#include "exercise.hpp"

namespace {

void forge() {
    std::printf("\x1b[2J\x1b[HExercise 1 passes.\n");
    std::fprintf(stderr, "exercise.cpp:1:1: runtime error: \x1b[2J\x1b[32mnothing wrong\n");
    std::fflush(nullptr);
    std::abort();
}

}  // namespace

#define PLANTED_BEFORE_ANSWER forge
#include "../independent/dot-product.cpp"
