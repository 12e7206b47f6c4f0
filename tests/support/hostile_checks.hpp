// tests/support/hostile_checks.hpp — what every hostile-input test of the real `attn` checks:
// exit code 2, fragments of the message, no control byte in it, and the output folder before and
// after (tests/test_cli_hostile*.cpp).
//
//   const auto before = snapshot(out);
//   expect_refused({"view", "--weights", w, "--html", w}, {"--html", "the same file"});
//   CHECK(snapshot(out) == before);
#pragma once

#include <map>
#include <string>
#include <vector>

#include "attn/npy.hpp"
#include "support/run_command.hpp"

namespace attn::testing {

/// Generous: sanitizer builds are slow. A hang is killed then and fails with exit code 137.
constexpr int hostile_time_limit = 120;

/// Every file of a folder (one level) with its bytes: "the output folder before and after".
std::map<std::string, std::string> snapshot(const std::string& folder);

/// A C0 control byte other than line feed and tab, or DEL: what must never reach a terminal.
bool has_control_byte(const std::string& text);

/// A .npy file of the given shape, values and dtype (float64 unless told), written whole.
void save_npy(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values,
              NpyDtype dtype = NpyDtype::float64);

/// Identity projections of width D, zero biases, as float64 .npy files in the folder `in`: the
/// weights of `attn compute mha` and friends.
void save_identity_attention(const std::string& in, std::size_t D);

/// Runs attn and checks the promise for bad input: exit 2, every fragment in the message, no
/// control byte in it.
CommandResult expect_refused(const std::vector<std::string>& arguments, const std::vector<std::string>& fragments,
                             const std::map<std::string, std::string>& environment = {});

}  // namespace attn::testing
