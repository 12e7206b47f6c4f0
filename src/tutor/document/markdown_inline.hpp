// tutor/document/markdown_inline.hpp — Markdown inside a line: `code`, **bold**, *emphasis*, [links](url).
//
// Why its own file: paragraphs, list items and table cells all style their text the same way.
// The marks themselves are removed (the class sees `w_q` as a styled w_q, not with backticks or
// the spaces a source table padded them with); spaces inside a code span become
// unbreakable_space, so a short formula is never split across two lines.
//
//   render_inline("the `q · k` score", plain)   // "the q\x1f·\x1fk score"
#pragma once

#include <string>

#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

/// `text` with its inline marks replaced by styles (or removed when colour is off).
std::string render_inline(const std::string& text, const Terminal& terminal);

}  // namespace attn::tutor
