#include "tutor/lesson/walkthrough.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "tutor/lesson/lesson_report.hpp"
#include "tutor/document/markdown.hpp"
#include "tutor/document/markdown_inline.hpp"
#include "tutor/terminal/text_layout.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

std::size_t widest_line(const std::string& text) {
    std::size_t widest = 0;
    for (const std::string& line : split_lines(text)) widest = std::max(widest, visible_width(line));
    return widest;
}

// A heading as plain text: `code` and **bold** marks removed, spaces kept.
std::string plain_heading(const std::string& heading) {
    std::string text = render_inline(heading, Terminal{});
    std::replace(text.begin(), text.end(), unbreakable_space, ' ');
    return text;
}

// 4 for "Step 4 — Context" (also "Step 4. …", "Step 4: …", and the Spanish edition's
// "Paso 4 — Contexto"); -1 otherwise.
int step_number_in(const std::string& title) {
    for (const std::string word : {"Step ", "Paso "}) {
        if (title.rfind(word, 0) != 0) continue;
        const std::size_t start = word.size();
        std::size_t end = start;
        while (end < title.size() && std::isdigit(static_cast<unsigned char>(title[end])) && end < start + 7) ++end;
        if (end == start) return -1;
        if (end < title.size() && title[end] != ' ' && title[end] != '.' && title[end] != ':') return -1;
        return std::stoi(title.substr(start, end - start));
    }
    return -1;
}

// A grid of 0/1 flags (lesson 7's tiles computed or skipped): shading it min → max would only
// restate the zeros and ones, so it is printed as a tensor.
bool flags_only(const DynamicTensor& tensor) {
    bool zero = false, one = false;
    for (const double v : tensor) {
        if (v == 0.0) zero = true;
        else if (v == 1.0) one = true;
        else return false;
    }
    return zero && one;
}

std::size_t line_count(const std::string& text) { return split_lines(text).size(); }

// A tensor block as the class sees it: its title, then its print, its heat map or both, then its
// check (`check_text`, empty for an input). The whole block is kept on one screen when it fits;
// else each heat-map grid with its caption and legend, the first with the block's title.
WalkPart tensor_part(const Terminal& terminal, const std::string& label, const LessonBlock& block,
                     const DynamicTensor& tensor, TensorView view, const std::string& check_text) {
    WalkPart part{true, describe_tensor(terminal, label, block, tensor), {}};
    if (block.heatmap && view != TensorView::tensor && !flags_only(tensor)) {
        const std::vector<std::string> grids = describe_heatmap(terminal, block, tensor);
        std::string picture;
        for (const std::string& grid : grids) picture += grid;
        if (widest_line(picture) <= terminal.width) {  // else the grid cannot fit: the numbers can
            part.text = view == TensorView::both ? part.text + "\n" : describe_tensor_title(terminal, label, block, tensor);
            std::size_t line = line_count(part.text);
            for (const std::string& grid : grids) {
                const std::size_t first = &grid == &grids.front() ? 0 : line;
                line += line_count(grid);
                part.keep.emplace_back(first, line);
            }
            part.text += picture;
        }
    }
    part.text += check_text;
    part.keep.emplace_back(0, line_count(part.text));
    return part;
}

// "  input w_q  (D, D) = (4, 4) · as in step 2": an input the class has seen, on one line.
std::string brief_input(const Terminal& terminal, const LessonRun& run, const LessonBlock& block, const std::string& seen) {
    std::string title = describe_tensor_title(terminal, tr("input") + " ", block, block.literal.tensor);
    title.pop_back();  // its newline
    const std::string where =
        seen.empty() ? trf("written in {1}", {std::filesystem::path(run.document.path).filename().string() + ":" + std::to_string(block.line)})
                     : seen;
    return fit_to_width(title + paint(terminal, Style::dim, " · " + where), terminal.width) + "\n";
}

// Adds a brief input to the step: in the same part as the brief inputs just before it.
void add_brief(WalkStep& step, const std::string& line) {
    if (step.parts.empty() || !step.parts.back().brief) step.parts.push_back({false, "", {}, true});
    step.parts.back().text += line;
    step.parts.back().keep = {{0, line_count(step.parts.back().text)}};
}

// Each input shown whole so far, and the number of its step.
using ShownInputs = std::vector<std::pair<const LessonBlock*, int>>;

