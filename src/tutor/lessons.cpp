#include "tutor/lessons.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"

#ifndef ATTN_DEFAULT_LESSONS_DIR
#define ATTN_DEFAULT_LESSONS_DIR "lessons"
#endif

namespace attn::tutor {

NamedTensors lesson01_dot_product(const std::string& example, const LessonInputs& inputs);
NamedTensors lesson02_luong(const std::string& example, const LessonInputs& inputs);
NamedTensors lesson03_bahdanau(const std::string& example, const LessonInputs& inputs);
NamedTensors lesson04_causal_self_attention(const std::string& example, const LessonInputs& inputs);
NamedTensors lesson05_multi_head_attention(const std::string& example, const LessonInputs& inputs);
NamedTensors lesson06_encoder_layer(const std::string& example, const LessonInputs& inputs);
NamedTensors lesson07_online_softmax(const std::string& example, const LessonInputs& inputs);

const std::vector<LessonProgram>& lesson_programs() {
    static const std::vector<LessonProgram> programs = {
        {1, "dot-product", lesson01_dot_product},
        {2, "luong", lesson02_luong},
        {3, "bahdanau", lesson03_bahdanau},
        {4, "causal-self-attention", lesson04_causal_self_attention},
        {5, "multi-head-attention", lesson05_multi_head_attention},
        {6, "encoder-layer", lesson06_encoder_layer},
        {7, "online-softmax", lesson07_online_softmax},
    };
    return programs;
}

LessonInputs::LessonInputs(NamedTensors tensors, std::string document, std::string example, std::map<std::string, int> lines)
    : tensors_(std::move(tensors)), document_(std::move(document)), example_(std::move(example)), lines_(std::move(lines)) {}

bool LessonInputs::has(const std::string& name) const { return tensors_.count(name) > 0; }

DynamicTensor LessonInputs::get(const std::string& name, std::size_t rank, const std::string& legend) const {
    const auto found = tensors_.find(name);
    if (found == tensors_.end()) {
        throw LessonFormatError(document_ + ": example '" + example_ + "' has no input block for '" + name +
                                "' (shape " + legend + "); add ```attn input " + name +
                                (example_ == "main" ? "" : " example=" + example_) + "```");
    }
    if (found->second.dimension() != rank) {
        throw LessonFormatError(document_ + ": input '" + name + "' of example '" + example_ + "' has shape " +
                                shape_string(found->second.shape()) + "; the lesson needs " + legend);
    }
    return found->second;
}

DynamicTensor LessonInputs::get_counts(const std::string& name, std::size_t rank, const std::string& legend,
                                       std::size_t min, std::size_t max, std::size_t max_total) const {
    DynamicTensor values = get(name, rank, legend);
    const auto line = lines_.find(name);
    const std::string where = document_ + (line == lines_.end() ? "" : ":" + std::to_string(line->second));
    const std::vector<std::size_t> shape(values.shape().begin(), values.shape().end());
    double total = 0.0;
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double value = values.data()[i];
        // NaN fails every comparison, so it lands here too; the cast below only sees safe values.
        if (!(value >= double(min) && value <= double(max)) || value != std::floor(value)) {
            std::ostringstream written;
            written << value;
            throw LessonFormatError(where + ": input '" + name + "' holds " + written.str() + " at " +
                                    index_string(i, shape) + "; it must be a whole number from " + std::to_string(min) +
                                    " to " + std::to_string(max));
        }
        total += value;
    }
    if (total > double(max_total)) {
        throw LessonFormatError(where + ": the values of input '" + name + "' add up to " +
                                std::to_string(static_cast<std::size_t>(total)) + "; at most " + std::to_string(max_total) +
                                " (the computation grows with their sum)");
    }
    return values;
}

std::string lessons_directory(const std::string& override) {
    if (!override.empty()) return override;
    if (const char* environment = std::getenv("ATTN_LESSONS_DIR"); environment && *environment) return environment;
    return ATTN_DEFAULT_LESSONS_DIR;
}

namespace {

// The title for `attn list`: read with the document's size limit, printable.
std::string read_title(const std::string& path) {
    std::string text;
    try {
        text = read_input_file(path, max_lesson_document_bytes, "the lesson document");
    } catch (const InputError&) {
        return tr("(unreadable; attn check names the problem)");
    }
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("# ", 0) == 0) return printable_text(line.substr(2));
    }
    return tr("(untitled)");
}

}  // namespace

std::vector<LessonInfo> list_lessons(const std::string& directory) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
        throw InputError(trf("{1}: the lessons folder does not exist (set --lessons-dir or ATTN_LESSONS_DIR)", {directory}));
    }
    std::vector<LessonInfo> lessons;
    for (const auto& entry : fs::directory_iterator(directory, error)) {
        const std::string folder = entry.path().filename().string();
        // NN-slug: two digits, a dash, a slug.
        if (folder.size() < 4 || !std::isdigit(static_cast<unsigned char>(folder[0])) ||
            !std::isdigit(static_cast<unsigned char>(folder[1])) || folder[2] != '-') {
            continue;
        }
        const fs::path document = entry.path() / "README.md";
        if (!fs::is_regular_file(document, error)) continue;
        LessonInfo info;
        info.number = std::stoi(folder.substr(0, 2));
        info.slug = printable_text(folder.substr(3));  // printed by list and check
        info.document_path = document.string();
        info.title = read_title(info.document_path);
        for (const auto& program : lesson_programs()) {
            if (program.number == info.number && info.slug == program.slug) info.program = &program;
        }
        lessons.push_back(std::move(info));
    }
    if (lessons.empty()) throw InputError(trf("{1}: no lessons found (expected folders like 01-dot-product/README.md)", {directory}));
    std::sort(lessons.begin(), lessons.end(), [](const LessonInfo& a, const LessonInfo& b) { return a.number < b.number; });
    return lessons;
}

