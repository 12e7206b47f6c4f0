// Tests for tutor/heatmap.hpp: the plain-text grid (NO_COLOR, pipes), the colour grid, labels,
// one grid per head, and label counts that do not fit.
#include <catch2/catch.hpp>

#include "attn/error.hpp"
#include "tutor/heatmap.hpp"

using namespace attn::tutor;

TEST_CASE("a plain heatmap shades each cell with a block character and shows its value", "[heatmap]") {
    const attn::Matrix weights = {{0.0, 1.0}, {0.5, 0.5}};
    const std::string text = render_heatmap(Terminal{}, weights, {"q0", "q1"}, {"k0", "k1"});
    CHECK(text ==
          "          k0      k1\n"
          "  q0  0.0000 █1.0000\n"
          "  q1 ▒0.5000 ▒0.5000\n");
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
    CHECK(std::count(text.begin(), text.end(), '\n') == 2 * (1 + 3));
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
    CHECK_THAT(text, Catch::Contains(" camina…") && Catch::Contains("  caminando ░0.1250"));
    std::size_t widest = 0;
    for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        widest = std::max(widest, visible_width(text.substr(start, end - start)));
    }
    CHECK(widest <= 80);
    // A grid that fits keeps its labels whole.
    CHECK_THAT(render_heatmap(Terminal{}, attn::Matrix({{0.5, 0.5}}), {"q"}, {"caminando", "el"}), Catch::Contains("caminando"));
}
