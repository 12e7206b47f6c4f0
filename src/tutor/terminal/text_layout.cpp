#include "tutor/terminal/text_layout.hpp"

#include <algorithm>

#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

namespace {

// One piece of a line: an escape sequence (no width), a space, or one other character.
struct Unit {
    std::size_t start, length, width;
    bool space;
};

std::vector<Unit> units_of(const std::string& line) {
    std::vector<Unit> units;
    for (std::size_t i = 0; i < line.size();) {
        if (const std::size_t escape = escape_sequence_length(line, i)) {
            units.push_back({i, escape, 0, false});
            i += escape;
            continue;
        }
        char32_t code_point = 0;
        const std::size_t length = utf8_character(line, i, code_point);
        units.push_back({i, length, static_cast<std::size_t>(code_point_width(code_point)), code_point == ' '});
        i += length;
    }
    return units;
}

std::string text_of(const std::string& line, const std::vector<Unit>& units, std::size_t begin, std::size_t end) {
    while (end > begin && units[end - 1].space) --end;  // no trailing spaces
    if (end <= begin) return "";
    return line.substr(units[begin].start, units[end - 1].start + units[end - 1].length - units[begin].start);
}

void replace_unbreakable(std::string& text) { std::replace(text.begin(), text.end(), unbreakable_space, ' '); }

// Columns of a word whose unbreakable spaces will be printed as spaces.
std::size_t word_width(std::string word) {
    replace_unbreakable(word);
    return visible_width(word);
}

}  // namespace

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::vector<std::string> break_line(const std::string& line, std::size_t width, std::size_t hanging) {
    if (width == 0 || visible_width(line) <= width) return {line};
    const std::vector<Unit> units = units_of(line);
    std::size_t lead = 0;  // the line's own indent, in columns
    for (const Unit& unit : units) {
        if (unit.length && !unit.space && unit.width) break;
        lead += unit.width;
    }
    const std::size_t continuation_indent = std::min(lead + hanging, width / 2);
    std::vector<std::string> lines;
    std::size_t position = 0;
    bool first = true;
    while (position < units.size()) {
        if (!first) {
            while (position < units.size() && units[position].space) ++position;
            if (position == units.size()) break;
        }
        const std::size_t available = width - (first ? 0 : continuation_indent);
        const std::size_t protected_columns = first ? lead : 0;  // never cut inside the indent
        // The furthest unit that still fits, and the last good places to cut before it.
        std::size_t end = position, column = 0;
        std::size_t last_gap = 0, last_space = 0;  // unit indices, 0 = none found
        while (end < units.size() && column + units[end].width <= available) {
            const Unit& unit = units[end];
            if (unit.space && end > position && column > protected_columns) {
                last_space = end;
                const bool gap_start = !units[end - 1].space && end + 1 < units.size() && units[end + 1].space;
                if (gap_start && column >= available / 4) last_gap = end;
            }
            column += unit.width;
            ++end;
        }
        std::size_t cut = end;
        if (end < units.size()) {
            if (last_gap) cut = last_gap;                                          // between two columns
            else if (units[end].space && column > protected_columns) cut = end;    // the line ends at a space
            else if (last_space) cut = last_space;
            if (cut == position) cut = position + 1;  // a character wider than the line: emit it alone
        }
        const std::string piece = text_of(line, units, position, cut);
        lines.push_back(first ? piece : std::string(continuation_indent, ' ') + piece);
        position = cut;
        first = false;
    }
    return lines;
}

std::string fit_to_width(const std::string& text, std::size_t width, std::size_t hanging) {
    std::string out;
    for (const std::string& line : split_lines(text)) {
        for (const std::string& piece : break_line(line, width, hanging)) out += piece + "\n";
    }
    if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
    return out;
}

std::string wrap_words(const std::string& text, std::size_t width, const std::string& first_prefix,
                       const std::string& indent) {
    const std::size_t prefix_width = std::max(word_width(first_prefix), word_width(indent));
    const std::size_t available = width > prefix_width + 8 ? width - prefix_width : 8;
    // The words, with any word wider than a line split at its unbreakable spaces, then cut.
    std::vector<std::string> words;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        std::string word = text.substr(start, end - start);
        start = end + 1;
        if (word.empty()) continue;
        if (word_width(word) <= available) {
            words.push_back(word);
            continue;
        }
        replace_unbreakable(word);
        for (const std::string& piece : break_line(word, available, 0)) words.push_back(piece);
    }
    std::string out = first_prefix;
    std::size_t column = visible_width(first_prefix);
    bool line_empty = true;
    for (const std::string& word : words) {
        const std::size_t columns = word_width(word);
        if (!line_empty && column + 1 + columns > width) {
            out += "\n" + indent;
            column = visible_width(indent);
            line_empty = true;
        }
        if (!line_empty) {
            out += ' ';
            ++column;
        }
        out += word;
        column += columns;
        line_empty = false;
    }
    replace_unbreakable(out);
    return out + "\n";
}

std::string grouped_number(std::size_t number) {
    const std::string digits = std::to_string(number);
    if (digits.size() <= 4) return digits;
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += "\u202F";
        out += digits[i];
    }
    return out;
}

std::string keep_numbers_whole(const std::string& text) {
    const auto digit = [&text](std::size_t i) { return i < text.size() && text[i] >= '0' && text[i] <= '9'; };
    std::string out = text;
    for (std::size_t i = 1; i + 3 < text.size(); ++i) {
        // "d ddd" where the three digits end the group: a digit before, exactly three after.
        if (text[i] == ' ' && digit(i - 1) && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i + 4)) {
            out[i] = unbreakable_space;
        }
    }
    return out;
}

std::string truncate_to_width(const std::string& text, std::size_t width) {
    if (visible_width(text) <= width) return text;
    if (width == 0) return "";
    const std::vector<Unit> units = units_of(text);
    std::string out;
    std::size_t column = 0;
    for (const Unit& unit : units) {
        if (column + unit.width > width - 1) break;
        out += text.substr(unit.start, unit.length);
        column += unit.width;
    }
    const bool styled = text.find('\033') != std::string::npos;
    return out + "…" + (styled ? "\033[0m" : "");
}

}  // namespace attn::tutor
