#include "tutor/terminal.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <sys/ioctl.h>
#include <unistd.h>
#include <vector>

namespace attn::tutor {

Terminal detect_terminal() {
    Terminal terminal;
    const bool output_is_terminal = ::isatty(STDOUT_FILENO) == 1;
    const char* no_colour = std::getenv("NO_COLOR");
    terminal.colour = output_is_terminal && !(no_colour && *no_colour);
    terminal.interactive = output_is_terminal && ::isatty(STDIN_FILENO) == 1;
    if (output_is_terminal) {
        winsize size{};
        if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
            // Long lines are hard to follow on a projector: wrap at 100 columns at most.
            terminal.width = std::min<std::size_t>(size.ws_col, 100);
            if (terminal.width < 40) terminal.width = 40;
        }
    }
    return terminal;
}

std::string paint(const Terminal& terminal, Style style, const std::string& text) {
    if (!terminal.colour) return text;
    const char* code = "";
    switch (style) {
        case Style::bold: code = "\033[1m"; break;
        case Style::dim: code = "\033[2m"; break;
        case Style::emphasis: code = "\033[3m"; break;
        case Style::heading: code = "\033[1;38;5;75m"; break;
        case Style::code: code = "\033[38;5;180m"; break;
        case Style::good: code = "\033[1;32m"; break;
        case Style::bad: code = "\033[1;31m"; break;
        case Style::accent: code = "\033[38;5;75m"; break;
    }
    return code + text + "\033[0m";
}

std::size_t visible_width(const std::string& text) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == 0x1b) {  // an escape sequence: ESC [ ... letter
            ++i;
            if (i < text.size() && text[i] == '[') {
                ++i;
                while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
            }
            ++i;
            continue;
        }
        std::size_t length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
        unsigned code_point = byte;
        if (length == 2 && i + 1 < text.size()) code_point = ((byte & 0x1F) << 6) | (text[i + 1] & 0x3F);
        const bool combining = length == 2 && code_point >= 0x300 && code_point <= 0x36F;
        if (!combining) ++width;
        i += length;
    }
    return width;
}

namespace {

// Inline Markdown: `code`, **bold**, *emphasis*, [text](url). In a table row (`keep_width`) a
// code span keeps the width of its backticks, so the columns of the source stay aligned.
std::string render_inline(const std::string& text, const Terminal& terminal, bool keep_width = false) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == '`') {
            const std::size_t end = text.find('`', i + 1);
            if (end != std::string::npos) {
                out += paint(terminal, Style::code, text.substr(i + 1, end - i - 1)) + (keep_width ? "  " : "");
                i = end + 1;
                continue;
            }
        }
        if (!keep_width && text[i] == '*' && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '*') {
            const std::size_t end = text.find('*', i + 1);
            if (end != std::string::npos && text[end - 1] != ' ') {
                out += paint(terminal, Style::emphasis, text.substr(i + 1, end - i - 1));
                i = end + 1;
                continue;
            }
        }
        if (text.compare(i, 2, "**") == 0) {
            const std::size_t end = text.find("**", i + 2);
            if (end != std::string::npos) {
                out += paint(terminal, Style::bold, text.substr(i + 2, end - i - 2));
                i = end + 2;
                continue;
            }
        }
        if (text[i] == '[') {
            const std::size_t close = text.find("](", i);
            const std::size_t end = close == std::string::npos ? close : text.find(')', close);
            if (close != std::string::npos && end != std::string::npos && text.find('\n', i) > end) {
                out += paint(terminal, Style::accent, text.substr(i + 1, close - i - 1));
                i = end + 1;
                continue;
            }
        }
        out += text[i++];
    }
    return out;
}

