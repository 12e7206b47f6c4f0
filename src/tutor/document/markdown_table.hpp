// tutor/document/markdown_table.hpp — a Markdown table laid out for the width of the screen.
//
// Why: a table written 100 columns wide in a document wraps into noise at 80 columns. Here the
// columns are measured again after the inline marks are gone, and the table is drawn aligned when
// it fits; else its widest column wraps inside its own cells; when even that cannot fit, each row
// becomes a list item ("- x · shape: (B, T, D) · meaning: the tokens").
//
//   render_table({"| a | b |", "|---|---|", "| 1 | 2 |"}, terminal);
//   //   a  b
//   //   ─  ─
//   //   1  2
#pragma once

#include <string>
#include <vector>

#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

/// The table's source lines (each starting with `|`), as lines of at most terminal.width columns.
std::string render_table(const std::vector<std::string>& lines, const Terminal& terminal);

/// The cells of one table row, trimmed; `|` inside a `code span` or escaped as `\|` stays in its cell.
std::vector<std::string> table_cells(const std::string& line);

}  // namespace attn::tutor
