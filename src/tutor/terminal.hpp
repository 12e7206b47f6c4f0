// tutor/terminal.hpp — what the tutor's output looks like on a terminal, a projector or a pipe.
//
// Why: a lesson is read on a projector, so headings stand out and prose wraps to the screen; the
// same output piped into a file or a test must be plain text. Colour is on only when standard
// output is a terminal and NO_COLOR is not set (https://no-color.org); pauses only when both
// standard input and output are terminals.
//
//   const Terminal terminal = detect_terminal();
//   std::cout << paint(terminal, Style::good, "✓") << render_markdown(prose, terminal);
#pragma once

#include <cstddef>
#include <string>

namespace attn::tutor {

struct Terminal {
    bool colour = false;
    bool interactive = false;  // may pause and wait for Enter
    std::size_t width = 80;    // columns used for wrapping prose
};

/// Looks at stdout, stdin, NO_COLOR and the window size.
Terminal detect_terminal();

enum class Style { bold, dim, emphasis, heading, code, good, bad, accent };

/// `text` wrapped in the escape codes of `style`, or unchanged when colour is off.
std::string paint(const Terminal& terminal, Style style, const std::string& text);

/// Columns a string occupies: escape codes and combining marks take none.
std::size_t visible_width(const std::string& text);

/// Markdown prose for the terminal: paragraphs and list items wrapped to the width, `code` and
/// **bold** styled, [links](url) reduced to their text, code blocks and tables kept verbatim,
/// HTML comments dropped.
std::string render_markdown(const std::string& markdown, const Terminal& terminal);

/// Waits for Enter; returns false when the user typed q (or Q) to quit. Never waits when not interactive.
bool wait_for_next_step(const Terminal& terminal);

}  // namespace attn::tutor
