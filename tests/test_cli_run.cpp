// `attn run` through the real binary: what it prints for a small shape (never how long it took)
// and the options it refuses.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"

using attn::testing::expect_refused;
using attn::testing::run_attn;

TEST_CASE("cli - run mha prints the shape of every intermediate", "[cli][run][lesson05]") {
    // A small shape: this checks what is printed, never how long it took.
    const auto r = run_attn({"run", "mha", "--batch", "2", "--seq", "5", "--d-model", "12", "--heads", "3", "--seed", "7"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const std::string line : {"  x (2, 5, 12)", "  q_heads (2, 3, 5, 4)", "  scores (2, 3, 5, 5)",
                                   "  attention (2, 3, 5, 5)", "  output (2, 5, 12)", "multi_head_attention took "}) {
        CHECK_THAT(r.out, Catch::Contains(line));
    }
    CHECK_THAT(run_attn({"run", "--help"}).out, Catch::Contains("--seq") && Catch::Contains("=300") &&
                                                    Catch::Contains("=768") && Catch::Contains("--seed"));
}

TEST_CASE("cli - run mha refuses bad options with exit 2", "[cli][run][errors][lesson05]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"run", "mha", "--heads", "5"}, "--d-model 768 is not a multiple of --heads 5"},
        {{"run", "attention"}, "unknown example 'attention'; attn run knows: mha"},
        {{"run", "mha", "--batch", "0"}, "--batch: must be a whole number of at least 1, not '0'"},
        {{"run", "mha", "--seq", "100000"}, "would need"},
    };
    for (const auto& [arguments, message] : cases) expect_refused(arguments, {message});
}
