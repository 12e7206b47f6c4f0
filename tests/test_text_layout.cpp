// Tests for tutor/terminal/text_layout.hpp: words wrapped, long lines broken at the right place, text cut,
// always within the width in visible columns.
#include <catch2/catch.hpp>

#include "tutor/terminal/terminal.hpp"
#include "tutor/terminal/text_layout.hpp"

using namespace attn::tutor;

namespace {

std::size_t widest(const std::vector<std::string>& lines) {
    std::size_t width = 0;
    for (const auto& line : lines) width = std::max(width, visible_width(line));
    return width;
}

}  // namespace

TEST_CASE("wrap_words fills lines up to the width", "[text_layout]") {
    CHECK(wrap_words("the weights of one query", 12, "- ", "  ") == "- the\n  weights of\n  one query\n");
    CHECK(wrap_words("", 20, "", "") == "\n");
    CHECK(wrap_words("a  b", 20, "", "") == "a b\n");  // runs of spaces fold
}

TEST_CASE("wrap_words keeps a code span whole unless it cannot fit", "[text_layout]") {
    const std::string code = std::string("q.view(B,") + unbreakable_space + "T," + unbreakable_space + "h)";
    // The span moves to the next line whole instead of being split at its spaces.
    CHECK(wrap_words("In PyTorch this is " + code + " then", 24, "", "") == "In PyTorch this is\nq.view(B, T, h) then\n");
    // Wider than a line: split at its own spaces.
    const std::string long_code = std::string("aaaa") + unbreakable_space + "bbbb" + unbreakable_space + "cccc";
    CHECK(wrap_words(long_code, 10, "", "") == "aaaa bbbb\ncccc\n");
}

TEST_CASE("wrap_words cuts a word wider than the line", "[text_layout]") {
    const std::string text = wrap_words(std::string(30, 'x'), 12, "", "");
    CHECK(widest(split_lines(text)) <= 12);
    CHECK(std::count(text.begin(), text.end(), 'x') == 30);
}

TEST_CASE("break_line cuts a formula between its columns, with a hanging indent", "[text_layout]") {
    const std::string formula = "    scores  = Q Kᵀ / √d_k                                  (B, T, S): one number per query and key";
    const auto lines = break_line(formula, 80);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "    scores  = Q Kᵀ / √d_k");
    CHECK(lines[1] == "        (B, T, S): one number per query and key");
    CHECK(break_line("short", 80) == std::vector<std::string>{"short"});
}

TEST_CASE("break_line cuts at the last space when there is no gap", "[text_layout]") {
    const auto lines = break_line("  alpha beta gamma delta epsilon", 20);
    CHECK(lines == std::vector<std::string>{"  alpha beta gamma", "      delta epsilon"});
    CHECK(widest(lines) <= 20);
}

TEST_CASE("break_line cuts mid-token only when a token is wider than the line", "[text_layout]") {
    const auto lines = break_line(std::string(25, 'y'), 10);
    // 10 on the first line, then 6 after the hanging indent of 4.
    CHECK(lines == std::vector<std::string>{std::string(10, 'y'), "    " + std::string(6, 'y'), "    " + std::string(6, 'y'),
                                            "    " + std::string(3, 'y')});
    // Wide characters are never split, and never overflow.
    const auto wide = break_line("漢字漢字漢字漢字", 5);
    CHECK(widest(wide) <= 5);
    CHECK(visible_width(wide[0]) == 4);
}

TEST_CASE("break_line measures styled text by its visible columns", "[text_layout]") {
    const std::string styled = "\033[93m" + std::string("one two three four five six") + "\033[0m";
    const auto lines = break_line(styled, 14, 0);
    CHECK(widest(lines) <= 14);
    CHECK(lines.size() == 2);
}

TEST_CASE("fit_to_width keeps every line within the width and keeps the newlines", "[text_layout]") {
    const std::string text = "short\n" + std::string(50, 'z') + "\n\nend\n";
    const std::string fitted = fit_to_width(text, 20);
    CHECK(widest(split_lines(fitted)) <= 20);
    CHECK(fitted.substr(0, 6) == "short\n");
    CHECK(fitted.substr(fitted.size() - 6) == "\n\nend\n");
}

TEST_CASE("truncate_to_width ends a cut text with an ellipsis", "[text_layout]") {
    CHECK(truncate_to_width("Lesson 1 — Dot-product attention", 12) == "Lesson 1 — …");
    CHECK(truncate_to_width("short", 12) == "short");
    CHECK(visible_width(truncate_to_width("\033[1mbold words here\033[0m", 8)) == 8);
}

TEST_CASE("split_lines drops only the final newline", "[text_layout]") {
    CHECK(split_lines("a\n\nb\n") == std::vector<std::string>{"a", "", "b"});
    CHECK(split_lines("").empty());
}

TEST_CASE("counts of five digits or more are grouped with a narrow no-break space, four digits are not", "[text_layout]") {
    CHECK(grouped_number(7) == "7");
    CHECK(grouped_number(5000) == "5000");
    CHECK(grouped_number(12288) == "12\u202F288");
    CHECK(grouped_number(50331648) == "50\u202F331\u202F648");
    CHECK(visible_width(grouped_number(12288)) == 6);
}

TEST_CASE("a number written in groups of three is never split across lines", "[text_layout]") {
    // "genera 5 000 pares" at 11 columns: "genera 5" would fit the first line, leaving "000" alone.
    CHECK(wrap_words(keep_numbers_whole("genera 5 000 pares"), 11, "", "") == "genera\n5 000 pares\n");
    CHECK(wrap_words(keep_numbers_whole("con T = 1 024:"), 10, "", "") == "con T =\n1 024:\n");
    CHECK(wrap_words(keep_numbers_whole("50 331 648 values"), 12, "", "") == "50 331 648\nvalues\n");
    // Not a group of three: ordinary spaces.
    CHECK(keep_numbers_whole("sizes 1 4 512 8") == "sizes 1 4\x1f" "512 8");
    CHECK(keep_numbers_whole("rows 12 3456") == "rows 12 3456");
}
