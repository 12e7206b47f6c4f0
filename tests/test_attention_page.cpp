// Tests for tutor/views/attention_page.hpp: escaping (HTML and script), the numbers the page embeds, a
// page that asks the network for nothing and the SVG heatmap (files written all or none:
// tests/test_files.cpp).
// tests/browser/view_test.sh renders the page in Chromium; these tests check its text.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "attn/error.hpp"
#include "tutor/views/attention_page.hpp"
#include "tutor/views/attention_picture.hpp"

using namespace attn::tutor;

namespace {

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
}

// Two heads over three tokens, one of them hostile.
AttentionHeads small_heads() {
    AttentionHeads heads;
    heads.weights = attn::Tensor3({{{0.25, 0.75, 0.0}, {1.0, 0.0, 0.0}, {0.123456789, 0.5, 0.376543211}},
                                   {{0.0, 0.0, 1.0}, {0.5, 0.5, 0.0}, {1e-9, 0.999999999, 0.0}}});
    heads.query_tokens = heads.key_tokens = {"El", "</script><script>alert(1)</script>", "\"quoted\" & 'single'"};
    return heads;
}

std::string source_file(const std::string& path) {
    std::ifstream file(ATTN_SOURCE_DIR "/" + path, std::ios::binary);
    REQUIRE(file);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("the page's style and script are its asset files, embedded whole", "[attention_page][assets]") {
    const std::string html = render_attention_page(small_heads(), {"Assets", {}}, 0);
    const std::string css = source_file("src/tutor/views/assets/attention_page.css");
    CHECK(occurrences(html, "<style>\n" + css + "</style>") == 1);
    // The script holds RAMP_STOPS where the stops go, laid out as a person would write them.
    std::string script = source_file("src/tutor/views/assets/attention_page.js");
    const std::size_t at = script.find("RAMP_STOPS");
    REQUIRE(at != std::string::npos);
    script.replace(at, 10, "[[0, [247, 251, 255]], [0.25, [198, 219, 239]], [0.5, [107, 174, 214]],\n"
                           "              [0.75, [33, 113, 181]], [1, [8, 48, 107]]]");
    CHECK(occurrences(html, "<script>\n" + script + "</script>") == 1);
}

TEST_CASE("the colour ramp is written once: the page's script colours as the SVG does", "[attention_page][assets]") {
    const std::string html = render_attention_page(small_heads(), {"Ramp", {}}, 0);
    const std::size_t start = html.find("var ramp = ");
    REQUIRE(start != std::string::npos);
    const std::string literal = html.substr(start, html.find(';', start) - start);
    const std::regex stop(R"(\[([0-9.]+), \[(\d+), (\d+), (\d+)\]\])");
    std::size_t stops = 0;
    for (std::sregex_iterator it(literal.begin(), literal.end(), stop), end; it != end; ++it, ++stops) {
        char colour[8];
        std::snprintf(colour, sizeof colour, "#%02x%02x%02x", std::stoi((*it)[2]), std::stoi((*it)[3]), std::stoi((*it)[4]));
        INFO("the stop at " << (*it)[1]);
        CHECK(ramp_colour(std::stod((*it)[1])) == colour);
    }
    CHECK(stops == std::size(ramp_stops));
    CHECK(ramp_colour(0.0) == "#f7fbff");   // ColorBrewer's Blues, the lightest
    CHECK(ramp_colour(1.0) == "#08306b");   // and the darkest
    CHECK(ramp_colour(0.125) == "#dfebf7"); // halfway between the first two stops
}

TEST_CASE("html_escape escapes the five characters of HTML and XML", "[attention_page]") {
    CHECK(html_escape("<b class=\"x\">Tom & Jerry's</b>") ==
          "&lt;b class=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;");
    CHECK(html_escape("perro ñ ▁the") == "perro ñ ▁the");
}

TEST_CASE("json_string is valid JSON that cannot close a script element", "[attention_page]") {
    CHECK(json_string("perro") == "\"perro\"");
    CHECK(json_string("</script>") == "\"\\u003c/script\\u003e\"");
    CHECK(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
    CHECK(json_string("&\n\t") == "\"\\u0026\\u000a\\u0009\"");
    CHECK(json_string("x\xE2\x80\xA8y\xE2\x80\xA9") == "\"x\\u2028y\\u2029\"");
    CHECK(json_string("ñ") == "\"ñ\"");
}

TEST_CASE("the embedded weights keep 7 significant digits", "[attention_page]") {
    const std::string json = weights_json(small_heads().weights);
    CHECK(json == "[\n[[0.25,0.75,0],[1,0,0],[0.1234568,0.5,0.3765432]],\n"
                  "[[0,0,1],[0.5,0.5,0],[1e-09,1,0]]]");
}

TEST_CASE("the page is one file that asks the network for nothing", "[attention_page]") {
    const std::string html = render_attention_page(small_heads(), {"A <title>", {"Untrained & seeded."}}, 1);
    CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
    CHECK_THAT(html, Catch::Contains("default-src 'none'"));  // the browser itself refuses any request
    for (const std::string fetch : {"<link", "src=", "@import", "url(", "fetch(", "XMLHttpRequest", "https:"}) {
        INFO(fetch);
        CHECK(occurrences(html, fetch) == 0);
    }
    // Every "http:" is the SVG namespace, a name rather than an address.
    CHECK(occurrences(html, "http:") == occurrences(html, "http://www.w3.org/2000/svg"));
    CHECK_THAT(html, Catch::Contains("<h1>A &lt;title&gt;</h1>") && Catch::Contains("<p>Untrained &amp; seeded.</p>"));
}

TEST_CASE("a long title is shortened so that the pictures stay on the first screen", "[attention_page]") {
    const std::string sentence(200, 'a');
    const std::string html = render_attention_page(small_heads(), {sentence, {}}, 0);
    CHECK_THAT(html, Catch::Contains("<h1>" + std::string(89, 'a') + "…</h1>"));
    CHECK_THAT(render_heatmap_svg(small_heads(), 0, sentence), Catch::Contains(std::string(89, 'a') + "…</text>"));
}

TEST_CASE("hostile token text stays text in the page", "[attention_page]") {
    const std::string html = render_attention_page(small_heads(), {"t", {}}, 0);
    CHECK(occurrences(html, "</script>") == 2);  // the data block's and the script's own
    CHECK(occurrences(html, "<script") == 2);
    CHECK_THAT(html, Catch::Contains("\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\""));
    CHECK_THAT(html, Catch::Contains("\"\\\"quoted\\\" \\u0026 'single'\""));
}

TEST_CASE("the page embeds the tokens the weights and the selected head", "[attention_page]") {
    const std::string html = render_attention_page(small_heads(), {"t", {}}, 1);
    CHECK_THAT(html, Catch::Contains("{\"selectedHead\":1,"));
    CHECK_THAT(html, Catch::Contains("\"queryTokens\":[\"El\","));
    CHECK_THAT(html, Catch::Contains("\"weights\":" + weights_json(small_heads().weights) + "}</script>"));
}

TEST_CASE("the page refuses a missing head and too many tokens", "[attention_page][errors]") {
    CHECK_THROWS_WITH(render_attention_page(small_heads(), {"t", {}}, 2),
                      Catch::Contains("there is no head 2 (--head): the weights have 2 heads (0 to 1)"));
    AttentionHeads many;
    many.weights = attn::Tensor3::from_shape({1, 2, max_drawn_tokens + 1});
    many.weights.fill(1.0 / double(max_drawn_tokens + 1));
    many.query_tokens = {"a", "b"};
    many.key_tokens.assign(max_drawn_tokens + 1, "k");
    CHECK_THROWS_WITH(render_attention_page(many, {"t", {}}, 0), Catch::Contains("readable up to 128"));
    CHECK_THROWS_AS(render_heatmap_svg(many, 0, "t"), attn::InputError);
}

TEST_CASE("the SVG heatmap draws one cell per pair with escaped labels and values", "[attention_page]") {
    const std::string svg = render_heatmap_svg(small_heads(), 0, "Tom & Jerry");
    CHECK_THAT(svg, Catch::StartsWith("<?xml") && Catch::Contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(occurrences(svg, "<rect") == 9 + 2);  // the cells, the background and the legend
    CHECK(occurrences(svg, "<script") == 0);
    CHECK_THAT(svg, Catch::Contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    CHECK_THAT(svg, Catch::Contains("Tom &amp; Jerry"));
    CHECK_THAT(svg, Catch::Contains(">0.75</text>") && Catch::Contains(": 0.1234568</title>"));
    CHECK_THAT(svg, Catch::Contains("head 0 of 2"));
}
