// Tests for tutor/terminal/screens.hpp and the step lookup of tutor/lesson/walkthrough.hpp: screens that fit the
// terminal, each headed by its lesson and step; a pause before each tensor; tall steps cut at
// blank lines.
#include <catch2/catch.hpp>

#include "tutor/terminal/screens.hpp"
#include "tutor/terminal/text_layout.hpp"

using namespace attn::tutor;

namespace {

std::string numbered_lines(const std::string& prefix, int count) {
    std::string text;
    for (int i = 0; i < count; ++i) text += prefix + " " + std::to_string(i) + "\n";
    return text;
}

Walkthrough sample() {
    Walkthrough walkthrough;
    walkthrough.lesson_number = 7;
    walkthrough.lesson_title = "Lesson 7 — A sample";
    walkthrough.steps.push_back({"Introduction", 0, {{false, numbered_lines("intro", 12) + "\n" + numbered_lines("more", 12)}}});
    walkthrough.steps.push_back({"Step 1 — Tensors", 1,
                                 {{false, numbered_lines("prose", 3)},
                                  {true, numbered_lines("first tensor", 5)},
                                  {false, numbered_lines("comment", 2)},
                                  {true, numbered_lines("second tensor", 14)}}});
    walkthrough.steps.push_back({"Step 2 — Empty", 2, {}});
    return walkthrough;
}

Terminal screen(std::size_t width, std::size_t height) {
    Terminal terminal;
    terminal.width = width;
    terminal.height = height;
    return terminal;
}

bool contains(const Screen& screen, const std::string& text) {
    for (const auto& line : screen.lines) {
        if (line == text) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("every screen starts with the lesson and the step, and fits the terminal", "[screens]") {
    const Walkthrough walkthrough = sample();
    for (const Terminal& terminal : {screen(80, 24), screen(100, 30), screen(40, 10)}) {
        const auto screens = paginate(walkthrough, terminal);
        for (std::size_t i = 0; i < screens.size(); ++i) {
            const Screen& s = screens[i];
            INFO("screen " << i << " at " << terminal.width << "x" << terminal.height);
            REQUIRE(s.lines.size() >= 2);
            CHECK(s.lines[0] == "Lesson 7 — A sample");
            CHECK_THAT(s.lines[1], Catch::StartsWith("── " + walkthrough.steps[s.step].title.substr(0, 10)));
            CHECK(s.lines.size() <= terminal.height - 1);
            const std::string drawn = draw_screen(walkthrough, screens, i, terminal, "");
            const auto rows = split_lines(drawn);
            CHECK(rows.size() == terminal.height);
            for (const auto& row : rows) CHECK(visible_width(row) <= terminal.width);
            CHECK(drawn.back() != '\n');  // a newline on the last row would scroll the title away
        }
    }
}

TEST_CASE("a pause comes before each tensor, which joins the prose above when both fit", "[screens]") {
    const auto screens = paginate(sample(), screen(80, 24));
    std::vector<Screen> step1;
    for (const auto& s : screens) {
        if (s.step == 1) step1.push_back(s);
    }
    // Header 3 lines + status bar: 20 rows for the body.
    REQUIRE(step1.size() == 3);
    CHECK(contains(step1[0], "prose 2"));
    CHECK_FALSE(contains(step1[0], "first tensor 0"));
    CHECK(contains(step1[1], "prose 0"));          // the prose stays in view
    CHECK(contains(step1[1], "first tensor 4"));
    CHECK(contains(step1[1], "comment 1"));        // the prose after a tensor belongs to it
    CHECK_FALSE(contains(step1[1], "second tensor 0"));
    // The second tensor does not fit under the first: a new screen, starting with the short
    // paragraph that introduces it.
    CHECK(step1[2].lines[3] == "comment 0");
    CHECK(step1[2].lines[4] == "comment 1");
    CHECK(step1[2].lines[5].empty());
    CHECK(step1[2].lines[6] == "second tensor 0");
    CHECK(step1[2].page == 2);
    CHECK(step1[2].pages == 3);
}

TEST_CASE("a long paragraph before a tensor is not repeated on the tensor's screen", "[screens]") {
    Walkthrough walkthrough = sample();
    walkthrough.steps[1].parts[2].text = numbered_lines("comment", 4);
    const auto screens = paginate(walkthrough, screen(80, 24));
    const Screen& last = screens[first_screen_of_step(screens, 1) + 2];
    CHECK(last.lines[3] == "second tensor 0");
}

TEST_CASE("a short tensor is not repeated above the next tensor's screen", "[screens]") {
    Walkthrough walkthrough = sample();
    walkthrough.steps[1].parts = {{true, numbered_lines("short tensor", 2)}, {true, numbered_lines("tall tensor", 19)}};
    const auto screens = paginate(walkthrough, screen(80, 24));
    const Screen& second = screens[first_screen_of_step(screens, 1) + 1];
    CHECK(second.lines[3] == "tall tensor 0");
}

TEST_CASE("a step taller than the screen is cut at a blank line", "[screens]") {
    const auto screens = paginate(sample(), screen(80, 24));
    REQUIRE(screens[0].step == 0);
    REQUIRE(screens[1].step == 0);
    // 12 lines, a blank, 12 lines: 25 rows do not fit in 20, the cut falls on the blank line.
    CHECK(screens[0].lines.back() == "intro 11");
    CHECK(screens[1].lines[3] == "more 0");
    // At 10 rows (6 for the body) the blank line is too far: cut where the screen is full.
    const auto small = paginate(sample(), screen(40, 10));
    CHECK(small[0].lines.size() == 9);
    CHECK(small[1].lines[3] == "intro 6");
}

// Four heat-map grids of 6 lines (caption, labels, 3 rows, legend) in one tensor block, as lesson
// 5 draws its (B, h) weights: 25 lines with the title, taller than the 20 rows of an 80×24 body.
WalkPart four_grids() {
    WalkPart part{true, "  weights  (B, h, T, S) = (2, 2, 3, 3)\n", {}};
    for (int g = 0; g < 4; ++g) {
        const std::size_t first = g == 0 ? 0 : split_lines(part.text).size();
        part.text += "  grid " + std::to_string(g) + " caption\n" + numbered_lines("  row of grid " + std::to_string(g), 4) +
                     "  legend of grid " + std::to_string(g) + "\n";
        part.keep.emplace_back(first, split_lines(part.text).size());
    }
    part.keep.emplace_back(0, split_lines(part.text).size());
    return part;
}

TEST_CASE("a heat-map grid stays on one screen with its caption and legend", "[screens]") {
    Walkthrough walkthrough = sample();
    walkthrough.steps[1].parts = {{false, numbered_lines("prose", 2)}, four_grids()};
    for (const std::size_t height : {24, 17, 14}) {
        const auto screens = paginate(walkthrough, screen(80, height));
        std::string caption_screens;
        for (const Screen& s : screens) {
            if (s.step != 1) continue;
            for (std::size_t i = 0; i < s.lines.size(); ++i) {
                const std::string& line = s.lines[i];
                INFO("at 80x" << height << ": " << line);
                // A caption is followed on its screen by its rows and legend; no screen starts inside a grid.
                if (line.find("caption") != std::string::npos) {
                    REQUIRE(i + 5 < s.lines.size());
                    CHECK(s.lines[i + 5].find("legend") != std::string::npos);
                }
                if (i == 3) CHECK((line.find("caption") != std::string::npos || line.find("weights") != std::string::npos ||
                                   line.find("prose") != std::string::npos));
            }
        }
    }
    // Without the ranges, the same lines are cut where the screen is full, inside a grid.
    walkthrough.steps[1].parts[1].keep.clear();
    const auto screens = paginate(walkthrough, screen(80, 24));
    CHECK(screens[first_screen_of_step(screens, 1) + 2].lines[3].find("caption") == std::string::npos);
}

TEST_CASE("a code block with a blank line inside stays on one screen when it fits", "[screens]") {
    Walkthrough walkthrough = sample();
    const std::string diagram = "    top-left   bottom-right\n    captions\n\n    grid row 0\n    grid row 1\n";
    WalkPart prose{false, numbered_lines("prose", 16) + "\n" + diagram + "\nafter", {}};
    prose.keep.emplace_back(17, 22);
    walkthrough.steps[1].parts = {prose};
    const auto screens = paginate(walkthrough, screen(80, 24));
    const std::size_t first = first_screen_of_step(screens, 1);
    REQUIRE(screens[first + 1].step == 1);
    CHECK(screens[first].lines.back() == "prose 15");
    CHECK(screens[first + 1].lines[3] == "    top-left   bottom-right");
    CHECK(screens[first + 1].lines[6] == "    grid row 0");
    // A block taller than a screen is cut as before.
    prose.keep = {{0, 22}};
    walkthrough.steps[1].parts = {prose};
    CHECK(paginate(walkthrough, screen(80, 24))[first].lines.back() == "    captions");
}

TEST_CASE("a step without content still has a screen", "[screens]") {
    const Walkthrough walkthrough = sample();
    const auto screens = paginate(walkthrough, screen(80, 24));
    CHECK(screens.back().step == 2);
    CHECK(first_screen_of_step(screens, 2) == screens.size() - 1);
    CHECK(first_screen_of_step(screens, 1) == 2);
}

TEST_CASE("the status bar names the step and the screen, and fits", "[screens]") {
    const Walkthrough walkthrough = sample();
    for (std::size_t width : {40, 80, 100}) {
        const auto screens = paginate(walkthrough, screen(width, 24));
        const std::string bar = status_bar(walkthrough, screens[3], screen(width, 24), "");
        CHECK(visible_width(bar) == width - 1);
        CHECK_THAT(bar, Catch::EndsWith("step 1 · 2/3 "));
        CHECK_THAT(bar, Catch::Contains("q"));
    }
    const auto screens = paginate(walkthrough, screen(80, 24));
    CHECK_THAT(status_bar(walkthrough, screens[0], screen(80, 24), "Go to step: 4_"), Catch::StartsWith(" Go to step: 4_ "));
}

TEST_CASE("the status bar keeps three spaces before the step, with a shorter legend when needed", "[screens]") {
    Walkthrough walkthrough = sample();
    walkthrough.steps[1].number = 10;
    for (std::size_t width = 40; width <= 120; ++width) {
        const auto screens = paginate(walkthrough, screen(width, 24));
        const std::string bar = status_bar(walkthrough, screens[3], screen(width, 24), "");
        INFO(width << ": '" << bar << "'");
        const std::size_t where = bar.rfind(" step 10 · ");
        REQUIRE(where != std::string::npos);
        CHECK(bar.compare(where - 2, 3, "   ") == 0);
    }
}

TEST_CASE("find_step reads the number of a Step heading, else the position", "[screens]") {
    Walkthrough walkthrough = sample();
    walkthrough.steps.push_back({"Where the code lives", 3, {}});
    CHECK(find_step(walkthrough, 0) == 0u);
    CHECK(find_step(walkthrough, 2) == 2u);
    CHECK(find_step(walkthrough, 3) == 3u);
    CHECK_FALSE(find_step(walkthrough, 4).has_value());
    CHECK_FALSE(find_step(walkthrough, -1).has_value());
    // A heading "Step 9" is found by its number wherever it is.
    walkthrough.steps[2].title = "Step 9 — Renumbered";
    CHECK(find_step(walkthrough, 9) == 2u);
}
