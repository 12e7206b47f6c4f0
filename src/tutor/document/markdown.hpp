// tutor/document/markdown.hpp — a lesson's Markdown prose, laid out for the terminal.
//
// Why: the class reads the document's prose on a projector, at whatever width it has. Every line
// this returns fits terminal.width: paragraphs and list items are wrapped (never inside a short
// `code span`), tables are re-aligned or shown as lists (markdown_table.hpp), and the lines of a
// formula or code block that are too wide are broken at a space with a hanging indent.
//
//   render_markdown("Some **bold** prose.\n\n```\nscore = q · k\n```\n", terminal);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

/// Markdown prose for the terminal: paragraphs and list items wrapped to the width, `code` and
/// **bold** styled, [links](url) reduced to their text, code blocks indented by four columns,
/// tables laid out again, HTML comments dropped. No line is wider than terminal.width.
std::string render_markdown(const std::string& markdown, const Terminal& terminal);

/// Lines [first, last) of a rendered text that belong together: a code block (a diagram with its
/// labels), a table. A pager keeps each on one screen when it fits.
using LineRanges = std::vector<std::pair<std::size_t, std::size_t>>;

/// render_markdown, and the line ranges of its code blocks and tables in `blocks`.
std::string render_markdown(const std::string& markdown, const Terminal& terminal, LineRanges& blocks);

}  // namespace attn::tutor