// An input block: whole the first time, one line when the class has seen it (`brief`, or the same
// name and values earlier in the lesson) unless every input is asked for.
void add_input(WalkStep& step, const Terminal& terminal, const LessonRun& run, const LessonBlock& block, TensorView view,
               InputView inputs, ShownInputs& shown) {
    const auto earlier = std::find_if(shown.begin(), shown.end(), [&block](const auto& input) {
        return input.first->name == block.name && input.first->literal.tensor == block.literal.tensor;
    });
    if (inputs == InputView::new_ones && (block.brief || earlier != shown.end())) {
        const std::string seen = earlier == shown.end() ? "" : trf("as in step {1}", {std::to_string(earlier->second)});
        add_brief(step, brief_input(terminal, run, block, seen));
        return;
    }
    shown.emplace_back(&block, step.number);
    step.parts.push_back(tensor_part(terminal, tr("input") + " ", block, block.literal.tensor, view, ""));
}

// An expect block: the computed tensor and its check.
WalkPart expect_part(const Terminal& terminal, const LessonRun& run, int index, TensorView view) {
    const LessonBlock& block = run.document.blocks[static_cast<std::size_t>(index)];
    const CheckResult* check = run.check_for_block(index);
    return tensor_part(terminal, "", block, check->got, view, describe_check(terminal, run, *check));
}

}  // namespace

Walkthrough build_walkthrough(const LessonRun& run, const Terminal& terminal, TensorView view, InputView inputs) {
    ShownInputs shown_inputs;
    Walkthrough walkthrough;
    walkthrough.lesson_number = run.info.number;
    walkthrough.lesson_title = plain_heading(run.document.title);
    for (const auto& check : run.checks) (check.comparison.passed ? walkthrough.passed : walkthrough.failed) += 1;
    const auto& sections = run.document.sections;
    for (std::size_t s = 0; s < sections.size(); ++s) {
        WalkStep step;
        step.title = plain_heading(s == 0 ? tr("Introduction") : sections[s].heading);
        const int written = step_number_in(step.title);
        step.number = written >= 0 ? written : static_cast<int>(s);
        for (const auto& segment : sections[s].segments) {
            if (segment.block < 0) {
                LineRanges blocks;
                std::string prose = render_markdown(segment.prose, terminal, blocks);
                if (prose.find_first_not_of(" \n") == std::string::npos) continue;
                if (prose.back() != '\n') prose += "\n";
                step.parts.push_back({false, prose, blocks});
                continue;
            }
            const LessonBlock& block = run.document.blocks[static_cast<std::size_t>(segment.block)];
            if (block.kind == LessonBlock::Kind::input) add_input(step, terminal, run, block, view, inputs, shown_inputs);
            else step.parts.push_back(expect_part(terminal, run, segment.block, view));
        }
        walkthrough.steps.push_back(std::move(step));
    }
    return walkthrough;
}

std::optional<std::size_t> find_step(const Walkthrough& walkthrough, int number) {
    if (number < 0) return std::nullopt;
    for (std::size_t s = 0; s < walkthrough.steps.size(); ++s) {
        if (step_number_in(walkthrough.steps[s].title) == number) return s;
    }
    if (static_cast<std::size_t>(number) < walkthrough.steps.size()) return static_cast<std::size_t>(number);
    return std::nullopt;
}

std::string step_rule(const Terminal& terminal, const std::string& title) {
    const std::vector<std::string> lines = split_lines(wrap_words(title, terminal.width, "── ", "   "));
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string line = lines[i];
        if (i + 1 == lines.size()) {
            const std::size_t used = visible_width(line) + 1;
            if (used + 2 <= terminal.width) {
                line += " ";
                for (std::size_t k = used; k < terminal.width; ++k) line += "─";
            }
        }
        out += paint(terminal, Style::heading, line) + "\n";
    }
    return out;
}

std::string continuous_text(const Walkthrough& walkthrough, const Terminal& terminal, std::size_t first_step) {
    std::string out;
    for (std::size_t s = first_step; s < walkthrough.steps.size(); ++s) {
        out += "\n" + step_rule(terminal, s == 0 ? walkthrough.lesson_title : walkthrough.steps[s].title) + "\n";
        for (const WalkPart& part : walkthrough.steps[s].parts) out += part.text + "\n";
    }
    return out;
}

}  // namespace attn::tutor
