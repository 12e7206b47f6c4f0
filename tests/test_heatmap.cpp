// Tests for tutor/views/heatmap.hpp: the plain-text grid (NO_COLOR, pipes), the colour grid, labels,
// one grid per head, label counts that do not fit, the legend, the scale of each grid, and the
// ramp on a light background.
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>

#include "attn/error.hpp"
#include "tutor/views/heatmap.hpp"

using namespace attn::tutor;

TEST_CASE("a plain heatmap shades each cell with a block character and shows its value", "[heatmap]") {
    const attn::Matrix weights = {{0.0, 1.0}, {0.5, 0.5}};
    const std::string text = render_heatmap(Terminal{}, weights, {"q0", "q1"}, {"k0", "k1"});
    CHECK(text ==
          "          k0      k1\n"
          "  q0  0.0000 █1.0000\n"
          "  q1 ▒0.5000 ▒0.5000\n"
          "  min  0.0000 ▒0.5000 █1.0000 max\n");  // the legend shows the grid's own values
}

TEST_CASE("a colour heatmap uses a 256-colour background and readable text", "[heatmap]") {
    Terminal colour;
    colour.colour = true;
    const std::string text = render_heatmap(colour, attn::Matrix({{0.0, 1.0}}));
    CHECK_THAT(text, Catch::Contains("\033[48;5;232;97m 0.0000 \033[0m"));  // dark cell, white text
    CHECK_THAT(text, Catch::Contains("\033[48;5;255;30m 1.0000 \033[0m"));  // light cell, black text
}

TEST_CASE("values outside 0..1 are shaded on their own range", "[heatmap]") {
    const std::string text = render_heatmap(Terminal{}, attn::Matrix({{50, 57}, {19, 19}}));
    CHECK_THAT(text, Catch::Contains(" 19.0000") && Catch::Contains("█57.0000"));
}

TEST_CASE("a rank-4 tensor gets one captioned grid per batch and head", "[heatmap]") {
    attn::DynamicTensor weights = xt::ones<double>({1, 2, 2, 2}) * 0.5;
    const std::string text = render_heatmaps(Terminal{}, weights, {}, {}, {"B", "h"});
    CHECK_THAT(text, Catch::Contains("B 0 · h 0") && Catch::Contains("B 0 · h 1"));
    CHECK(std::count(text.begin(), text.end(), '\n') == 2 * (1 + 3 + 1));  // caption, labels, 2 rows, legend
}

TEST_CASE("labels that do not fit the grid are an input error", "[heatmap][errors]") {
    CHECK_THROWS_AS(render_heatmap(Terminal{}, attn::Matrix({{0.1, 0.9}}), {"a", "b"}, {}), attn::InputError);
    CHECK_THROWS_WITH(render_heatmaps(Terminal{}, xt::zeros<double>({1, 1, 1, 1, 1})), Catch::Contains("rank 5"));
}

TEST_CASE("long labels are shortened when the grid would not fit the terminal", "[heatmap]") {
    CHECK(shorten_label("caminando", 7) == "camina…");
    CHECK(shorten_label("perro", 7) == "perro");
    CHECK(shorten_label("ñandúes", 4) == "ñan…");  // counted in columns, not bytes
    const std::vector<std::string> words = {"El", "perro", "caminando", "sobre", "el", "pasto", "verde", "hoy"};
    const attn::Matrix uniform = xt::ones<double>({8, 8}) / 8.0;
    const std::string text = render_heatmap(Terminal{}, uniform, words, words);
    CHECK_THAT(text, Catch::Contains(" camina…") && Catch::Contains("  caminando ▒0.1250"));
    CHECK_THAT(text, Catch::Contains("  every cell: ▒0.1250\n"));  // one value: no range to shade
    std::size_t widest = 0;
    for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        widest = std::max(widest, visible_width(text.substr(start, end - start)));
    }
    CHECK(widest <= 80);
    // A grid that fits keeps its labels whole.
    CHECK_THAT(render_heatmap(Terminal{}, attn::Matrix({{0.5, 0.5}}), {"q"}, {"caminando", "el"}), Catch::Contains("caminando"));
}

