// tests/support/fast_guards.hpp — what the fast path's tests share around a call: guards that put
// back what a test changed, even when it fails (the worker pool's thread count, the instruction set
// the kernels use), and the message of an InputError a call throws.
//
//   attn::testing::ThreadsGuard threads;  attn::fast::set_threads(2);      // restored at scope exit
//   attn::testing::SimdGuard simd;        attn::fast::detail::use_simd(…);
//   CHECK_THAT(attn::testing::error_message([&] { attn::fast::multi_head_attention(…); }), Contains("d_k"));
#pragma once

#include <string>

#include "attn/error.hpp"
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

/// The message of the InputError `call` throws; "(no error)" when it throws none.
template <class Call>
std::string error_message(const Call& call) {
    try {
        call();
    } catch (const attn::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace attn::testing
