// tutor/terminal/text_layout.hpp — lines that fit a width: words wrapped, long lines broken, text cut.
//
// Why: on a projector a line that wraps on its own breaks a formula or a tensor mid-token and
// pushes the screen's title out of view. Everything the tutor prints passes through these
// functions, which measure in visible columns (escape codes take none, wide characters two).
//
//   wrap_words("the weights of one query", 12, "- ", "  ");   // "- the weights\n  of one\n  query\n"
//   break_line("q = x W_qᵀ + b_q     k = x W_kᵀ + b_k", 24);   // {"q = x W_qᵀ + b_q", "    k = x W_kᵀ + b_k"}
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::tutor {

/// A space that wrap_words does not break at unless a word would not fit otherwise (inside a
/// `code span`); it is printed as an ordinary space.
constexpr char unbreakable_space = '\x1f';

/// The words of `text` (separated by spaces) in lines of at most `width` columns; the first line
/// starts with `first_prefix`, the others with `indent`. A word wider than a line is split at its
/// unbreakable spaces, and cut when it still does not fit. Ends with a newline.
std::string wrap_words(const std::string& text, std::size_t width, const std::string& first_prefix,
                       const std::string& indent);

/// One line cut into lines of at most `width` columns. A cut falls at a gap of two or more spaces
/// (the columns of a formula) past the first quarter of the line when there is one, else at the last
/// space, else mid-token; the continuation lines start with the line's own indent plus `hanging`
/// spaces (less when that would leave no room).
std::vector<std::string> break_line(const std::string& line, std::size_t width, std::size_t hanging = 4);

/// Every line of `text` passed through break_line; the newlines of `text` are kept.
std::string fit_to_width(const std::string& text, std::size_t width, std::size_t hanging = 4);

/// `text` (one line) cut to at most `width` columns, ending in "…" when it was cut.
std::string truncate_to_width(const std::string& text, std::size_t width);

/// A count as the tutor prints it: up to four digits as they are ("5000"), longer ones in groups
/// of three joined by a narrow no-break space (U+202F: "12 288"), which no line break splits.
std::string grouped_number(std::size_t number);

/// `text` with the spaces inside a number written in groups of three ("5 000", "50 331 648")
/// made unbreakable, so that wrap_words never splits the number across two lines.
std::string keep_numbers_whole(const std::string& text);

/// The lines of `text`, without their newlines; a final newline does not add an empty line.
std::vector<std::string> split_lines(const std::string& text);

}  // namespace attn::tutor
