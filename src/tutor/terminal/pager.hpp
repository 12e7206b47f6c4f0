// tutor/terminal/pager.hpp — the walkthrough on a projector: one screen at a time, one key at a time.
//
// Why: a class follows a lesson at the teacher's pace. Enter or space shows the next screen, b the
// previous one, s the step's last screen (then the next step's first), n and p the next and
// previous step, g N jumps to step N, q quits; Ctrl-D (or the input closing) stops too, and says
// so, rather than pouring the rest of the lesson onto the screen unpaused. The pager draws on the
// alternate screen and gives the terminal back as it found it (key_input.hpp).
//
//   PagerResult result = run_pager(layout, request, terminal, 0);
//   if (result.outcome == PagerOutcome::quit) …
#pragma once

#include <functional>

#include "tutor/terminal/terminal.hpp"
#include "tutor/lesson/walkthrough.hpp"

namespace attn::tutor {

enum class PagerOutcome {
    finished,      // the class went past the last screen
    quit,          // q
    end_of_input,  // Ctrl-D, or the input closed
};

struct PagerResult {
    PagerOutcome outcome = PagerOutcome::finished;
    std::size_t step = 0;  // the step on screen when the pager stopped
};

/// Lays a walkthrough out for a terminal (called again when the window changes size).
using WalkthroughLayout = std::function<Walkthrough(const Terminal&)>;

/// Shows the screens from the first one of step `first_step`, reading keys from standard input
/// and drawing on standard output, which must both be terminals. `request` is how the size was
/// asked for, so that a resize measures the window again unless --width/--height fixed it.
PagerResult run_pager(const WalkthroughLayout& layout, const TerminalRequest& request, Terminal terminal,
                      std::size_t first_step);

}  // namespace attn::tutor
