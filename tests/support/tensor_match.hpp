// tests/support/tensor_match.hpp — assertions on whole tensors with explicit tolerances.
//
// On failure Catch2 prints the expected tensor, the tensor got (as PyTorch would print them) and
// the max difference with the first element that is out of tolerance.
//
//   CHECK_TENSOR_CLOSE(expected, got, 1e-12, 1e-12);   // absolute, relative
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "attn/tensor.hpp"
#include "tutor/lesson/check.hpp"

namespace attn::testing {

/// The comparison and a report naming expected, got and the max |Δ|.
struct TensorMatch {
    bool passed;
    std::string report;
};

TensorMatch match_tensors(const DynamicTensor& expected, const DynamicTensor& got, double absolute, double relative);

}  // namespace attn::testing

#define CHECK_TENSOR_CLOSE(expected, got, absolute, relative)                                                         \
    do {                                                                                                             \
        const auto attn_match_ = ::attn::testing::match_tensors(::attn::DynamicTensor(expected),                     \
                                                                ::attn::DynamicTensor(got), (absolute), (relative)); \
        INFO(attn_match_.report);                                                                                    \
        CHECK(attn_match_.passed);                                                                                   \
    } while (false)

#define REQUIRE_TENSOR_CLOSE(expected, got, absolute, relative)                                                       \
    do {                                                                                                             \
        const auto attn_match_ = ::attn::testing::match_tensors(::attn::DynamicTensor(expected),                     \
                                                                ::attn::DynamicTensor(got), (absolute), (relative)); \
        INFO(attn_match_.report);                                                                                    \
        REQUIRE(attn_match_.passed);                                                                                 \
    } while (false)
