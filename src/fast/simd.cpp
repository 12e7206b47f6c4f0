// The instruction-set choice of simd.hpp.
#include "simd.hpp"

#include <algorithm>
#include <atomic>
#include <string>

#include "attn/error.hpp"

namespace attn::fast::detail {

namespace {

std::vector<Simd> detect_simd() {
    std::vector<Simd> found = {Simd::baseline};
#ifdef ATTN_HAVE_X86_VARIANTS
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        found.push_back(Simd::avx2);
#ifndef ATTN_FAST_NO_AVX512  // CMake's ATTN_FAST_AVX512=OFF
        if (__builtin_cpu_supports("avx512f")) found.push_back(Simd::avx512);
#endif
    }
#endif
    return found;
}

std::atomic<Simd>& chosen() {
    static std::atomic<Simd> simd{detect_simd().back()};
    return simd;
}

}  // namespace

const char* simd_name(Simd simd) {
    switch (simd) {
        case Simd::avx512: return "AVX-512";
        case Simd::avx2: return "AVX2 + FMA";
        default: return "baseline";
    }
}

std::vector<Simd> available_simd() {
    static const std::vector<Simd> found = detect_simd();
    return found;
}

Simd active_simd() { return chosen().load(std::memory_order_relaxed); }

void use_simd(Simd simd) {
    const std::vector<Simd> found = available_simd();
    if (std::find(found.begin(), found.end(), simd) == found.end()) {
        throw InputError(std::string("this CPU or build has no ") + simd_name(simd) + " variant of the fast path's kernels");
    }
    chosen().store(simd, std::memory_order_relaxed);
}

}  // namespace attn::fast::detail
