#include "tutor/terminal/screens.hpp"

#include <algorithm>

#include "tutor/terminal/text_layout.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

bool blank(const std::string& line) { return line.find_first_not_of(' ') == std::string::npos; }

// The longest paragraph repeated above a tensor that starts a new screen.
constexpr std::size_t introduction_rows = 3;

// The lesson's title, the step's rule and a blank line.
std::vector<std::string> header_lines(const Walkthrough& walkthrough, std::size_t step, const Terminal& terminal,
                                      bool compact) {
    std::vector<std::string> lines{paint(terminal, Style::bold, truncate_to_width(walkthrough.lesson_title, terminal.width))};
    const std::string& title = walkthrough.steps[step].title;
    if (compact) {
        lines.push_back(split_lines(step_rule(terminal, truncate_to_width(title, terminal.width - 4)))[0]);
    } else {
        for (const std::string& line : split_lines(step_rule(terminal, title))) lines.push_back(line);
    }
    lines.push_back("");
    return lines;
}

// The step's parts as lines; the indices where a tensor part begins (at the blank before it).
struct StepBody {
    std::vector<std::string> lines;
    std::vector<bool> prose;  // per line: part of a prose part (not a tensor block)
    std::vector<std::size_t> pauses;
    LineRanges keep;          // [first, last) lines kept on one screen when they fit
};

StepBody body_of(const WalkStep& step, const Terminal& terminal) {
    StepBody body;
    for (const WalkPart& part : step.parts) {
        if (part.tensor && !body.lines.empty()) body.pauses.push_back(body.lines.size());
        if (!body.lines.empty()) {
            body.lines.push_back("");
            body.prose.push_back(false);
        }
        // Where each line of the part begins in the body (a line too wide becomes several).
        std::vector<std::size_t> starts;
        for (const std::string& line : split_lines(part.text)) {
            starts.push_back(body.lines.size());
            for (const std::string& piece : break_line(line, terminal.width)) {
                body.lines.push_back(piece);
                body.prose.push_back(!part.tensor);
            }
        }
        starts.push_back(body.lines.size());
        for (const auto& [first, last] : part.keep) {
            if (first < last && last < starts.size()) body.keep.emplace_back(starts[first], starts[last]);
        }
    }
    return body;
}

// Whether a screen may end before line `at`: not inside a range that fits on one screen.
bool may_cut_before(const StepBody& body, std::size_t at, std::size_t rows) {
    return std::none_of(body.keep.begin(), body.keep.end(), [&](const auto& range) {
        return range.first < at && at < range.second && range.second - range.first <= rows;
    });
}

// Whether a kept range starts at line `at` (a heat map's caption, a code block).
bool starts_kept(const StepBody& body, std::size_t at) {
    return std::any_of(body.keep.begin(), body.keep.end(), [at](const auto& range) { return range.first == at; });
}

// Where a screen that starts at `start` and cannot hold the rest ends: at the last blank line (or
// the start of a kept range) in the lower two thirds, outside any kept range that fits a screen;
// else at the last line outside such a range (a diagram, a grid with its caption and legend go to
// the next screen whole); else at the bottom.
std::size_t cut_point(const StepBody& body, std::size_t start, std::size_t rows) {
    const std::size_t n = body.lines.size();
    for (std::size_t j = start + rows; j > start + rows / 3; --j) {
        if (j < n && (blank(body.lines[j]) || starts_kept(body, j)) && may_cut_before(body, j, rows)) return j;
    }
    for (std::size_t j = start + rows; j > start; --j) {
        if (may_cut_before(body, j, rows)) return j;
    }
    return start + rows;
}

