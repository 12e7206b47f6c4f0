#include "tutor/document/lesson_document.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"

namespace attn::tutor {

namespace {

[[noreturn]] void fail(const std::string& path, int line, const std::string& what) {
    throw LessonFormatError(path + ":" + std::to_string(line) + ": " + what);
}

bool is_identifier(const std::string& word) {
    if (word.empty() || !(std::isalpha(static_cast<unsigned char>(word[0])) || word[0] == '_')) return false;
    for (char c : word) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
    }
    return true;
}

std::vector<std::string> split_words(const std::string& text) {
    std::istringstream stream(text);
    std::vector<std::string> words;
    for (std::string word; stream >> word;) words.push_back(word);
    return words;
}

double parse_tolerance(const std::string& path, int line, const std::string& key, const std::string& value) {
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(number >= 0) || number > 1e3) {
        fail(path, line, key + "=" + value + ": expected a number ≥ 0, such as " + key + "=1e-6");
    }
    return number;
}

// "a,b,c" → {"a", "b", "c"}; an empty entry is refused.
std::vector<std::string> comma_list(const std::string& path, int line, const std::string& key, const std::string& value) {
    std::vector<std::string> items;
    std::stringstream stream(value);
    for (std::string item; std::getline(stream, item, ',');) {
        if (item.empty()) fail(path, line, key + "=" + value + ": an empty entry");
        items.push_back(item);
    }
    return items;
}

// One word after the kind and the name: a flag (heatmap, brief) or key=value.
void apply_attribute(LessonBlock& block, const std::string& word, const std::string& path, int line) {
    if (word == "heatmap") {
        block.heatmap = true;
        return;
    }
    if (word == "brief") {
        block.brief = true;
        return;
    }
    const auto equals = word.find('=');
    if (equals == std::string::npos) fail(path, line, "expected key=value, found '" + word + "'");
    const std::string key = word.substr(0, equals), value = word.substr(equals + 1);
    if (key == "example") {
        if (!is_identifier(value)) fail(path, line, "example=" + value + ": expected a name such as example=main");
        block.example = value;
    } else if (key == "shape") {
        block.dimension_letters = comma_list(path, line, key, value);
    } else if (key == "rows") {
        block.row_labels = comma_list(path, line, key, value);
    } else if (key == "columns") {
        block.column_labels = comma_list(path, line, key, value);
    } else if (key == "atol") {
        block.absolute_tolerance = parse_tolerance(path, line, key, value);
    } else if (key == "rtol") {
        block.relative_tolerance = parse_tolerance(path, line, key, value);
    } else {
        fail(path, line, "unknown attribute '" + key + "'; expected example=, shape=, atol=, rtol=, heatmap, brief, rows= or columns=");
    }
}