namespace {

// The shade of each cell of one row of a plain grid, in order: "  q  0.3200 █0.3400" gives " █".
// A shade is the block character just before a number, or a space when there is none.
std::string shades_of_row(const std::string& text, const std::string& row_label) {
    const std::size_t start = text.find("  " + row_label + " ");
    REQUIRE(start != std::string::npos);
    const std::string line = text.substr(start + 2 + row_label.size(), text.find('\n', start) - start - 2 - row_label.size());
    std::string shades;
    for (std::size_t p = 0; p < line.size(); ++p) {
        const bool number_start = std::isdigit(static_cast<unsigned char>(line[p])) && (p == 0 || line[p - 1] == ' ' || (line[p - 1] & 0x80));
        if (!number_start) continue;
        shades += line[p - 1] == ' ' ? std::string(" ") : line.substr(p - 3, 3);  // the block characters are 3 bytes
    }
    return shades;
}

}  // namespace

TEST_CASE("each grid is shaded on its own values, so close values of one grid differ", "[heatmap]") {
    // Head 0 holds weights between 0.32 and 0.34, head 1 between 0 and 1. On one scale for the
    // whole tensor, 0.32 and 0.34 would get the same shade.
    attn::DynamicTensor weights = attn::DynamicTensor::from_shape({1, 2, 1, 3});
    const double values[] = {0.32, 0.33, 0.34, 0.0, 0.5, 1.0};
    std::copy(std::begin(values), std::end(values), weights.begin());
    const std::string text = render_heatmaps(Terminal{}, weights, {"q"}, {"a", "b", "c"}, {"B", "h"});
    INFO(text);
    const std::size_t head1 = text.find("B 0 · h 1");
    REQUIRE(head1 != std::string::npos);
    CHECK(shades_of_row(text.substr(0, head1), "q") == " ▒█");
    CHECK(shades_of_row(text.substr(head1), "q") == " ▒█");
    // Each grid's legend names its own values.
    CHECK_THAT(text.substr(0, head1), Catch::Contains("  min  0.3200 ▒0.3300 █0.3400 max\n"));
    CHECK_THAT(text.substr(head1), Catch::Contains("  min  0.0000 ▒0.5000 █1.0000 max\n"));
}

TEST_CASE("the colour legend shows each shade with the value it stands for", "[heatmap]") {
    Terminal colour;
    colour.colour = true;
    const std::string text = render_heatmap(colour, attn::Matrix({{2.0, 4.0}}));
    // Raw scores 2 and 4: the darkest grey stands for 2, the lightest for 4, and the legend shows
    // only values the grid holds (no 3.0000).
    CHECK_THAT(text, Catch::EndsWith("  min \033[48;5;232;97m 2.0000 \033[0m \033[48;5;255;30m 4.0000 \033[0m max\n"));
}

TEST_CASE("on a light background the largest value is the darkest cell", "[heatmap]") {
    Terminal light;
    light.colour = true;
    light.light = true;
    const std::string text = render_heatmap(light, attn::Matrix({{0.0, 1.0}}));
    CHECK_THAT(text, Catch::Contains("\033[48;5;255;30m 0.0000 \033[0m"));  // near white, black text
    CHECK_THAT(text, Catch::Contains("\033[48;5;232;97m 1.0000 \033[0m"));  // near black, white text
}

TEST_CASE("cells that are not finite do not stretch the scale", "[heatmap]") {
    const std::string text = render_heatmap(Terminal{}, attn::Matrix({{0.25, -INFINITY}, {0.75, 0.5}}), {"r0", "r1"}, {"c0", "c1"});
    INFO(text);
    CHECK_THAT(text, Catch::Contains("  min  0.2500 ▒0.5000 █0.7500 max\n"));
    CHECK(shades_of_row(text, "r1") == "█▒");
}

