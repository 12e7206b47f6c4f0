// tests/support/interop_cases.hpp — the recorded PyTorch models of tests/data/interop, run through
// the real `attn compute` (tools/make_interop_fixtures.py writes them).
//
//   const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir + "/in");
//   attn::testing::expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2"}, {"did you mean"}, out);
#pragma once

#include <string>
#include <vector>

namespace attn::testing {

/// The folder of the recorded cases.
extern const std::string interop_cases;

/// A copy of case `name`'s in/ folder at `to` (created), to change; returns `to`.
std::string copy_interop_inputs(const std::string& name, const std::string& to);

/// Runs attn with `arguments` and checks exit 2, every fragment in stderr, and `out` not created.
void expect_refused(const std::vector<std::string>& arguments, const std::vector<std::string>& fragments,
                    const std::string& out);

}  // namespace attn::testing
