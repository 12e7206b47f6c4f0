// tutor/terminal/terminal.hpp — what the tutor's output looks like on a terminal, a projector or a pipe.
//
// Why: a lesson is read on a projector, so headings stand out, text is high-contrast on a dark or
// a light background, and everything fits the screen it is shown on; the same output piped into a
// file or a test is plain text of a known width. Colour is on only when standard output is a
// terminal and NO_COLOR is not set (https://no-color.org); pauses only when both standard input
// and output are terminals.
//
//   const Terminal terminal = detect_terminal({});
//   std::cout << paint(terminal, Style::good, "✓") << " scores\n";
//   visible_width("\033[1mé\033[0m漢");   // 3: escape codes take no column, 漢 takes two
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace attn::tutor {

struct Terminal {
    bool colour = false;
    bool interactive = false;  // may pause and wait for a key
    bool light = false;        // a light background: the palette and heat maps are drawn for it
    std::size_t width = 80;    // columns every line must fit in
    std::size_t height = 24;   // rows of one screen of the walkthrough
};

/// What the command line asked for; anything left empty is detected.
struct TerminalRequest {
    std::optional<std::size_t> width, height;  // --width, --height
    std::optional<bool> light;                 // --light (true) / --dark (false)
    bool may_query_background = false;         // may ask the terminal its background colour (OSC 11)
};

/// Looks at stdout, stdin, NO_COLOR and the window size; off a terminal the size comes from
/// COLUMNS and LINES (default 80 × 24). A light background is taken from the request, else from
/// COLORFGBG ("15;0": white on black), else, when allowed, interactive, in colour and TERM is not
/// dumb, from the terminal's answer to an OSC 11 query within 150 ms; else it is taken as dark.
Terminal detect_terminal(const TerminalRequest& request = {});

/// The columns of the terminal on `fd` when a line may be redrawn there in place (a carriage
/// return, then "erase to the end of the line"): fd is a terminal, NO_COLOR is not set and TERM is
/// not dumb. Empty otherwise: a pipe or a file keeps every byte, so nothing is redrawn there.
std::optional<std::size_t> redraw_columns(int fd);

/// True when COLORFGBG names a light background colour (7, or 9 to 15), false when dark, empty
/// when the variable is absent or unreadable.
std::optional<bool> background_from_colorfgbg(const char* colorfgbg);

/// Kinds of text. Every style is high-contrast on both backgrounds: no faint text and no
/// mid-tone colours, which wash out on a projector. `dim` is kept for secondary text and is
/// drawn in the normal colour.
enum class Style { bold, dim, emphasis, heading, code, good, bad, accent, status_bar };

/// `text` wrapped in the escape codes of `style` for the terminal's background, or unchanged
/// when colour is off.
std::string paint(const Terminal& terminal, Style style, const std::string& text);

/// Columns a string occupies on a terminal: escape sequences and zero-width characters
/// (combining marks, joiners, variation selectors) take none, East Asian wide characters and
/// emoji two, every other character one.
std::size_t visible_width(const std::string& text);

/// The columns of one Unicode code point, as visible_width counts them (0, 1 or 2).
int code_point_width(char32_t code_point);

/// Length in bytes of the escape sequence starting at text[start] (CSI, OSC, or ESC and one
/// character), or 0 when text[start] is not ESC.
std::size_t escape_sequence_length(const std::string& text, std::size_t start);

/// Length in bytes of the UTF-8 character starting at text[start] (1 for a stray byte), and its
/// code point through `code_point`.
std::size_t utf8_character(const std::string& text, std::size_t start, char32_t& code_point);

}  // namespace attn::tutor
