// The `attn` program as a whole: help and version on every command, the parser's usage errors
// (exit 2), and `attn list`. Each command has its own file: test_cli_lesson.cpp (lesson and
// check), test_cli_compute.cpp, test_cli_run.cpp, test_cli_view.cpp (heatmap and view),
// test_cli_bench.cpp.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support/run_command.hpp"

using attn::testing::run_attn;

TEST_CASE("cli - help and version on every command exit 0", "[cli]") {
    for (const std::vector<std::string>& arguments : std::vector<std::vector<std::string>>{
             {"--help"}, {"list", "--help"}, {"lesson", "--help"}, {"check", "--help"}, {"compute", "--help"}}) {
        const auto r = run_attn(arguments);
        INFO(arguments[0] << "\n" << r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("Usage") || Catch::Contains("USAGE"));
    }
    CHECK_THAT(run_attn({"compute", "--help"}).out, Catch::Contains("encoder_outputs (B, S, H)"));
    CHECK_THAT(run_attn({"--help"}).out, Catch::Contains("Exit codes"));
    const auto version = run_attn({"--version"});
    CHECK(version.exit_code == 0);
    CHECK_THAT(version.out, Catch::StartsWith("attn "));
}

TEST_CASE("cli - usage errors exit 2 with the parser's message", "[cli][errors]") {
    const auto none = run_attn({});
    CHECK(none.exit_code == 2);
    const auto unknown = run_attn({"lesson", "1", "--bogus"});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("--bogus"));
    const auto missing = run_attn({"compute", "dot"});
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.err, Catch::Contains("--in"));
    CHECK(run_attn({"frobnicate"}).exit_code == 2);
}

TEST_CASE("cli - list shows the lessons", "[cli]") {
    const auto r = run_attn({"list"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("1  dot-product") && Catch::Contains("Dot-product attention"));
    CHECK_THAT(r.out, Catch::EndsWith("\nStart with: attn lesson 1\n"));  // the first lesson found
}
