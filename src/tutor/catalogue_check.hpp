// tutor/catalogue_check.hpp — a gettext catalogue (.mo) checked before gettext reads it.
//
// Why: glibc's gettext trusts the file it maps: a catalogue beside the program with a huge string
// count or offsets past its end makes it read outside the file and crash. The catalogue attn
// loads must be one msgfmt could have built, so its structure is checked once, before it is
// bound: the magic number, revision 0, the two string tables and the hash table inside the file,
// and every string inside the file and ended by its NUL. A damaged one is ignored (the tutor
// speaks English) with a one-line note.
//
//   if (auto problem = catalogue_problem(bytes)) …   // "the string table runs past the end of the file"
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace attn::tutor {

/// The largest catalogue read; attn's Spanish one is about 35 kB.
constexpr std::size_t max_catalogue_bytes = std::size_t(16) << 20;

/// What is wrong with the bytes of a .mo file, in English; empty when gettext may read it.
std::optional<std::string> catalogue_problem(const std::string& bytes);

}  // namespace attn::tutor
