#include "tutor/lesson/lesson_report.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "attn/shape.hpp"
#include "tutor/views/heatmap.hpp"
#include "tutor/language.hpp"
#include "tutor/lesson/tensor_format.hpp"
#include "tutor/terminal/text_layout.hpp"

namespace attn::tutor {

namespace {

std::string indent_lines(const std::string& text, const std::string& indent) {
    std::istringstream stream(text);
    std::string out;
    for (std::string line; std::getline(stream, line);) out += (line.empty() ? "" : indent) + line + "\n";
    return out;
}

std::size_t widest_line(const std::string& text) {
    std::size_t widest = 0;
    for (const std::string& line : split_lines(text)) widest = std::max(widest, visible_width(line));
    return widest;
}

// The text with runs of white space folded, to compare two prints of a tensor.
std::string normalized(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool space = c == ' ' || c == '\n' || c == '\t';
        if (space && (out.empty() || out.back() == ' ')) continue;
        out += space ? ' ' : c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::string example_suffix(const LessonBlock& block) {
    return block.example == "main" ? "" : " [" + trf("example {1}", {block.example}) + "]";
}

constexpr std::size_t tensor_indent = 2, expected_indent = 4;

// `text` with the no-break spaces (U+00A0) a message puts where its words belong together, in any
// language ("max |Δ| 1.0e-05", "over 4 values"), made unbreakable for wrap_words (which prints
// them as spaces); with `whole`, its ordinary spaces too, so that it is cut only where it is wider
// than a whole line.
std::string joined(const std::string& text, bool whole) {
    static const std::string no_break_space = "\u00a0";
    std::string words;
    for (std::size_t at = 0; at < text.size(); ++at) {
        const bool no_break = text.compare(at, no_break_space.size(), no_break_space) == 0;
        words += no_break || (whole && text[at] == ' ') ? unbreakable_space : text[at];
        if (no_break) at += no_break_space.size() - 1;
    }
    return words;
}

// A passing check, "✓ name (README.md:12): matches · max |Δ| … over N values", in lines of the
// width cut only between its three phrases — the mark and the name, the verdict, the summary — so
// that no line ends with a lone word of one; the lines after the first are indented under the name.
std::string check_line(const std::string& name, const std::string& verdict, const std::string& summary, std::size_t width) {
    return wrap_words(joined(name, true) + " " + joined(verdict, true) + " " + joined(summary, true), width, "  ", "    ");
}

// A failing check, whose summary (first difference, expected, got, allowed) is a sentence of its
// own: wrapped word by word after the name and the verdict.
std::string failed_check_line(const std::string& head, const std::string& summary, std::size_t width) {
    return wrap_words(joined(head, true) + " " + joined("· " + summary, false), width, "  ", "    ");
}

}  // namespace

std::string format_to_fit(const DynamicTensor& tensor, std::size_t indent, std::size_t width, PrintOptions options) {
    std::string text = format_like_pytorch(tensor, options);
    if (widest_line(text) + indent <= width) return text;
    // PyTorch's linewidth does not count the closing brackets: narrow it until the lines fit.
    const std::size_t room = width > indent ? width - indent : 1;
    for (options.linewidth = std::min<std::size_t>(room, 80); options.linewidth > 8; --options.linewidth) {
        text = format_like_pytorch(tensor, options);
        if (widest_line(text) <= room) return text;
    }
    return fit_to_width(text, room, 0);  // one number per line is still too wide: cut
}

bool written_as_integers(const LessonBlock& block) {
    if (block.kind != LessonBlock::Kind::input || block.text.find("dtype") != std::string::npos) return false;
    std::string values = block.text;
    if (const std::size_t at = values.find("tensor("); at != std::string::npos) values.erase(at, 7);
    const bool any_digit = std::any_of(values.begin(), values.end(), [](char c) { return c >= '0' && c <= '9'; });
    return any_digit && std::all_of(values.begin(), values.end(), [](char c) {
               return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == ',' || c == '[' || c == ']' || c == '(' ||
                      c == ')' || c == ' ' || c == '\n' || c == '\t';
           });
}

std::string describe_tensor_title(const Terminal& terminal, const std::string& label, const LessonBlock& block,
                                  const DynamicTensor& tensor) {
    std::string legend;
    if (!block.dimension_letters.empty()) {
        legend = "(";
        for (std::size_t i = 0; i < block.dimension_letters.size(); ++i) legend += (i ? ", " : "") + block.dimension_letters[i];
        legend += ") = ";
    }
    const std::string title = "  " + paint(terminal, Style::dim, label) + paint(terminal, Style::bold, block.name) +
                              example_suffix(block) + "  " + paint(terminal, Style::dim, legend + shape_string(tensor.shape()));
    return fit_to_width(title, terminal.width) + "\n";
}

std::string describe_tensor(const Terminal& terminal, const std::string& label, const LessonBlock& block,
                            const DynamicTensor& tensor) {
    PrintOptions options;  // PyTorch's defaults: linewidth 80
    options.integer_dtype = written_as_integers(block);
    return describe_tensor_title(terminal, label, block, tensor) +
           indent_lines(format_to_fit(tensor, tensor_indent, terminal.width, options), std::string(tensor_indent, ' '));
}

std::vector<std::string> describe_heatmap(const Terminal& terminal, const LessonBlock& block, const DynamicTensor& tensor) {
    return render_heatmap_grids(terminal, tensor, block.row_labels, block.column_labels, block.dimension_letters);
}

std::string describe_check(const Terminal& terminal, const LessonRun& run, const CheckResult& check) {
    const LessonBlock& block = run.document.blocks[static_cast<std::size_t>(check.block)];
    const std::string where = std::filesystem::path(run.document.path).filename().string() + ":" + std::to_string(block.line);
    // The document's text as written, fitted to the screen like any other line.
    const auto as_written = [&terminal](const std::string& text) {
        return fit_to_width(indent_lines(text, std::string(expected_indent, ' ')), terminal.width);
    };
    std::string text;
    if (check.comparison.passed) {
        text = check_line(paint(terminal, Style::good, "✓") + " " + block.name + example_suffix(block),
                          trf("({1}): matches", {where}), "· " + check.comparison.summary(), terminal.width);
        // Equal within the written digits but printed differently (a rounding boundary, or a
        // document written with more digits): show what the document says too.
        if (normalized(block.text) != normalized(format_like_pytorch(check.got))) {
            text += fit_to_width("    " + tr("expected, as written in the document:"), terminal.width) + "\n" + as_written(block.text);
        }
        return text;
    }
    text = failed_check_line(paint(terminal, Style::bad, "✗") + " " + block.name + example_suffix(block) + " " +
                                 trf("({1}): differs", {where}),
                             check.comparison.summary(), terminal.width);
    text += fit_to_width("    " + tr("expected, as written in the document:"), terminal.width) + "\n" + as_written(block.text);
    text += "    " + tr("got:") + "\n" + indent_lines(format_to_fit(check.got, expected_indent, terminal.width), std::string(expected_indent, ' '));
    return text;
}

std::string describe_totals(const Terminal& terminal, std::size_t passed, std::size_t failed) {
    const std::string line = trfc("lesson checks", "{1} passed, {2} failed", {std::to_string(passed), std::to_string(failed)});
    return paint(terminal, failed == 0 ? Style::good : Style::bad, line) + "\n";
}

std::string display_path(const std::string& path, std::size_t width, const std::string& base) {
    namespace fs = std::filesystem;
    std::string shown = path;
    std::error_code error;
    const fs::path absolute = fs::weakly_canonical(fs::absolute(path, error), error);
    // The path below `folder`, or empty when it is not inside it.
    const auto inside = [&absolute](const fs::path& folder) {
        std::error_code ignored;
        fs::path canonical = fs::weakly_canonical(fs::absolute(folder, ignored), ignored);
        if (ignored || canonical.empty()) return fs::path();
        if (canonical.filename().empty()) canonical = canonical.parent_path();  // "folder/" is "folder"
        const fs::path relative = absolute.lexically_relative(canonical);
        return relative.empty() || relative.native().rfind("..", 0) == 0 ? fs::path() : relative;
    };
    if (!error && !absolute.empty()) {
        if (const fs::path here = inside(fs::current_path(error)); !here.empty()) {
            shown = here.string();
        } else if (const fs::path below_base = base.empty() ? fs::path() : inside(base); !below_base.empty()) {
            shown = below_base.string();
        }
    }
    if (visible_width(shown) <= width || width < 2) return shown;
    // Keep the end, which names the lesson and the file.
    std::string tail;
    for (std::size_t i = shown.size(); i-- > 0;) {
        if ((static_cast<unsigned char>(shown[i]) & 0xC0) == 0x80) continue;  // inside a character
        if (visible_width(shown.substr(i)) > width - 1) break;
        tail = shown.substr(i);
    }
    return "…" + tail;
}

}  // namespace attn::tutor
