#include "attn/printable.hpp"

namespace attn {

namespace {

const char replacement_character[] = "\xEF\xBF\xBD";  // U+FFFD

// The length of the UTF-8 sequence starting at text[i] and its code point, or length 0 when the
// bytes there are not UTF-8 (a stray continuation byte, a truncated sequence, an overlong form,
// a surrogate, a value past U+10FFFF).
std::size_t decode(std::string_view text, std::size_t i, unsigned& code_point) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + length > text.size()) return 0;
    code_point = length == 1 ? lead : length == 2 ? (lead & 0x1Fu) : length == 3 ? (lead & 0x0Fu) : (lead & 0x07u);
    for (std::size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xC0) != 0x80) return 0;
        code_point = (code_point << 6) | (next & 0x3Fu);
    }
    static const unsigned smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code_point < smallest[length] || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
    return length;
}

bool unsafe(unsigned code_point, LineBreaks line_breaks) {
    if (code_point == '\t') return false;
    if (code_point == '\n') return line_breaks == LineBreaks::replace;
    const bool control = code_point < 0x20 || code_point == 0x7F || (code_point >= 0x80 && code_point <= 0x9F);
    // Bidirectional embeddings, overrides and isolates: they reorder what the reader sees.
    const bool bidi = (code_point >= 0x202A && code_point <= 0x202E) || (code_point >= 0x2066 && code_point <= 0x2069);
    return control || bidi;
}

}  // namespace

std::string printable_text(std::string_view text, LineBreaks line_breaks) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        unsigned code_point = 0;
        const std::size_t length = decode(text, i, code_point);
        if (length == 0) {
            out += replacement_character;
            ++i;  // resynchronise on the next byte
            continue;
        }
        if (unsafe(code_point, line_breaks)) {
            out += replacement_character;
        } else {
            out.append(text.substr(i, length));
        }
        i += length;
    }
    return out;
}

std::string printable_excerpt(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return printable_text(text);
    std::size_t cut = max_bytes;
    // Back up over continuation bytes so that a character is not split in two.
    while (cut > 0 && max_bytes - cut < 3 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return printable_text(text.substr(0, cut)) + "…";
}

}  // namespace attn
