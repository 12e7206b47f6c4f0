// attn/printable.hpp — text from outside the program, made safe to show on a terminal.
//
// Why: a terminal obeys the bytes it is sent. An ESC in a .npy header quoted by an error message,
// in a lesson's title or in a token file can move the cursor, retitle the window, hide text or,
// through an OSC sequence, write a link that lies about its target; a NUL cuts the message short
// in some terminals and logs. Every piece of text that comes from a file, a folder listing or the
// command line goes through this one function before it is printed (or quoted in an error):
// control characters (C0 and C1, DEL), the bidirectional overrides of "Trojan Source" and bytes
// that are not UTF-8 become U+FFFD, the replacement character "�"; everything else is kept.
//
//   attn::printable_text("a\033[31mb")                          // "a�[31mb"
//   attn::printable_text("one\ntwo", attn::LineBreaks::keep)    // "one\ntwo" (tabs are always kept)
#pragma once

#include <string>
#include <string_view>

namespace attn {

/// Whether '\n' survives: kept in prose and multi-line messages, replaced in one-line quotes.
enum class LineBreaks { replace, keep };

/// `text` with every control character, bidirectional override and invalid UTF-8 byte replaced
/// by U+FFFD. Tabs are kept; line feeds only with LineBreaks::keep.
std::string printable_text(std::string_view text, LineBreaks line_breaks = LineBreaks::replace);

/// printable_text of at most the first `max_bytes` bytes of `text` (cut on a character boundary),
/// with "…" appended when something was cut: for quoting a file's contents in a message.
std::string printable_excerpt(std::string_view text, std::size_t max_bytes);

}  // namespace attn
