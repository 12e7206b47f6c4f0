// Tests for tutor/terminal/terminal.hpp and tutor/terminal/key_input.hpp's answer parsing: columns counted as a
// terminal counts them, the background read from COLORFGBG and from an OSC 11 answer, and
// palettes without faint text or mid-tone colours.
#include <catch2/catch.hpp>

#include "tutor/terminal/key_input.hpp"
#include "tutor/terminal/terminal.hpp"

using namespace attn::tutor;

TEST_CASE("visible_width counts columns, not bytes", "[terminal]") {
    CHECK(visible_width("scores") == 6);
    CHECK(visible_width("\033[1;96mscores\033[0m") == 6);          // escape codes take no column
    CHECK(visible_width("h̄_s") == 3);                              // a combining macron takes none
    CHECK(visible_width("漢字") == 4);                              // wide characters take two
    CHECK(visible_width("🙂 ok") == 5);                             // so does an emoji
    CHECK(visible_width("a\u200Bb") == 2);                          // a zero-width space takes none
    CHECK(visible_width("── √d_k · −∞ …") == 14);                   // box drawing, math: one each
    CHECK(visible_width("\033]11;?\033\\x") == 1);                  // an OSC sequence takes none
    CHECK(visible_width(std::string("\xff\xfe", 2)) == 2);          // stray bytes: one column each, no crash
    CHECK(visible_width(std::string("\xe6\xbc", 2)) == 2);          // a cut UTF-8 character: no crash
}

TEST_CASE("COLORFGBG names the background as its last field", "[terminal]") {
    CHECK(background_from_colorfgbg("15;0") == false);          // white on black
    CHECK(background_from_colorfgbg("0;15") == true);           // black on white
    CHECK(background_from_colorfgbg("0;default;7") == true);    // rxvt's three fields
    CHECK(background_from_colorfgbg("7;8") == false);           // 8, dark grey, is dark
    CHECK_FALSE(background_from_colorfgbg(nullptr).has_value());
    CHECK_FALSE(background_from_colorfgbg("").has_value());
    CHECK_FALSE(background_from_colorfgbg("0;default").has_value());
    CHECK_FALSE(background_from_colorfgbg("0;255").has_value());
}

TEST_CASE("an OSC 11 answer tells a light background from a dark one", "[terminal]") {
    CHECK(background_answer_is_light("\033]11;rgb:ffff/ffff/ffff\033\\") == true);
    CHECK(background_answer_is_light("\033]11;rgb:0000/0000/0000\007\033[?62;c") == false);
    CHECK(background_answer_is_light("\033]11;rgb:fd/f6/e3\033\\") == true);  // Solarized light, two digits
    CHECK(background_answer_is_light("\033]11;rgb:1e1e/1e1e/2e2e\033\\") == false);
    CHECK_FALSE(background_answer_is_light("\033[?62;c").has_value());  // no OSC 11: only the attributes
    CHECK_FALSE(background_answer_is_light("\033]11;rgb:/").has_value());
}

TEST_CASE("the palettes are high-contrast on both backgrounds", "[terminal]") {
    for (const bool light : {false, true}) {
        Terminal terminal;
        terminal.colour = true;
        terminal.light = light;
        for (Style style : {Style::bold, Style::dim, Style::emphasis, Style::heading, Style::code, Style::good, Style::bad,
                            Style::accent, Style::status_bar}) {
            const std::string text = paint(terminal, style, "x");
            INFO("light " << light << ": " << text.substr(1));
            CHECK(text.find("\033[2m") == std::string::npos);     // faint
            CHECK(text.find(";2m") == std::string::npos);
            CHECK(text.find("38;5;180") == std::string::npos);    // the tan that washed out
            CHECK(visible_width(text) == 1);
        }
        // The two backgrounds get different colours for headings and code.
        Terminal other = terminal;
        other.light = !light;
        CHECK(paint(terminal, Style::heading, "x") != paint(other, Style::heading, "x"));
        CHECK(paint(terminal, Style::code, "x") != paint(other, Style::code, "x"));
    }
    CHECK(paint(Terminal{}, Style::heading, "plain") == "plain");  // no colour: no codes
}
