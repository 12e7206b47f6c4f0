// Lesson 8's program on hostile documents, through the real `attn check --lessons-dir`: every bad
// input block is exit 2 with a message naming the input (and its file and line where the parser
// knows it), never a crash, a hang or an allocation sized by a number from the document.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using attn::testing::expect_refused;
using attn::testing::TempDir;
using attn::testing::write_file;

namespace {

// A lessons folder whose lesson 8 holds one step with these input blocks: `attn check
// --lessons-dir FOLDER 8` runs lesson 8's program on them. Blocks start on line 5.
std::string lesson_eight(const TempDir& dir, const std::vector<std::pair<std::string, std::string>>& inputs) {
    std::string text = "# Lesson 8 — hostile\n\n## Step\n\n";
    for (const auto& [name, values] : inputs) text += "```attn input " + name + "\n" + values + "\n```\n\n";
    const std::string lessons = dir.path() + "/lessons";
    fs::create_directories(lessons + "/08-positions");
    write_file(lessons + "/08-positions/README.md", text);
    return lessons;
}

void expect_check_refused(const std::vector<std::pair<std::string, std::string>>& inputs,
                          const std::vector<std::string>& fragments) {
    TempDir dir;
    expect_refused({"--lessons-dir", lesson_eight(dir, inputs), "check", "8"}, fragments);
}

}  // namespace

TEST_CASE("hostile - lesson 8's token ids must be rows of the table", "[cli][hostile][lesson08]") {
    const std::string table = "[[0, 0], [1, 1]]";
    expect_check_refused({{"weight", table}, {"ids", "[[0, 2]]"}}, {"ids[0, 1] = 2"});
    expect_check_refused({{"weight", table}, {"ids", "[[0, -1]]"}}, {"README.md:9: input 'ids' holds -1 at [0, 1]"});
    expect_check_refused({{"weight", table}, {"ids", "[[0, 1e300]]"}}, {"README.md:9: input 'ids' holds 1e+300"});
    expect_check_refused({{"weight", table}, {"ids", "[[0.5, 1]]"}}, {"input 'ids' holds 0.5"});
}

TEST_CASE("hostile - lesson 8's order must name every position once", "[cli][hostile][lesson08]") {
    const std::string x = "[[[1, 0], [0, 1], [1, 1]]]";
    const std::string refusal = "input 'order' must list each of the 3 positions of x (B, T, D) once";
    expect_check_refused({{"x", x}, {"order", "[0, 0, 2]"}}, {refusal});
    expect_check_refused({{"x", x}, {"order", "[0, 1]"}}, {refusal});
    expect_check_refused({{"x", x}, {"order", "[0, 1, 2, 1]"}}, {refusal});
    expect_check_refused({{"x", x}, {"order", "[0, 1, 3]"}}, {"input 'order' holds 3 at [2]"});
}

TEST_CASE("hostile - lesson 8's table sizes are whole numbers in range", "[cli][hostile][lesson08]") {
    expect_check_refused({{"length", "[1e9]"}, {"d_model", "[4]"}}, {"README.md:5: input 'length' holds 1e+09"});
    expect_check_refused({{"length", "[0]"}, {"d_model", "[4]"}}, {"input 'length' holds 0"});
    expect_check_refused({{"length", "[4]"}, {"d_model", "[-2]"}}, {"README.md:9: input 'd_model' holds -2"});
    expect_check_refused({{"length", "[4]"}, {"d_model", "[4]"}, {"shift", "[1e18]"}}, {"input 'shift' holds 1e+18"});
}

TEST_CASE("hostile - lesson 8's q, k and positions must agree", "[cli][hostile][lesson08]") {
    const std::string one = "[[[[1, 2]]]]";
    expect_check_refused({{"q", "[[[[1, 2, 3]]]]"}, {"k", "[[[[1, 2, 3]]]]"}, {"positions_q", "[0]"}, {"positions_k", "[0]"}},
                         {"d_k = 3 is odd"});
    expect_check_refused({{"q", one}, {"k", "[[[[1, 2, 3, 4]]]]"}, {"positions_q", "[0]"}, {"positions_k", "[0]"}},
                         {"q (1, 1, 1, 2) (B, h, T, d_k) has d_k = 2 but k (1, 1, 1, 4)"});
    expect_check_refused({{"q", one}, {"k", one}, {"positions_q", "[0, 1]"}, {"positions_k", "[0]"}},
                         {"q (1, 1, 1, 2) (B, h, T, d_k) has T = 1 but positions_q (2) (T) has T = 2"});
    expect_check_refused({{"q", one}, {"k", one}, {"positions_q", "[0]"}, {"positions_k", "[-1]"}},
                         {"input 'positions_k' holds -1"});
}