// Words of `text` laid out in lines of at most `width` columns; every line but the first starts
// with `indent`, the first with `first_prefix`.
std::string wrap(const std::string& text, std::size_t width, const std::string& first_prefix, const std::string& indent) {
    std::istringstream words(text);
    std::string out = first_prefix, word;
    std::size_t column = visible_width(first_prefix);
    bool line_empty = true;
    while (words >> word) {
        const std::size_t w = visible_width(word);
        if (!line_empty && column + 1 + w > width) {
            out += "\n" + indent;
            column = visible_width(indent);
            line_empty = true;
        }
        if (!line_empty) {
            out += ' ';
            ++column;
        }
        out += word;
        column += w;
        line_empty = false;
    }
    return out + "\n";
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// "- item", "* item", "12. item": the marker including its trailing space, or "".
std::string list_marker(const std::string& line) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) return "";
    if (line.compare(start, 2, "- ") == 0 || line.compare(start, 2, "* ") == 0) return line.substr(0, start + 2);
    std::size_t digits = start;
    while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
    if (digits > start && line.compare(digits, 2, ". ") == 0) return line.substr(0, digits + 2);
    return "";
}

}  // namespace

std::string render_markdown(const std::string& markdown, const Terminal& terminal) {
    std::vector<std::string> lines;
    std::istringstream stream(markdown);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);

    std::string out;
    std::string paragraph, paragraph_prefix, paragraph_indent;
    auto flush = [&]() {
        if (!paragraph.empty()) {
            out += wrap(render_inline(paragraph, terminal), terminal.width, paragraph_prefix, paragraph_indent);
        }
        paragraph.clear();
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (starts_with(line, "<!--")) {  // a comment for the document's editors, not for the class
            flush();
            while (i < lines.size() && lines[i].find("-->") == std::string::npos) ++i;
            continue;
        }
        if (starts_with(line, "```") || starts_with(line, "~~~")) {
            flush();
            const std::string marker = line.substr(0, 3);
            for (++i; i < lines.size() && !starts_with(lines[i], marker); ++i) {
                out += "    " + paint(terminal, Style::code, lines[i]) + "\n";
            }
            continue;
        }
        if (line.find_first_not_of(" \t") == std::string::npos) {
            flush();
            if (!out.empty() && (out.size() < 2 || out.compare(out.size() - 2, 2, "\n\n") != 0)) out += "\n";
            continue;
        }
        if (starts_with(line, "#")) {
            flush();
            const std::size_t text_start = line.find_first_not_of('#');
            out += paint(terminal, Style::heading, line.substr(std::min(line.size(), text_start + 1))) + "\n";
            continue;
        }
        if (starts_with(line, "|")) {  // tables stay as written: they are aligned in the source
            flush();
            out += render_inline(line, terminal, true) + "\n";
            continue;
        }
        if (starts_with(line, "> ")) {
            flush();
            paragraph = line.substr(2);
            while (i + 1 < lines.size() && starts_with(lines[i + 1], "> ")) paragraph += " " + lines[++i].substr(2);
            paragraph_prefix = paint(terminal, Style::accent, "│ ");
            paragraph_indent = paragraph_prefix;
            flush();
            continue;
        }
        const std::string marker = list_marker(line);
        if (!marker.empty()) {
            flush();
            paragraph = line.substr(marker.size());
            paragraph_prefix = marker;
            paragraph_indent = std::string(visible_width(marker), ' ');
            continue;
        }
        if (paragraph.empty()) {
            paragraph_prefix.clear();
            paragraph_indent.clear();
            paragraph = line;
        } else {
            paragraph += " " + line.substr(line.find_first_not_of(' '));
        }
    }
    flush();
    while (out.size() >= 2 && out.compare(out.size() - 2, 2, "\n\n") == 0) out.pop_back();
    return out;
}

bool wait_for_next_step(const Terminal& terminal) {
    if (!terminal.interactive) return true;
    std::cout << paint(terminal, Style::dim, "  [Enter: next step · q: quit] ") << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer)) return true;
    return !(answer == "q" || answer == "Q");
}

}  // namespace attn::tutor
