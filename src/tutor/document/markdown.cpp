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

std::size_t line_count(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// One document rendered line by line: each kind of line has its method, which reads the lines
// it spans and returns the index of the last one.
class MarkdownRenderer {
public:
    MarkdownRenderer(const std::string& markdown, const Terminal& terminal, LineRanges& blocks)
        : lines_(split_lines(markdown)), terminal_(terminal), width_(terminal.width), blocks_(blocks) {}

    std::string render() {
        for (std::size_t i = 0; i < lines_.size(); ++i) i = render_from(i);
        flush();
        while (ends_with_blank_line(out_)) out_.pop_back();
        return out_;
    }

private:
    std::size_t render_from(std::size_t i) {
        const std::string line = expand_tabs(lines_[i]);
        if (starts_with(line, "<!--")) return comment(i);  // for the document's editors, not for the class
        if (starts_with(line, "```") || starts_with(line, "~~~")) return code_block(i, line.substr(0, 3));
        if (line.find_first_not_of(' ') == std::string::npos) {
            flush();
            if (!out_.empty() && !ends_with_blank_line(out_)) out_ += "\n";
            return i;
        }
        if (starts_with(line, "#")) return heading(i, line);
        if (starts_with(line, "|")) return table(i, line);
        if (starts_with(line, "> ") || line == ">") return quote(i, line);
        const std::string marker = list_marker(line);
        if (!marker.empty()) {
            flush();
            paragraph_ = line.substr(marker.size());
            prefix_ = marker;
            indent_ = std::string(visible_width(marker), ' ');
            return i;
        }
        if (paragraph_.empty()) {
            prefix_.clear();
            indent_.clear();
            paragraph_ = line;
        } else {
            paragraph_ += " " + line.substr(line.find_first_not_of(' '));
        }
        return i;
    }

    void flush() {
        if (!paragraph_.empty()) out_ += wrap_words(keep_numbers_whole(render_inline(paragraph_, terminal_)), width_, prefix_, indent_);
        paragraph_.clear();
    }

    std::size_t comment(std::size_t i) {
        flush();
        while (i < lines_.size() && lines_[i].find("-->") == std::string::npos) ++i;
        return i;
    }

    std::size_t code_block(std::size_t i, const std::string& marker) {
        flush();
        const std::size_t first = line_count(out_);
        for (++i; i < lines_.size() && !starts_with(lines_[i], marker); ++i) {
            for (const std::string& piece : break_line("    " + expand_tabs(lines_[i]), width_)) {
                out_ += paint(terminal_, Style::code, piece) + "\n";
            }
        }
        if (line_count(out_) > first) blocks_.emplace_back(first, line_count(out_));
        return i;
    }

    std::size_t heading(std::size_t i, const std::string& line) {
        flush();
        const std::size_t text_start = line.find_first_not_of("# ");
        if (text_start == std::string::npos) return i;  // a heading with no text
        const std::string text = wrap_words(render_inline(line.substr(text_start), terminal_), width_, "", "");
        for (const std::string& piece : split_lines(text)) out_ += paint(terminal_, Style::heading, piece) + "\n";
        return i;
    }

    std::size_t table(std::size_t i, const std::string& line) {
        flush();
        std::vector<std::string> rows{line};
        while (i + 1 < lines_.size() && starts_with(lines_[i + 1], "|")) rows.push_back(lines_[++i]);
        const std::size_t first = line_count(out_);
        out_ += render_table(rows, terminal_);
        if (line_count(out_) > first) blocks_.emplace_back(first, line_count(out_));
        return i;
    }

    std::size_t quote(std::size_t i, const std::string& line) {
        flush();
        paragraph_ = line.substr(1);
        while (i + 1 < lines_.size() && starts_with(lines_[i + 1], ">")) paragraph_ += " " + lines_[++i].substr(1);
        prefix_ = paint(terminal_, Style::accent, "│ ");
        indent_ = prefix_;
        if (paragraph_.find_first_not_of(' ') == std::string::npos) paragraph_.clear();
        flush();
        return i;
    }

    const std::vector<std::string> lines_;
    const Terminal& terminal_;
    const std::size_t width_;
    LineRanges& blocks_;
    std::string out_;
    std::string paragraph_, prefix_, indent_;  // the paragraph being gathered, its first line's prefix, the others' indent
};

}  // namespace

std::string render_markdown(const std::string& markdown, const Terminal& terminal) {
    LineRanges ignored;
    return render_markdown(markdown, terminal, ignored);
}

std::string render_markdown(const std::string& markdown, const Terminal& terminal, LineRanges& blocks) {
    return MarkdownRenderer(markdown, terminal, blocks).render();
}

}  // namespace attn::tutor