// Screens of one step: [start, end) ranges of its body lines, each at most `rows` long.
std::vector<std::pair<std::size_t, std::size_t>> cut_step(const StepBody& body, std::size_t rows) {
    const std::vector<std::string>& lines = body.lines;
    const std::size_t n = lines.size();
    auto skip_blanks = [&](std::size_t i) {
        while (i < n && blank(lines[i])) ++i;
        return i;
    };
    auto trim_blanks = [&](std::size_t from, std::size_t to) {
        while (to > from && blank(lines[to - 1])) --to;
        return to;
    };
    std::vector<std::size_t> bounds{0};
    for (std::size_t pause : body.pauses) {
        if (pause > bounds.back()) bounds.push_back(pause);
    }
    bounds.push_back(n);

    std::vector<std::pair<std::size_t, std::size_t>> screens;
    std::size_t start = 0, shown_end = 0;
    bool screen_open = false;
    for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
        const std::size_t segment_start = bounds[s], segment_end = bounds[s + 1];
        // The tensor fits below what is on the screen: show it there, the prose still in view.
        if (screen_open && trim_blanks(start, segment_end) - start <= rows) {
            const std::size_t end = trim_blanks(start, segment_end);
            if (end > shown_end) screens.emplace_back(start, end);
            shown_end = std::max(shown_end, end);
            continue;
        }
        start = skip_blanks(segment_start);
        // A tensor on a new screen keeps the short paragraph that introduces it, when both fit.
        if (s > 0) {
            std::size_t paragraph = segment_start;
            while (paragraph > 0 && blank(lines[paragraph - 1])) --paragraph;
            const std::size_t paragraph_end = paragraph;
            while (paragraph > 0 && !blank(lines[paragraph - 1])) --paragraph;
            const bool short_paragraph = paragraph_end > paragraph && paragraph_end - paragraph <= introduction_rows &&
                                         body.prose[paragraph];
            if (short_paragraph && trim_blanks(paragraph, segment_end) - paragraph <= rows) start = paragraph;
        }
        while (trim_blanks(start, segment_end) - start > rows) {
            screens.emplace_back(start, trim_blanks(start, cut_point(body, start, rows)));
            start = skip_blanks(screens.back().second);
        }
        const std::size_t end = trim_blanks(start, segment_end);
        if (end > start) screens.emplace_back(start, end);
        shown_end = end;
        screen_open = end > start;
    }
    if (screens.empty()) screens.emplace_back(0, 0);  // a heading without content
    return screens;
}

}  // namespace

std::vector<Screen> paginate(const Walkthrough& walkthrough, const Terminal& terminal) {
    std::vector<Screen> screens;
    for (std::size_t step = 0; step < walkthrough.steps.size(); ++step) {
        std::vector<std::string> header = header_lines(walkthrough, step, terminal, false);
        if (header.size() + 1 + 3 > terminal.height) header = header_lines(walkthrough, step, terminal, true);
        const std::size_t rows = terminal.height > header.size() + 2 ? terminal.height - 1 - header.size() : 1;
        const StepBody body = body_of(walkthrough.steps[step], terminal);
        const auto ranges = cut_step(body, rows);
        for (std::size_t page = 0; page < ranges.size(); ++page) {
            Screen screen;
            screen.step = step;
            screen.page = page;
            screen.pages = ranges.size();
            screen.lines = header;
            screen.lines.insert(screen.lines.end(), body.lines.begin() + static_cast<std::ptrdiff_t>(ranges[page].first),
                                body.lines.begin() + static_cast<std::ptrdiff_t>(ranges[page].second));
            screens.push_back(std::move(screen));
        }
    }
    return screens;
}

std::size_t first_screen_of_step(const std::vector<Screen>& screens, std::size_t step) {
    for (std::size_t i = 0; i < screens.size(); ++i) {
        if (screens[i].step == step) return i;
    }
    return 0;
}

std::string status_bar(const Walkthrough& walkthrough, const Screen& screen, const Terminal& terminal,
                       const std::string& message) {
    const std::size_t width = terminal.width - 1;  // the last column of the last row is left alone
    const WalkStep& step = walkthrough.steps[screen.step];
    const std::string where =
        trf("step {1} · {2}/{3}", {std::to_string(step.number), std::to_string(screen.page + 1), std::to_string(screen.pages)}) + " ";
    std::string left;
    if (!message.empty()) {
        left = " " + message;
    } else {
        // The longest legend that leaves a visible gap before "step 2 · 1/3".
        constexpr std::size_t gap = 3;
        for (const std::string& controls :
             {tr("Enter/space: next · b: back · s: end of step · g N: go to step · q: quit"),
              tr("Enter: next · b: back · s: end of step · g N: step · q: quit"),
              tr("Enter/space: next · b: back · g N: go to step · q: quit"), tr("Enter: next · b: back · g N: step · q: quit"),
              std::string("Enter · b · s · g N · q"), std::string("Enter · b · q"), std::string()}) {
            left = " " + controls;
            if (visible_width(left) + gap + visible_width(where) <= width) break;
        }
    }
    left = truncate_to_width(left, width > visible_width(where) + 1 ? width - visible_width(where) - 1 : width);
    const std::size_t used = visible_width(left) + visible_width(where);
    std::string bar = left + std::string(width > used ? width - used : 0, ' ') + (used < width ? where : "");
    bar = truncate_to_width(bar, width);
    return paint(terminal, Style::status_bar, bar);
}

std::string draw_screen(const Walkthrough& walkthrough, const std::vector<Screen>& screens, std::size_t index,
                        const Terminal& terminal, const std::string& message) {
    const Screen& screen = screens[index];
    std::string out;
    for (const std::string& line : screen.lines) out += line + "\n";
    for (std::size_t row = screen.lines.size(); row + 1 < terminal.height; ++row) out += "\n";
    return out + status_bar(walkthrough, screen, terminal, message);
}

}  // namespace attn::tutor
