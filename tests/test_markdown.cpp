// Tests for tutor/document/markdown.hpp and tutor/document/markdown_table.hpp: prose, tables and formula blocks
// laid out within the width; inputs that once threw.
#include <catch2/catch.hpp>

#include <random>

#include "tutor/document/markdown.hpp"
#include "tutor/document/markdown_table.hpp"
#include "tutor/terminal/text_layout.hpp"

using namespace attn::tutor;

namespace {

Terminal plain(std::size_t width) {
    Terminal terminal;
    terminal.width = width;
    return terminal;
}

std::size_t widest(const std::string& text) {
    std::size_t width = 0;
    for (const auto& line : split_lines(text)) width = std::max(width, visible_width(line));
    return width;
}

const std::vector<std::string> intro_table = {
    "| tensor          | shape           | meaning                                                        |",
    "|-----------------|-----------------|----------------------------------------------------------------|",
    "| `x`             | (B, T, D)       | the tokens; query, key and value all at once in self-attention |",
    "| `w_q`, `b_q` …  | (D, D), (D)     | the projections, stored (out, in) as `nn.Linear` stores them   |",
    "| `q`, `k`, `v`   | (B, T, D)       | the projected tokens                                           |",
};

}  // namespace

TEST_CASE("a heading followed by a blank line renders without throwing", "[markdown][errors]") {
    // "### " then a blank line once threw std::out_of_range (an empty heading, then a check of
    // the last two characters of a one-character output).
    for (const std::string markdown : {"### \n\ntext", "###\n\n", "#\n", "### ", "\n\n\n", "", "> \n", ">", "- \n", "|", "| |\n|-|"}) {
        INFO(markdown);
        std::string out;
        CHECK_NOTHROW(out = render_markdown(markdown, plain(80)));
        CHECK(widest(out) <= 80);
    }
    CHECK(render_markdown("### \n\ntext", plain(80)) == "text\n");
}

TEST_CASE("paragraphs and list items wrap to the width", "[markdown]") {
    const std::string out = render_markdown("Each source position gets the dot product of its encoder output.\n\n"
                                            "- first item that is long enough to wrap around\n- second\n",
                                            plain(30));
    CHECK(out == "Each source position gets the\ndot product of its encoder\noutput.\n\n"
                 "- first item that is long\n  enough to wrap around\n- second\n");
}

TEST_CASE("code spans lose their backticks and never leave stray spaces", "[markdown]") {
    CHECK(render_markdown("the `w_q`, `w_k` and `w_v` weights", plain(80)) == "the w_q, w_k and w_v weights\n");
    const std::string table = render_table(intro_table, plain(120));
    CHECK_THAT(table, Catch::Contains("w_q, b_q …") && Catch::Contains("q, k, v"));
    CHECK_THAT(table, !Catch::Contains("w_q  ,"));
}

TEST_CASE("a table that fits is aligned again after its marks are removed", "[markdown]") {
    const std::string table = render_table({"| a | `long name` |", "|---|--:|", "| 1 | 2 |"}, plain(80));
    CHECK(table == "  a  long name\n"
                   "  ─  ─────────\n"
                   "  1          2\n");  // the second column is right-aligned (--:)
}

TEST_CASE("a table too wide wraps its widest column inside its cells", "[markdown]") {
    const std::string table = render_table(intro_table, plain(80));
    INFO(table);
    CHECK(widest(table) <= 80);
    // Columns of 10 and 11, gaps of 2: the meaning column keeps 80 - 27 = 53 columns.
    CHECK_THAT(table, Catch::StartsWith("  tensor      shape        meaning\n"));
    CHECK_THAT(table, Catch::Contains("  x           (B, T, D)    the tokens; query, key and value all at once in\n"
                                      "                           self-attention\n"));
    CHECK_THAT(table, Catch::Contains("  w_q, b_q …  (D, D), (D)  the projections, stored (out, in) as nn.Linear stores\n"
                                      "                           them\n"));
}

TEST_CASE("a table that cannot fit even wrapped becomes a list", "[markdown]") {
    const std::string table = render_table(intro_table, plain(40));
    INFO(table);
    CHECK(widest(table) <= 40);
    CHECK_THAT(table, Catch::StartsWith("  - x · shape: (B, T, D) · meaning: the\n    tokens; query, key and value all at\n"));
    CHECK_THAT(table, Catch::EndsWith("  - q, k, v · shape: (B, T, D) ·\n    meaning: the projected tokens\n"));
}

TEST_CASE("table cells keep a | that is escaped or inside code", "[markdown]") {
    CHECK(table_cells("| a \\| b | `x | y` | c |") == std::vector<std::string>{"a | b", "`x | y`", "c"});
}

TEST_CASE("a formula line too wide is broken at a column gap with a hanging indent", "[markdown]") {
    const std::string out = render_markdown("```\n"
                                            "q = x W_qᵀ + b_q     k = x W_kᵀ + b_k     v = x W_vᵀ + b_v        three nn.Linear(D, D), with bias\n"
                                            "```\n",
                                            plain(80));
    CHECK(out == "    q = x W_qᵀ + b_q     k = x W_kᵀ + b_k     v = x W_vᵀ + b_v\n"
                 "        three nn.Linear(D, D), with bias\n");
}

TEST_CASE("comments are dropped and headings wrap", "[markdown]") {
    CHECK(render_markdown("<!-- for editors\nonly -->\nshown", plain(80)) == "shown\n");
    const std::string heading = render_markdown("### " + std::string(50, 'h') + " tail", plain(40));
    CHECK(widest(heading) <= 40);
}

TEST_CASE("any mix of Markdown fits any width from 40 columns and never throws", "[markdown][errors]") {
    const std::vector<std::string> pieces = {"# ", "### ", "\n", "\n\n", "- ", "1. ", "> ", "```\n", "|", " | ", "|---|",
                                             "`", "**", "*", "[", "](", ")", "word ", "漢字", "h̄", "<!--", "-->",
                                             "\t", std::string(90, 'w'), "a  b  c   d", "\xe6", "  "};
    std::mt19937 random(16);
    for (int round = 0; round < 400; ++round) {
        std::string markdown;
        const int count = static_cast<int>(random() % 40);
        for (int k = 0; k < count; ++k) markdown += pieces[random() % pieces.size()];
        const std::size_t width = 40 + random() % 80;
        INFO("width " << width << "\n" << markdown);
        std::string out;
        REQUIRE_NOTHROW(out = render_markdown(markdown, plain(width)));
        CHECK(widest(out) <= width);
    }
}

TEST_CASE("the lines of a code block and of a table are reported, to be kept on one screen", "[markdown]") {
    LineRanges blocks;
    const std::string out = render_markdown("Two alignments:\n\n```\ntop-left    bottom-right\n\nq0 [0]      q0 [0]\n```\n\n"
                                            "| a | b |\n|---|---|\n| 1 | 2 |\n\nafter",
                                            plain(80), blocks);
    const auto lines = split_lines(out);
    REQUIRE(blocks.size() == 2);
    CHECK(lines[blocks[0].first] == "    top-left    bottom-right");
    CHECK(blocks[0].second - blocks[0].first == 3);  // the blank line inside the block included
    CHECK(lines[blocks[0].second - 1] == "    q0 [0]      q0 [0]");
    CHECK(blocks[1].first > blocks[0].second);
    CHECK(blocks[1].second < lines.size());
    CHECK(lines.back() == "after");
}
