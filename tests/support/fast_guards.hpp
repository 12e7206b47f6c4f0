// tests/support/fast_guards.hpp — put back what a fast-path test changed, even when it fails:
// the worker pool's thread count and the instruction set the kernels use.
//
//   attn::testing::ThreadsGuard threads;  attn::fast::set_threads(2);      // restored at scope exit
//   attn::testing::SimdGuard simd;        attn::fast::detail::use_simd(…);
#pragma once

#include "attn/fast.hpp"
#include "fast/simd.hpp"

namespace attn::testing {

/// Restores the thread count a test changed.
struct ThreadsGuard {
    int previous = attn::fast::threads();
    ~ThreadsGuard() { attn::fast::set_threads(previous); }
};

/// Restores the instruction set a test chose.
struct SimdGuard {
    attn::fast::detail::Simd previous = attn::fast::detail::active_simd();
    ~SimdGuard() { attn::fast::detail::use_simd(previous); }
};

}  // namespace attn::testing
