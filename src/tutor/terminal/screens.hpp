// tutor/terminal/screens.hpp — a walkthrough cut into screens that each fit the terminal.
//
// Why: on a projector the class must always see which lesson and step it is looking at. Every
// screen starts with the lesson's title and the step's heading; a pause comes before each tensor
// block (the tensor is then added below the prose it follows, when both fit) and at each step;
// a step taller than the screen is cut at a blank line where it can be, never inside what a part
// keeps together (WalkPart::keep: a diagram, a table, a heat-map grid with its caption and legend)
// when that fits one screen. The last row is the status bar with the controls, and at least three
// spaces before "step 2 · 1/3" (a shorter legend when the long one would leave less). The pager shows these screens; `attn lesson --screens` prints
// them, so that a test can check each one.
//
//   auto screens = paginate(walkthrough, terminal);         // terminal.width × terminal.height
//   std::cout << draw_screen(walkthrough, screens, 0, terminal, "");
#pragma once

#include <string>
#include <vector>

#include "tutor/lesson/walkthrough.hpp"

namespace attn::tutor {

struct Screen {
    std::size_t step = 0;                // index into Walkthrough::steps
    std::size_t page = 0, pages = 0;     // this screen's position among its step's screens
    std::vector<std::string> lines;      // the header and the body, without the status bar
};

/// Every screen of every step, in order. Each has at most terminal.height − 1 lines (the tutor
/// never asks for fewer than 10 rows), each line at most terminal.width columns.
std::vector<Screen> paginate(const Walkthrough& walkthrough, const Terminal& terminal);

/// The index of the first screen of step `step`.
std::size_t first_screen_of_step(const std::vector<Screen>& screens, std::size_t step);

/// The status bar: the controls and where the class is ("step 2 · 1/3"), or `message` in place of
/// the controls when not empty. Exactly terminal.width − 1 columns, without a newline.
std::string status_bar(const Walkthrough& walkthrough, const Screen& screen, const Terminal& terminal,
                       const std::string& message);

/// Screen `index` as the terminal shows it: its lines, blank lines down to the last row, and the
/// status bar on the last row: terminal.height rows in all, the last without a newline.
std::string draw_screen(const Walkthrough& walkthrough, const std::vector<Screen>& screens, std::size_t index,
                        const Terminal& terminal, const std::string& message);

}  // namespace attn::tutor
