#include "tutor/lesson_report.hpp"

#include <filesystem>
#include <sstream>

#include "attn/shape.hpp"
#include "tutor/heatmap.hpp"
#include "tutor/tensor_format.hpp"

namespace attn::tutor {

namespace {

std::string indent_lines(const std::string& text, const std::string& indent) {
    std::istringstream stream(text);
    std::string out;
    for (std::string line; std::getline(stream, line);) out += (line.empty() ? "" : indent) + line + "\n";
    return out;
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
    return block.example == "main" ? "" : " [example " + block.example + "]";
}

}  // namespace

std::string describe_tensor(const Terminal& terminal, const std::string& label, const LessonBlock& block,
                            const DynamicTensor& tensor) {
    std::string legend;
    if (!block.dimension_letters.empty()) {
        legend = "(";
        for (std::size_t i = 0; i < block.dimension_letters.size(); ++i) legend += (i ? ", " : "") + block.dimension_letters[i];
        legend += ") = ";
    }
    std::string text = "  " + paint(terminal, Style::dim, label) + paint(terminal, Style::bold, block.name) +
                       example_suffix(block) + "  " + paint(terminal, Style::dim, legend + shape_string(tensor.shape())) + "\n";
    return text + indent_lines(format_like_pytorch(tensor), "  ");
}

std::string describe_heatmap(const Terminal& terminal, const LessonBlock& block, const DynamicTensor& tensor) {
    return render_heatmaps(terminal, tensor, block.row_labels, block.column_labels, block.dimension_letters);
}

std::string describe_check(const Terminal& terminal, const LessonRun& run, const CheckResult& check) {
    const LessonBlock& block = run.document.blocks[static_cast<std::size_t>(check.block)];
    const std::string where = std::filesystem::path(run.document.path).filename().string() + ":" + std::to_string(block.line);
    if (check.comparison.passed) {
        std::string text = "  " + paint(terminal, Style::good, "✓") + " " + block.name + example_suffix(block) +
                           ": expected (" + where + ") = got · " + check.comparison.summary() + "\n";
        // Equal within the written digits but printed differently (a rounding boundary, or a
        // document written with more digits): show what the document says too.
        if (normalized(block.text) != normalized(format_like_pytorch(check.got))) {
            text += "    expected, as written in the document:\n" + indent_lines(block.text, "    ");
        }
        return text;
    }
    std::string text = "  " + paint(terminal, Style::bad, "✗") + " " + block.name + example_suffix(block) +
                       " differs from the document (" + where + "): " + check.comparison.summary() + "\n";
    text += "    expected, as written in the document:\n" + indent_lines(block.text, "    ");
    text += "    got:\n" + indent_lines(format_like_pytorch(check.got), "    ");
    return text;
}

std::string describe_totals(const Terminal& terminal, std::size_t passed, std::size_t failed) {
    const std::string line = std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
    return paint(terminal, failed == 0 ? Style::good : Style::bad, line) + "\n";
}

}  // namespace attn::tutor
