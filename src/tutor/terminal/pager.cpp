#include "tutor/terminal/pager.hpp"

#include <cctype>
#include <iostream>
#include <optional>
#include <unistd.h>

#include "tutor/terminal/key_input.hpp"
#include "tutor/terminal/screens.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

constexpr char clear_screen[] = "\033[H\033[2J";
constexpr std::size_t longest_step_number = 4;

// Where the pager is, and what it is waiting for.
struct PagerState {
    Walkthrough walkthrough;
    std::vector<Screen> screens;
    std::size_t index = 0;
    bool typing_step = false;  // after g: digits of a step number
    std::string digits;
    std::string message;       // shown once in the status bar, in place of the controls
};

void lay_out(PagerState& state, const WalkthroughLayout& layout, const Terminal& terminal) {
    // Keep the class on the same step, and on the same screen of it when it still exists.
    const bool had_screens = !state.screens.empty();
    const std::size_t step = had_screens ? state.screens[state.index].step : 0;
    const std::size_t page = had_screens ? state.screens[state.index].page : 0;
    state.walkthrough = layout(terminal);
    state.screens = paginate(state.walkthrough, terminal);
    if (had_screens) {
        state.index = first_screen_of_step(state.screens, step);
        const std::size_t pages = state.screens[state.index].pages;
        state.index += std::min(page, pages - 1);
    }
}

void go_to_typed_step(PagerState& state) {
    state.typing_step = false;
    if (state.digits.empty()) return;
    const int number = std::stoi(state.digits);
    if (const auto step = find_step(state.walkthrough, number)) {
        state.index = first_screen_of_step(state.screens, *step);
    } else {
        state.message = trf("There is no step {1} (steps {2} to {3}).",
                            {state.digits, std::to_string(state.walkthrough.steps.front().number),
                             std::to_string(state.walkthrough.steps.back().number)});
    }
}

// A key while a step number is typed. Returns false when the input ended.
bool type_step_number(PagerState& state, const Key& key) {
    if (key.kind == KeyKind::end_of_input) return false;
    if (key.kind == KeyKind::character && std::isdigit(static_cast<unsigned char>(key.character))) {
        if (state.digits.size() < longest_step_number) state.digits += key.character;
    } else if (key.kind == KeyKind::backspace) {
        if (state.digits.empty()) state.typing_step = false;
        else state.digits.pop_back();
    } else if (key.kind == KeyKind::enter) {
        go_to_typed_step(state);
    } else if (key.kind != KeyKind::resized) {
        state.typing_step = false;  // Esc, q or any other key: cancelled
    }
    return true;
}

// Paging by step: s shows the last screen of the step on screen (the step's results, its inputs
// skipped); pressed there, the next step's first screen. n and p go to the next and previous step.
std::size_t last_screen_of_step(const std::vector<Screen>& screens, std::size_t index) {
    return index - screens[index].page + screens[index].pages - 1;
}

std::string status_message(const PagerState& state) {
    if (state.typing_step) return trf("Go to step: {1}_   (Enter: go · Esc: cancel)", {state.digits});
    return state.message;
}

// Enter, space: the next screen, or the end after the last.
std::optional<PagerOutcome> next_screen(PagerState& state) {
    if (state.index + 1 == state.screens.size()) return PagerOutcome::finished;
    ++state.index;
    return std::nullopt;
}

void previous_screen(PagerState& state) {
    if (state.index > 0) --state.index;
    else state.message = tr("This is the first screen.");
}

// A key typed as a character: a move through the screens or steps, quit, or the start of a step
// number. An outcome when it ends the pager.
std::optional<PagerOutcome> press_character(PagerState& state, char c) {
    if (c == ' ') return next_screen(state);
    if (c == 'b' || c == 'B') {
        previous_screen(state);
    } else if (c == 's' || c == 'S') {
        const std::size_t last = last_screen_of_step(state.screens, state.index);
        if (last == state.index) return next_screen(state);
        state.index = last;
    } else if (c == 'n' || c == 'N') {
        const std::size_t last = last_screen_of_step(state.screens, state.index);
        if (last + 1 == state.screens.size()) return PagerOutcome::finished;
        state.index = last + 1;
    } else if (c == 'p' || c == 'P') {
        const std::size_t first = state.index - state.screens[state.index].page;
        if (first == 0) state.message = tr("This is the first step.");
        else state.index = first_screen_of_step(state.screens, state.screens[first - 1].step);
    } else if (c == 'q' || c == 'Q') {
        return PagerOutcome::quit;
    } else if (c == 'g' || c == 'G' || std::isdigit(static_cast<unsigned char>(c))) {
        state.typing_step = true;
        state.digits = std::isdigit(static_cast<unsigned char>(c)) ? std::string(1, c) : "";
    } else {
        state.message = tr("Keys: Enter next · b back · s step end · n/p step · g N · q quit");
    }
    return std::nullopt;
}

}  // namespace

PagerResult run_pager(const WalkthroughLayout& layout, const TerminalRequest& request, Terminal terminal,
                      std::size_t first_step) {
    TerminalSession session(STDIN_FILENO, STDOUT_FILENO);
    PagerState state;
    lay_out(state, layout, terminal);
    state.index = first_screen_of_step(state.screens, first_step);
    for (;;) {
        std::cout << clear_screen << draw_screen(state.walkthrough, state.screens, state.index, terminal, status_message(state))
                  << std::flush;
        state.message.clear();
        const Key key = session.read_key();
        const std::size_t step = state.screens[state.index].step;
        if (state.typing_step) {
            if (!type_step_number(state, key)) return {PagerOutcome::end_of_input, step};
            continue;
        }
        std::optional<PagerOutcome> outcome;
        switch (key.kind) {
            case KeyKind::end_of_input: return {PagerOutcome::end_of_input, step};
            case KeyKind::enter:
            case KeyKind::next: outcome = next_screen(state); break;
            case KeyKind::previous:
            case KeyKind::backspace: previous_screen(state); break;
            case KeyKind::resized: {
                // Measure the window again (unless --width and --height fixed the size).
                TerminalRequest again = request;
                again.light = terminal.light;
                again.may_query_background = false;
                terminal = detect_terminal(again);
                lay_out(state, layout, terminal);
                break;
            }
            case KeyKind::escape: break;
            case KeyKind::character: outcome = press_character(state, key.character); break;
        }
        if (outcome) return {*outcome, step};
    }
}

}  // namespace attn::tutor