TEST_CASE("on a narrow screen the legend names the ends and the middle only", "[heatmap]") {
    Terminal narrow;
    narrow.width = 40;
    attn::Matrix ninths = xt::zeros<double>({9, 1});
    for (std::size_t i = 0; i < 9; ++i) ninths(i, 0) = static_cast<double>(i) / 8.0;
    CHECK_THAT(render_heatmap(Terminal{}, ninths), Catch::EndsWith("  min  0.0000 ░0.2500 ▒0.5000 ▓0.7500 █1.0000 max\n"));
    CHECK_THAT(render_heatmap(narrow, ninths), Catch::EndsWith("  min  0.0000 ▒0.5000 █1.0000 max\n"));
}

TEST_CASE("neighbouring weights get different greys, half by place and half by rank", "[heatmap]") {
    // The review's weights 0.3219, 0.3332, 0.3449 in a grid from 0 to 1. On a 24-step ramp by place
    // alone they are greys 239, 240, 240. Shade = (place + rank) / 2, rank = 1/4, 2/4, 3/4 among
    // the five values: (0.3219 + 0.25) / 2 · 23 = 6.58 → 7, (0.3332 + 0.5) / 2 · 23 = 9.58 → 10,
    // (0.3449 + 0.75) / 2 · 23 = 12.59 → 13: greys 232 + 7, 10, 13.
    Terminal colour;
    colour.colour = true;
    const std::string text = render_heatmap(colour, attn::Matrix({{0.0, 0.3219, 0.3332, 0.3449, 1.0}}));
    CHECK_THAT(text, Catch::Contains("\033[48;5;239;97m 0.3219 \033[0m") && Catch::Contains("\033[48;5;242;97m 0.3332 \033[0m") &&
                         Catch::Contains("\033[48;5;245;30m 0.3449 \033[0m"));
    CHECK_THAT(text, Catch::Contains("\033[48;5;232;97m 0.0000 \033[0m") && Catch::Contains("\033[48;5;255;30m 1.0000 \033[0m"));
}

TEST_CASE("ten keys of weights fit 80 columns: the numbers drop their leading zero, never a digit", "[heatmap]") {
    // The copy task's picture: 10 source symbols, rows labelled "read→wrote" (attn train copy).
    attn::Matrix weights = xt::zeros<double>({9, 10});
    for (std::size_t r = 0; r < 9; ++r) {
        for (std::size_t c = 0; c < 10; ++c) weights(r, c) = (r == c ? 0.5 : 0.5 / 9.0) + 1e-4 * double(c);
    }
    const std::vector<std::string> rows = {"1→6", "6→0", "0→5", "5→5", "5→0", "0→5", "5→0", "0→5", "5→0"};
    const std::vector<std::string> columns = {"1", "2", "1", "10", "6", "10", "5", "5", "5", "4"};
    Terminal colour;
    colour.colour = true;
    for (const Terminal& terminal : {Terminal{}, colour}) {
        const std::string text = render_heatmap(terminal, weights, rows, columns);
        std::size_t widest = 0;
        for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
            widest = std::max(widest, visible_width(text.substr(start, end - start)));
        }
        INFO(text);
        CHECK(widest <= 80);
        CHECK_THAT(text, Catch::Contains(".5000") && Catch::Contains(".0556"));  // 0.5 and 0.5/9, four decimals kept
        CHECK_THAT(text, !Catch::Contains(" 0.5000") && !Catch::Contains("▒0.5000"));
    }
    // Five keys fit as they are: the leading zero stays.
    attn::Matrix few = xt::zeros<double>({5, 5});
    for (std::size_t r = 0; r < 5; ++r) {
        for (std::size_t c = 0; c < 5; ++c) few(r, c) = weights(r, c);
    }
    CHECK_THAT(render_heatmap(Terminal{}, few), Catch::Contains("0.5000"));
}
