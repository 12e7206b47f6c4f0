// This lesson's program on hostile documents, through the real `attn check --lessons-dir`: every bad
// input block is exit 2 with a message naming the input (and its file and line where the parser
// knows it), never a crash, a hang or an allocation sized by a number from the document.
#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/lesson_test_case.hpp"
#include "support/temp_dir.hpp"

using attn::testing::expect_refused;
using attn::testing::TempDir;

namespace {

// A lessons folder whose copy of this lesson holds one step with these input blocks: `attn check
// --lessons-dir FOLDER N` runs this lesson's program on them. Blocks start on line 5.
std::string this_lesson_with(const TempDir& dir, const std::vector<std::pair<std::string, std::string>>& inputs) {
    std::string text = "# Lesson " + attn::testing::this_lesson_number() + " — hostile\n\n## Step\n\n";
    for (const auto& [name, values] : inputs) text += "```attn input " + name + "\n" + values + "\n```\n\n";
    return attn::testing::this_lesson_with_document(dir, text);
}

void expect_check_refused(const std::vector<std::pair<std::string, std::string>>& inputs,
                          const std::vector<std::string>& fragments) {
    TempDir dir;
    expect_refused({"--lessons-dir", this_lesson_with(dir, inputs), "check", attn::testing::this_lesson_number()},
                   fragments);
}

}  // namespace

ATTN_LESSON_TEST_CASE("hostile - token ids must be rows of the table", "[cli][hostile]") {
    const std::string table = "[[0, 0], [1, 1]]";
    expect_check_refused({{"weight", table}, {"ids", "[[0, 2]]"}}, {"ids[0, 1] = 2"});
    expect_check_refused({{"weight", table}, {"ids", "[[0, -1]]"}}, {"README.md:9: input 'ids' holds -1 at [0, 1]"});
    expect_check_refused({{"weight", table}, {"ids", "[[0, 1e300]]"}}, {"README.md:9: input 'ids' holds 1e+300"});
    expect_check_refused({{"weight", table}, {"ids", "[[0.5, 1]]"}}, {"input 'ids' holds 0.5"});
}

ATTN_LESSON_TEST_CASE("hostile - order must name every position once", "[cli][hostile]") {
    const std::string x = "[[[1, 0], [0, 1], [1, 1]]]";
    const std::string refusal = "input 'order' must list each of the 3 positions of x (B, T, D) once";
    expect_check_refused({{"x", x}, {"order", "[0, 0, 2]"}}, {refusal});
    expect_check_refused({{"x", x}, {"order", "[0, 1]"}}, {refusal});
    expect_check_refused({{"x", x}, {"order", "[0, 1, 2, 1]"}}, {refusal});
    expect_check_refused({{"x", x}, {"order", "[0, 1, 3]"}}, {"input 'order' holds 3 at [2]"});
}

ATTN_LESSON_TEST_CASE("hostile - table sizes are whole numbers in range", "[cli][hostile]") {
    expect_check_refused({{"length", "[1e9]"}, {"d_model", "[4]"}}, {"README.md:5: input 'length' holds 1e+09"});
    expect_check_refused({{"length", "[0]"}, {"d_model", "[4]"}}, {"input 'length' holds 0"});
    expect_check_refused({{"length", "[4]"}, {"d_model", "[-2]"}}, {"README.md:9: input 'd_model' holds -2"});
    expect_check_refused({{"length", "[4]"}, {"d_model", "[4]"}, {"shift", "[1e18]"}}, {"input 'shift' holds 1e+18"});
}

ATTN_LESSON_TEST_CASE("hostile - q, k and positions must agree", "[cli][hostile]") {
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
