#include "tutor/document/markdown.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "tutor/document/markdown_inline.hpp"
#include "tutor/document/markdown_table.hpp"
#include "tutor/terminal/text_layout.hpp"

namespace attn::tutor {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

bool ends_with_blank_line(const std::string& text) {
    return text.size() >= 2 && text.compare(text.size() - 2, 2, "\n\n") == 0;
}

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

std::string expand_tabs(const std::string& line) {
    std::string out;
    for (char c : line) {
        if (c == '\t') out.append(4 - out.size() % 4, ' ');
        else out += c;
    }
    return out;
}

}  // namespace

std::string render_markdown(const std::string& markdown, const Terminal& terminal) {
    LineRanges ignored;
    return render_markdown(markdown, terminal, ignored);
}

std::string render_markdown(const std::string& markdown, const Terminal& terminal, LineRanges& blocks) {
    const auto line_count = [](const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); };
    const std::vector<std::string> lines = split_lines(markdown);
    const std::size_t width = terminal.width;
    std::string out;
    std::string paragraph, paragraph_prefix, paragraph_indent;
    auto flush = [&]() {
        if (!paragraph.empty()) {
            out += wrap_words(keep_numbers_whole(render_inline(paragraph, terminal)), width, paragraph_prefix, paragraph_indent);
        }
        paragraph.clear();
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string line = expand_tabs(lines[i]);
        if (starts_with(line, "<!--")) {  // a comment for the document's editors, not for the class
            flush();
            while (i < lines.size() && lines[i].find("-->") == std::string::npos) ++i;
            continue;
        }
        if (starts_with(line, "```") || starts_with(line, "~~~")) {
            flush();
            const std::string marker = line.substr(0, 3);
            const std::size_t first = line_count(out);
            for (++i; i < lines.size() && !starts_with(lines[i], marker); ++i) {
                for (const std::string& piece : break_line("    " + expand_tabs(lines[i]), width)) {
                    out += paint(terminal, Style::code, piece) + "\n";
                }
            }
            if (line_count(out) > first) blocks.emplace_back(first, line_count(out));
            continue;
        }
        if (line.find_first_not_of(' ') == std::string::npos) {
            flush();
            if (!out.empty() && !ends_with_blank_line(out)) out += "\n";
            continue;
        }
        if (starts_with(line, "#")) {
            flush();
            const std::size_t text_start = line.find_first_not_of("# ");
            if (text_start == std::string::npos) continue;  // a heading with no text
            std::string heading = wrap_words(render_inline(line.substr(text_start), terminal), width, "", "");
            for (const std::string& piece : split_lines(heading)) out += paint(terminal, Style::heading, piece) + "\n";
            continue;
        }
        if (starts_with(line, "|")) {
            flush();
            std::vector<std::string> table{line};
            while (i + 1 < lines.size() && starts_with(lines[i + 1], "|")) table.push_back(lines[++i]);
            const std::size_t first = line_count(out);
            out += render_table(table, terminal);
            if (line_count(out) > first) blocks.emplace_back(first, line_count(out));
            continue;
        }
        if (starts_with(line, "> ") || line == ">") {
            flush();
            paragraph = line.substr(1);
            while (i + 1 < lines.size() && starts_with(lines[i + 1], ">")) paragraph += " " + lines[++i].substr(1);
            paragraph_prefix = paint(terminal, Style::accent, "│ ");
            paragraph_indent = paragraph_prefix;
            if (paragraph.find_first_not_of(' ') == std::string::npos) paragraph.clear();
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
    while (ends_with_blank_line(out)) out.pop_back();
    return out;
}

}  // namespace attn::tutor