std::string edition_path(const LessonInfo& lesson, const std::string& language) {
    if (language == "en") return lesson.document_path;
    return (std::filesystem::path(lesson.document_path).parent_path() / ("README." + language + ".md")).string();
}

std::optional<LessonInfo> lesson_edition(const LessonInfo& lesson, const std::string& language) {
    if (language == "en") return lesson;
    const std::string path = edition_path(lesson, language);
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
    LessonInfo edition = lesson;
    edition.document_path = path;
    edition.title = read_title(path);
    return edition;
}

const LessonInfo& find_lesson(const std::vector<LessonInfo>& lessons, const std::string& number_or_slug) {
    const bool numeric = !number_or_slug.empty() && number_or_slug.size() <= 3 &&
                         std::all_of(number_or_slug.begin(), number_or_slug.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    for (const auto& lesson : lessons) {
        if (numeric ? lesson.number == std::stoi(number_or_slug) : lesson.slug == number_or_slug) return lesson;
    }
    std::string known;
    for (const auto& lesson : lessons) known += (known.empty() ? "" : ", ") + std::to_string(lesson.number) + " " + lesson.slug;
    throw InputError(trf("unknown lesson '{1}'; the lessons are: {2}", {number_or_slug, known}));
}

namespace {

// A heatmap of an expect block draws the computed tensor with the block's labels: they must fit
// it, or the walkthrough would stop in the middle of the class.
void check_heatmap_labels(const std::string& path, const LessonBlock& block, const DynamicTensor& computed) {
    if (!block.heatmap && block.row_labels.empty() && block.column_labels.empty()) return;
    const std::string where = path + ":" + std::to_string(block.line) + ": ";
    const std::size_t rank = computed.dimension();
    if (rank == 0 || rank > 4) {
        throw LessonFormatError(where + "'" + block.name + "' is computed with shape " + shape_string(computed.shape()) +
                                "; a heatmap draws rank 1 to 4");
    }
    const std::size_t rows = rank == 1 ? 1 : computed.shape()[rank - 2], columns = computed.shape()[rank - 1];
    if (!block.row_labels.empty() && block.row_labels.size() != rows) {
        throw LessonFormatError(where + "rows= gives " + std::to_string(block.row_labels.size()) + " labels but '" +
                                block.name + "' is computed with shape " + shape_string(computed.shape()) + ", " +
                                std::to_string(rows) + " rows");
    }
    if (!block.column_labels.empty() && block.column_labels.size() != columns) {
        throw LessonFormatError(where + "columns= gives " + std::to_string(block.column_labels.size()) + " labels but '" +
                                block.name + "' is computed with shape " + shape_string(computed.shape()) + ", " +
                                std::to_string(columns) + " columns");
    }
}

}  // namespace

bool LessonRun::passed() const {
    return std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.comparison.passed; });
}

const CheckResult* LessonRun::check_for_block(int block) const {
    for (const auto& check : checks) {
        if (check.block == block) return &check;
    }
    return nullptr;
}

LessonRun run_lesson(const LessonInfo& lesson) {
    LessonRun run;
    run.info = lesson;
    run.document = read_lesson_document(lesson.document_path);
    if (lesson.program == nullptr) {
        throw InputError(lesson.document_path + ": this build of attn has no program for lesson " +
                         std::to_string(lesson.number) + " '" + lesson.slug + "'");
    }
    for (const auto& example : run.document.examples()) {
        std::map<std::string, int> lines;
        for (const auto& block : run.document.blocks) {
            if (block.kind == LessonBlock::Kind::input && block.example == example) lines[block.name] = block.line;
        }
        const LessonInputs inputs(run.document.inputs(example), lesson.document_path, example, lines);
        try {
            run.computed[example] = lesson.program->compute(example, inputs);
        } catch (const LessonFormatError&) {
            throw;
        } catch (const InputError& error) {
            throw LessonFormatError(lesson.document_path + ": example '" + example + "': " + error.what());
        }
    }
    for (std::size_t i = 0; i < run.document.blocks.size(); ++i) {
        const LessonBlock& block = run.document.blocks[i];
        if (block.kind != LessonBlock::Kind::expect) continue;
        const NamedTensors& computed = run.computed[block.example];
        const auto found = computed.find(block.name);
        if (found == computed.end()) {
            std::string names;
            for (const auto& [name, tensor] : computed) names += (names.empty() ? "" : ", ") + name;
            throw LessonFormatError(lesson.document_path + ":" + std::to_string(block.line) + ": lesson " +
                                    std::to_string(lesson.number) + " computes no tensor '" + block.name +
                                    "' for example '" + block.example + "'; it computes: " + names);
        }
        check_heatmap_labels(lesson.document_path, block, found->second);
        Tolerance tolerance;
        if (block.absolute_tolerance) tolerance.absolute = *block.absolute_tolerance;
        if (block.relative_tolerance) tolerance.relative = *block.relative_tolerance;
        CheckResult check;
        check.block = static_cast<int>(i);
        check.got = found->second;
        check.comparison = compare(block.literal.tensor, check.got, tolerance, block.literal.resolution);
        run.checks.push_back(std::move(check));
    }
    return run;
}

}  // namespace attn::tutor
