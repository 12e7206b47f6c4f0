// `attn lesson` and `attn check` through the real binary: every lesson's walkthrough passes its
// checks, the totals line, an unknown lesson, and documents that are malformed or hold a wrong
// expected value (exit 2 naming file and line; exit 1).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::run_attn;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

}  // namespace

TEST_CASE("cli - lesson 1 walks every step with a passing check", "[cli][lessons][lesson01]") {
    const auto r = run_attn({"lesson", "1"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("tensor([[1.9991, 2.0000, 3.0000],\n          [4.0000, 5.0000, 6.0000]])"));
    CHECK_THAT(r.out, Catch::Contains("tensor([[50., 57.],"));
    CHECK_THAT(r.out, Catch::Contains("✓ context (README.md:"));
    CHECK_THAT(r.out, Catch::Contains(" 0 failed"));
    CHECK_THAT(r.out, !Catch::Contains("✗"));
    CHECK_THAT(r.out, !Catch::Contains("\033["));  // no colour when the output is not a terminal
    CHECK(run_attn({"lesson", "dot-product", "--no-pause"}).exit_code == 0);
}

TEST_CASE("cli - check ends with the totals line", "[cli][lessons]") {
    const auto r = run_attn({"check"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    // The last line alone: std::regex recurses once per character, and `(.|\n)*` over the whole
    // output (10 kB with six lessons) overflows the stack of a sanitizer build.
    REQUIRE(r.out.size() >= 2);
    const std::string last_line = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
    CHECK_THAT(last_line, Catch::Matches("[0-9]+ passed, 0 failed\n"));
    CHECK_THAT(run_attn({"check", "1"}).out, Catch::Contains("✓ seed_context [example one]"));
}

TEST_CASE("cli - an unknown lesson is exit 2 and lists the lessons", "[cli][errors]") {
    for (const std::string command : {"lesson", "check"}) {
        const auto r = run_attn({command, "42"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("unknown lesson '42'") && Catch::Contains("1 dot-product"));
    }
}

TEST_CASE("cli - a malformed lesson document is exit 2 naming file and line", "[cli][errors]") {
    TempDir dir;
    fs::create_directories(dir.path() + "/01-dot-product");
    write_file(dir.path() + "/01-dot-product/README.md", "# L\n\n```attn input encoder_outputs\n[[[1, 2], [3]]]\n```\n");
    for (const std::string command : {"lesson", "check"}) {
        const auto r = run_attn({"--lessons-dir", dir.path(), command, "1"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("01-dot-product/README.md:4:") && Catch::Contains("same length"));
        CHECK(r.out.empty());  // nothing printed before the error: the class does not stop halfway
    }
}

TEST_CASE("cli - a wrong expected value fails the check with exit 1", "[cli]") {
    TempDir dir;
    fs::create_directories(dir.path() + "/01-dot-product");
    write_file(dir.path() + "/01-dot-product/README.md",
               "# L\n```attn input encoder_outputs\n[[[1, 2], [3, 4]]]\n```\n```attn input decoder_output\n[[1, 1]]\n```\n"
               "```attn expect scores\ntensor([[3., 8.]])\n```\n```attn expect weights\ntensor([[0.0180, 0.9820]])\n```\n");
    const auto r = run_attn({"--lessons-dir", dir.path(), "check"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("✗ scores") && Catch::Contains("expected 8, got 7") &&
                          Catch::Contains("✓ weights") && Catch::EndsWith("1 passed, 1 failed\n"));
    const auto lesson = run_attn({"--lessons-dir", dir.path(), "lesson", "1"});
    CHECK(lesson.exit_code == 1);
    CHECK_THAT(lesson.out, Catch::Contains("expected, as written in the document:\n    tensor([[3., 8.]])"));
}

TEST_CASE("cli - lessons 2 and 3 walk every step with a passing check", "[cli][lessons][lesson02][lesson03]") {
    const auto luong = run_attn({"lesson", "2"});
    INFO(luong.out << luong.err);
    CHECK(luong.exit_code == 0);
    CHECK_THAT(luong.out, Catch::Contains("tensor([[41., 39.],"));
    CHECK_THAT(luong.out, Catch::Contains("✓ context [example identity]"));  // W_a = I: 1.9991, as in lessons/01-dot-product
    CHECK_THAT(luong.out, Catch::Contains("✓ weights_with_bias"));
    CHECK_THAT(luong.out, Catch::Contains("B 1") && Catch::Contains("concat"));  // the side-by-side heatmap
    CHECK_THAT(luong.out, !Catch::Contains("✗"));

    const auto bahdanau = run_attn({"lesson", "bahdanau", "--no-pause"});
    INFO(bahdanau.out << bahdanau.err);
    CHECK(bahdanau.exit_code == 0);
    CHECK_THAT(bahdanau.out, Catch::Contains("tensor([[1.5582, 2.0000, 3.0000],"));
    CHECK_THAT(bahdanau.out, Catch::Contains("✓ split_scores") && Catch::Contains("✓ reshape_weights"));
    CHECK_THAT(bahdanau.out, Catch::Contains("additive"));
    CHECK_THAT(bahdanau.out, !Catch::Contains("✗"));
    CHECK_THAT(run_attn({"check", "2", "3"}).out, Catch::EndsWith(" passed, 0 failed\n"));
}

TEST_CASE("cli - lessons 4 and 5 walk every step with a passing check", "[cli][lessons][lesson04][lesson05]") {
    const auto causal = run_attn({"lesson", "4"});
    INFO(causal.out << causal.err);
    CHECK(causal.exit_code == 0);
    // Seed 002's printed result, to the last digit.
    CHECK_THAT(causal.out, Catch::Contains("tensor([[[1.0000, 0.0000, 0.0000],\n"
                                           "           [0.4568, 0.5432, 0.0000],\n"
                                           "           [0.3219, 0.3332, 0.3449],\n"
                                           "           [0.2309, 0.5130, 0.5260]]])"));
    CHECK_THAT(causal.out, Catch::Contains("✓ weights_top_left [example kv_cache]") && Catch::Contains("✓ dot_std [example spread]"));
    CHECK_THAT(causal.out, Catch::Contains(" 0 failed") && !Catch::Contains("✗"));

    const auto heads = run_attn({"lesson", "multi-head-attention", "--no-pause"});
    INFO(heads.out << heads.err);
    CHECK(heads.exit_code == 0);
    CHECK_THAT(heads.out, Catch::Contains("B 0 · h 1") && Catch::Contains("✓ seed000_batch_weights") &&
                              Catch::Contains("✓ left_output"));
    CHECK_THAT(heads.out, Catch::Contains(" 0 failed") && !Catch::Contains("✗"));
    CHECK_THAT(run_attn({"check", "4", "5"}).out, Catch::EndsWith(" passed, 0 failed\n"));
}
