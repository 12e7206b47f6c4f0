#include "tutor/document/markdown_table.hpp"

#include <algorithm>

#include "tutor/document/markdown_inline.hpp"
#include "tutor/terminal/text_layout.hpp"

namespace attn::tutor {

namespace {

constexpr std::size_t table_indent = 2, column_gap = 2;

std::string trim(const std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "---", ":--", "--:", ":-:": the line under a table's header.
bool is_rule_cell(const std::string& cell) {
    if (cell.empty()) return false;
    const std::size_t dashes = std::count(cell.begin(), cell.end(), '-');
    const std::size_t colons = std::count(cell.begin(), cell.end(), ':');
    return dashes > 0 && dashes + colons == cell.size() && (colons == 0 || cell.front() == ':' || cell.back() == ':');
}

std::string pad_right(const std::string& text, std::size_t width) {
    const std::size_t visible = visible_width(text);
    return visible >= width ? text : text + std::string(width - visible, ' ');
}

std::string pad_left(const std::string& text, std::size_t width) {
    const std::size_t visible = visible_width(text);
    return visible >= width ? text : std::string(width - visible, ' ') + text;
}

std::string as_one_line(std::string cell) {
    std::replace(cell.begin(), cell.end(), unbreakable_space, ' ');
    return cell;
}

std::size_t longest_word(const std::string& cell) {
    std::size_t longest = 0, start = 0;
    while (start <= cell.size()) {
        std::size_t end = cell.find(' ', start);
        if (end == std::string::npos) end = cell.size();
        longest = std::max(longest, visible_width(as_one_line(cell.substr(start, end - start))));
        start = end + 1;
    }
    return longest;
}

struct Table {
    std::vector<std::string> header;              // rendered; empty when the table has none
    std::vector<std::vector<std::string>> rows;   // rendered, unbreakable spaces kept
    std::vector<bool> right_aligned;
    std::size_t columns = 0;
};

Table parse(const std::vector<std::string>& lines, const Terminal& terminal) {
    std::vector<std::vector<std::string>> raw;
    for (const auto& line : lines) raw.push_back(table_cells(line));
    Table table;
    std::size_t body_start = 0;
    if (raw.size() >= 2 && !raw[1].empty() && std::all_of(raw[1].begin(), raw[1].end(), is_rule_cell)) {
        for (const auto& cell : raw[0]) table.header.push_back(render_inline(cell, terminal));
        for (const auto& cell : raw[1]) table.right_aligned.push_back(cell.size() > 1 && cell.back() == ':' && cell.front() != ':');
        body_start = 2;
    }
    for (std::size_t r = body_start; r < raw.size(); ++r) {
        std::vector<std::string> row;
        for (const auto& cell : raw[r]) row.push_back(render_inline(cell, terminal));
        table.rows.push_back(row);
    }
    table.columns = table.header.size();
    for (const auto& row : table.rows) table.columns = std::max(table.columns, row.size());
    if (!table.header.empty()) table.header.resize(table.columns);
    for (auto& row : table.rows) row.resize(table.columns);
    table.right_aligned.resize(table.columns, false);
    return table;
}

// Each row as a list item: the first cell, then "header: cell" for the others.
std::string as_list(const Table& table, const Terminal& terminal) {
    std::string out;
    for (const auto& row : table.rows) {
        std::string item = paint(terminal, Style::bold, row.empty() ? "" : row[0]);
        for (std::size_t c = 1; c < row.size(); ++c) {
            if (row[c].empty()) continue;
            const std::string name = c < table.header.size() ? as_one_line(table.header[c]) : "";
            item += " · " + (name.empty() ? "" : name + ": ") + row[c];
        }
        out += wrap_words(item, terminal.width, std::string(table_indent, ' ') + "- ", std::string(table_indent + 2, ' '));
    }
    return out;
}

}  // namespace

std::vector<std::string> table_cells(const std::string& line) {
    std::string text = trim(line);
    if (!text.empty() && text.front() == '|') text.erase(0, 1);
    if (!text.empty() && text.back() == '|' && (text.size() < 2 || text[text.size() - 2] != '\\')) text.pop_back();
    std::vector<std::string> cells;
    std::string cell;
    bool in_code = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '|') {
            cell += '|';
            ++i;
            continue;
        }
        if (text[i] == '`') in_code = !in_code;
        if (text[i] == '|' && !in_code) {
            cells.push_back(trim(cell));
            cell.clear();
            continue;
        }
        cell += text[i];
    }
    cells.push_back(trim(cell));
    return cells;
}

std::string render_table(const std::vector<std::string>& lines, const Terminal& terminal) {
    const Table table = parse(lines, terminal);
    if (table.columns == 0) return "";
    std::vector<std::size_t> widths(table.columns, 0);
    auto measure = [&widths](const std::vector<std::string>& row) {
        for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], visible_width(as_one_line(row[c])));
    };
    measure(table.header);
    for (const auto& row : table.rows) measure(row);
    std::size_t total = table_indent + column_gap * (table.columns - 1);
    for (std::size_t width : widths) total += width;

    // Too wide: let the widest column wrap inside its cells, if its words still fit.
    std::size_t wrapped_column = table.columns;
    if (total > terminal.width) {
        const std::size_t widest = static_cast<std::size_t>(std::max_element(widths.begin(), widths.end()) - widths.begin());
        const std::size_t others = total - widths[widest];
        std::size_t longest = 0;
        for (const auto& row : table.rows) longest = std::max(longest, longest_word(row[widest]));
        if (!table.header.empty()) longest = std::max(longest, longest_word(table.header[widest]));
        if (others + std::max<std::size_t>(longest, 12) > terminal.width) return as_list(table, terminal);
        widths[widest] = terminal.width - others;
        wrapped_column = widest;
    }

    auto draw_row = [&](const std::vector<std::string>& row, bool header) {
        std::vector<std::vector<std::string>> cell_lines(table.columns);
        std::size_t height = 1;
        for (std::size_t c = 0; c < table.columns; ++c) {
            cell_lines[c] = c == wrapped_column ? split_lines(wrap_words(row[c], widths[c], "", "")) : std::vector<std::string>{as_one_line(row[c])};
            if (cell_lines[c].empty()) cell_lines[c].push_back("");
            height = std::max(height, cell_lines[c].size());
        }
        std::string out;
        for (std::size_t l = 0; l < height; ++l) {
            std::string line(table_indent, ' ');
            for (std::size_t c = 0; c < table.columns; ++c) {
                std::string text = l < cell_lines[c].size() ? cell_lines[c][l] : "";
                if (header) text = paint(terminal, Style::bold, text);
                line += (c ? std::string(column_gap, ' ') : "") +
                        (table.right_aligned[c] ? pad_left(text, widths[c]) : pad_right(text, widths[c]));
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += line + "\n";
        }
        return out;
    };
    std::string out;
    if (!table.header.empty()) {
        out += draw_row(table.header, true);
        std::string rule(table_indent, ' ');
        for (std::size_t c = 0; c < table.columns; ++c) {
            if (c) rule += std::string(column_gap, ' ');
            for (std::size_t k = 0; k < widths[c]; ++k) rule += "─";
        }
        out += rule + "\n";
    }
    for (const auto& row : table.rows) out += draw_row(row, false);
    return out;
}

}  // namespace attn::tutor
