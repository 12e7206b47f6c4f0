// bench/cpu_time.hpp — the timing of the hand-built benchmarks in bench/: the least CPU time of a
// few repetitions (CLOCK_PROCESS_CPUTIME_ID). Other processes on a shared machine disturb it less
// than wall time, though not at all only on an idle machine.
//
//   const double ms = least_ms([&] { product(); }, 8);   // one call to warm up, then the least of 8
#pragma once

#include <algorithm>
#include <ctime>
#include <limits>

inline double cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

template <class Call>
double least_ms(const Call& call, int repetitions) {
    call();
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repetitions; ++r) {
        const double start = cpu_ms();
        call();
        best = std::min(best, cpu_ms() - start);
    }
    return best;
}
