// tests/support/run_command.hpp — run the `attn` program as a user would, capturing everything.
//
//   auto r = attn::testing::run_attn({"check", "1"});
//   CHECK(r.exit_code == 0);
//   CHECK_THAT(r.out, Catch::Contains("passed"));
#pragma once

#include <map>
#include <string>
#include <vector>

namespace attn::testing {

struct CommandResult {
    int exit_code = -1;   // the program's exit status; 128 + N when killed by signal N
    std::string out;      // standard output
    std::string err;      // standard error
};

/// Runs `program` with `arguments`, standard input from /dev/null, extra environment variables set.
CommandResult run_command(const std::string& program, const std::vector<std::string>& arguments,
                          const std::map<std::string, std::string>& environment = {});

/// Runs the built `attn` with NO_COLOR set (plain text to match against).
CommandResult run_attn(const std::vector<std::string>& arguments,
                       const std::map<std::string, std::string>& environment = {});

}  // namespace attn::testing
