// src/fast/simd.hpp — private to the fast path: the one way its kernels pick an instruction set.
//
// Why explicit variants: every loop that touches each score or activation (the tile products, the
// online softmax's update, the element-wise kernels) is compiled three times — for the baseline
// x86-64 (or whatever the compiler targets elsewhere), for AVX2 + FMA and for AVX-512 — as
// ordinary functions with a target attribute (ATTN_TARGET_AVX2, ATTN_TARGET_AVX512), and a table
// of pointers is picked at run time. Not target_clones: the earlier macro left the clones out
// under AddressSanitizer and with clang, so those builds tested the baseline alone; here every
// build type builds every variant, and the tests run each of them (use_simd).
//
// How a kernel file uses it: the body is an always-inline function (inlined into each variant,
// so it is compiled for the variant's target); three small wrappers — no attribute,
// ATTN_TARGET_AVX2, ATTN_TARGET_AVX512 — give it the three targets, and a switch on active_simd()
// picks one (tile_products.cpp, kernels.cpp, tiled_attention.cpp). available_simd() says which of
// them this CPU runs.
//
//   attn::fast::detail::active_simd();              // Simd::avx512 on a CPU that has it
//   attn::fast::detail::simd_name(Simd::avx2);      // "AVX2 + FMA"
#pragma once

#include <vector>

#if defined(__GNUC__) && defined(__x86_64__)
#define ATTN_HAVE_X86_VARIANTS 1
#define ATTN_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define ATTN_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#endif

namespace attn::fast::detail {

enum class Simd { baseline, avx2, avx512 };

/// "baseline", "AVX2 + FMA" or "AVX-512".
const char* simd_name(Simd simd);

/// The instruction sets this CPU runs that the build has variants for, the baseline first and
/// the widest last (AVX-512 only when CMake's ATTN_FAST_AVX512 is ON, the default).
std::vector<Simd> available_simd();

/// The set every kernel uses: the widest available, unless use_simd chose another.
Simd active_simd();

/// Makes every later kernel call use `simd` (tests run each variant this way; a benchmark can
/// compare them). Throws InputError when this CPU or build has no such variant.
void use_simd(Simd simd);

}  // namespace attn::fast::detail
