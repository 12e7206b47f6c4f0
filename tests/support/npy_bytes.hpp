// tests/support/npy_bytes.hpp — what the .npy tests share: the message of a refusal, and .npy
// bytes built by hand (tests/test_npy*.cpp).
//
//   const std::string bytes = npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data);
//   CHECK_THAT(input_error_message([&] { attn::parse_npy(bytes, "x.npy"); }), Catch::Contains("x.npy"));
#pragma once

#include <string>
#include <vector>

#include "attn/error.hpp"

namespace attn::testing {

// The message of the attn::InputError that `action` throws. Any other exception escapes and fails
// the test, which is the point: a bad file must never surface as std::out_of_range or similar.
template <class Action>
std::string input_error_message(Action&& action) {
    try {
        action();
    } catch (const attn::InputError& error) {
        return error.what();
    }
    return "(no attn::InputError was thrown)";
}

/// Distinct, non-round values (so that a transposition or a float32 rounding would show).
std::vector<double> sample_values(std::size_t count);

/// A hand-made .npy file with `header_dict` as its header, for the malformed cases NumPy never
/// writes. The header is padded the way NumPy does so that only the intended defect is present.
std::string npy_with_header(const std::string& header_dict, const std::string& data, int major_version = 1);

}  // namespace attn::testing