// "attn expect scores shape=B,S atol=1e-6" → a block with no values yet.
LessonBlock parse_info_string(const std::string& info, const std::string& path, int line) {
    const auto words = split_words(info);
    LessonBlock block;
    block.line = line;
    if (words.size() < 3) {
        fail(path, line, "an attn block needs a kind and a name, as in ```attn input encoder_outputs, found ```" + info);
    }
    if (words[1] == "input") {
        block.kind = LessonBlock::Kind::input;
    } else if (words[1] == "expect") {
        block.kind = LessonBlock::Kind::expect;
    } else {
        fail(path, line, "unknown attn block kind '" + words[1] + "'; expected 'input' or 'expect'");
    }
    if (!is_identifier(words[2])) {
        fail(path, line, "'" + words[2] + "' is not a tensor name (letters, digits and _ only)");
    }
    block.name = words[2];
    for (std::size_t i = 3; i < words.size(); ++i) apply_attribute(block, words[i], path, line);
    if (block.kind == LessonBlock::Kind::input && (block.absolute_tolerance || block.relative_tolerance)) {
        fail(path, line, "atol= and rtol= belong to expect blocks, not to inputs");
    }
    if (block.kind == LessonBlock::Kind::expect && block.brief) {
        fail(path, line, "brief belongs to input blocks (an input seen in an earlier lesson), not to expect blocks");
    }
    return block;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Every line is made printable here, once: no control character, escape sequence or invalid
// UTF-8 of the document reaches the terminal, whether as prose, title, heading, label or a
// quote in an error message.
std::vector<std::string> printable_lines(const std::string& markdown) {
    std::istringstream stream(markdown);
    std::vector<std::string> lines;
    for (std::string line; std::getline(stream, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(printable_text(line));
    }
    return lines;
}

// A block's values agree with what its info string declares: finite inputs, the rank its
// shape= letters give, as many labels as rows and columns.
void check_block_values(const LessonBlock& block, const std::string& path, int number) {
    if (block.kind == LessonBlock::Kind::input) {
        // inf is allowed in expect blocks (masked scores print as -inf), never as an input.
        const DynamicTensor& values = block.literal.tensor;
        for (std::size_t k = 0; k < values.size(); ++k) {
            if (std::isfinite(values.data()[k])) continue;
            fail(path, number, "input '" + block.name + "' holds " + (values.data()[k] > 0 ? "inf" : "-inf") +
                                   " at " + index_string(k, {values.shape().begin(), values.shape().end()}) +
                                   "; inputs must be finite numbers");
        }
    }
    if (!block.dimension_letters.empty() && block.dimension_letters.size() != block.literal.tensor.dimension()) {
        std::string legend;
        for (const auto& letter : block.dimension_letters) legend += (legend.empty() ? "" : ", ") + letter;
        fail(path, number, "'" + block.name + "' is declared shape=(" + legend + ") but its values have shape " +
                               shape_string(block.literal.tensor.shape()));
    }
    if (!block.row_labels.empty() || !block.column_labels.empty() || block.heatmap) {
        const auto& shape = block.literal.tensor.shape();
        const std::size_t rank = shape.size();
        if (rank > 4) fail(path, number, "'" + block.name + "' has rank " + std::to_string(rank) + "; a heatmap draws rank 1 to 4");
        const std::size_t rows = rank == 1 ? 1 : shape[rank - 2], columns = shape[rank - 1];
        if (!block.row_labels.empty() && block.row_labels.size() != rows) {
            fail(path, number, "rows= gives " + std::to_string(block.row_labels.size()) + " labels but '" +
                                   block.name + "' has " + std::to_string(rows) + " rows");
        }
        if (!block.column_labels.empty() && block.column_labels.size() != columns) {
            fail(path, number, "columns= gives " + std::to_string(block.column_labels.size()) + " labels but '" +
                                   block.name + "' has " + std::to_string(columns) + " columns");
        }
    }
}

// The attn block whose fence opens at lines[open] (line `number`, info string `info`) and
// closes at lines[close].
LessonBlock parse_attn_block(const std::vector<std::string>& lines, std::size_t open, std::size_t close,
                             const std::string& info, const std::string& path, int number) {
    LessonBlock block = parse_info_string(info, path, number);
    for (std::size_t j = open + 1; j < close; ++j) block.text += lines[j] + (j + 1 < close ? "\n" : "");
    if (block.text.find_first_not_of(" \t\n") == std::string::npos) {
        fail(path, number, "the block for '" + block.name + "' holds no values");
    }
    block.literal = parse_tensor_literal(block.text, path, number + 1);
    check_block_values(block, path, number);
    return block;
}

// The line that closes the code block opened at lines[open] with `marker`.
std::size_t closing_fence(const std::vector<std::string>& lines, std::size_t open, const std::string& marker,
                          const std::string& path) {
    std::size_t close = open + 1;
    while (close < lines.size() && !starts_with(lines[close], marker)) ++close;
    if (close == lines.size()) {
        fail(path, static_cast<int>(open) + 1, "the code block opened here is never closed with " + marker);
    }
    return close;
}

// Every expect block must belong to an example that has inputs.
void require_inputs_for_every_expect(const LessonDocument& document, const std::string& path) {
    const auto examples = document.examples();
    for (const auto& block : document.blocks) {
        if (block.kind != LessonBlock::Kind::expect) continue;
        bool known = false;
        for (const auto& example : examples) known = known || example == block.example;
        if (!known) {
            fail(path, block.line, "expect block '" + block.name + "' belongs to example '" + block.example +
                                       "', which has no input blocks");
        }
    }
}

}  // namespace

std::vector<std::string> LessonDocument::examples() const {
    std::vector<std::string> names;
    for (const auto& block : blocks) {
        if (block.kind != LessonBlock::Kind::input) continue;
        bool seen = false;
        for (const auto& name : names) seen = seen || name == block.example;
        if (!seen) names.push_back(block.example);
    }
    return names;
}

std::map<std::string, DynamicTensor> LessonDocument::inputs(const std::string& example) const {
    std::map<std::string, DynamicTensor> tensors;
    for (const auto& block : blocks) {
        if (block.kind == LessonBlock::Kind::input && block.example == example) tensors[block.name] = block.literal.tensor;
    }
    return tensors;
}

LessonDocument parse_lesson_document(const std::string& markdown, const std::string& path) {
    LessonDocument document;
    document.path = path;
    document.sections.push_back(LessonSection{});
    document.sections[0].line = 1;
    const std::vector<std::string> lines = printable_lines(markdown);

    std::string prose;
    auto flush_prose = [&]() {
        if (!prose.empty()) document.sections.back().segments.push_back(LessonSegment{prose, -1});
        prose.clear();
    };
    std::set<std::string> seen;  // "kind example name", to refuse a second block for the same tensor

    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        const int number = static_cast<int>(i) + 1;
        const bool fence = starts_with(line, "```") || starts_with(line, "~~~");
        if (fence) {
            const std::string marker = line.substr(0, 3);
            const std::string info = line.substr(3);
            const bool attn_block = split_words(info).size() > 0 && split_words(info)[0] == "attn";
            const std::size_t close = closing_fence(lines, i, marker, path);
            if (!attn_block) {
                // Ordinary code: part of the prose, kept verbatim.
                for (std::size_t j = i; j <= close; ++j) prose += lines[j] + "\n";
                i = close;
                continue;
            }
            LessonBlock block = parse_attn_block(lines, i, close, info, path, number);
            const std::string kind = block.kind == LessonBlock::Kind::input ? "input" : "expect";
            if (!seen.insert(kind + " " + block.example + " " + block.name).second) {
                fail(path, number, "a second " + kind + " block for '" + block.name + "' in example '" + block.example + "'");
            }
            flush_prose();
            document.blocks.push_back(std::move(block));
            document.sections.back().segments.push_back(LessonSegment{"", static_cast<int>(document.blocks.size()) - 1});
            i = close;
            continue;
        }
        if (starts_with(line, "# ") && document.title.empty()) {
            document.title = line.substr(2);
            document.sections[0].heading = document.title;
            continue;
        }
        if (starts_with(line, "## ")) {
            flush_prose();
            LessonSection section;
            section.heading = line.substr(3);
            section.line = number;
            document.sections.push_back(std::move(section));
            continue;
        }
        prose += line + "\n";
    }
    flush_prose();
    if (document.title.empty()) fail(path, 1, "the lesson has no title: its first heading must be a '# ' line");
    require_inputs_for_every_expect(document, path);
    return document;
}

LessonDocument read_lesson_document(const std::string& path) {
    return parse_lesson_document(read_input_file(path, max_lesson_document_bytes, "the lesson document"), path);
}

}  // namespace attn::tutor
