#include "fuzz_targets.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "attn/error.hpp"
#include "attn/npy.hpp"
#include "attn/npz.hpp"
#include "attn/shape.hpp"
#include "tutor/views/attention_view.hpp"
#include "tutor/document/lesson_document.hpp"
#include "tutor/document/tensor_literal.hpp"
#include "tutor/document/markdown.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::fuzz {

namespace {

[[noreturn]] void broken(const std::string& promise) { throw std::logic_error("fuzz: broken promise: " + promise); }

void require_document_error(const std::string& message, const char* file) {
    if (message.rfind(std::string(file) + ":", 0) != 0) broken("a document error starts with the file name: " + message);
    require_printable(message, "the error message");
}

}  // namespace

void require_printable(const std::string& text, const char* what) {
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F) {
            char code[8];
            std::snprintf(code, sizeof code, "0x%02x", byte);
            broken(std::string(what) + " holds the control byte " + code);
        }
    }
}

void npy_input(const std::string& input) {
    try {
        const NpyArray array = parse_npy(input, "fuzz.npy");
        // What was accepted is consistent: as many values as the shape says, within the limit.
        std::size_t count = 1;
        for (std::size_t axis : array.shape) count *= axis;
        if (count != array.values.size() || count > max_tensor_values) broken("the values fill the shape");
        const NpyArray again = parse_npy(encode_npy(array.shape, array.values, array.dtype), "again.npy");
        if (again.shape != array.shape || again.dtype != array.dtype) broken("what is read can be written back");
    } catch (const InputError& error) {
        require_printable(error.what(), "the error message");
    }
}

void npz_input(const std::string& input) {
    try {
        const auto every_type = [](const std::string&) { return NpyAccept::floats_bools_integers; };
        for (const auto& member : parse_npz(input, "fuzz.npz", every_type)) {
            const NpyArray& array = member.second;
            std::size_t count = 1;
            for (std::size_t axis : array.shape) count *= axis;
            if (count != array.values.size() || count > max_tensor_values) broken("a member's values fill its shape");
        }
    } catch (const InputError& error) {
        require_printable(error.what(), "the error message");
    }
}

void tensor_literal_input(const std::string& input) {
    try {
        const auto literal = tutor::parse_tensor_literal(input, "fuzz.md", 1);
        if (literal.resolution.size() != literal.tensor.size()) broken("one resolution per value");
        for (double value : literal.tensor) {
            if (std::isnan(value)) broken("nan is refused");
        }
    } catch (const tutor::LessonFormatError& error) {
        require_document_error(error.what(), "fuzz.md");
    }
}

void lesson_document_input(const std::string& input) {
    tutor::LessonDocument document;
    try {
        document = tutor::parse_lesson_document(input, "fuzz.md");
    } catch (const tutor::LessonFormatError& error) {
        require_document_error(error.what(), "fuzz.md");
        return;
    }
    require_printable(document.title, "the title");
    tutor::Terminal plain;
    plain.width = 60;
    tutor::Terminal colour = plain;
    colour.colour = true;
    for (const auto& section : document.sections) {
        require_printable(section.heading, "a heading");
        for (const auto& segment : section.segments) {
            if (segment.block >= 0) continue;
            // Colour off: the output is the document's own text, printable throughout.
            require_printable(tutor::render_markdown(segment.prose, plain), "the rendered prose");
            // Colour on: the renderer adds its own escape codes; it must not fail either.
            (void)tutor::render_markdown(segment.prose, colour);
        }
    }
    for (const auto& block : document.blocks) {
        for (const auto& label : block.row_labels) require_printable(label, "a row label");
        for (const auto& label : block.column_labels) require_printable(label, "a column label");
        for (double value : block.literal.tensor) {
            if (block.kind == tutor::LessonBlock::Kind::input && !std::isfinite(value)) broken("inputs are finite");
        }
    }
}

void tokens_input(const std::string& input) {
    try {
        for (const auto& token : tutor::parse_tokens(input, "the tokens file fuzz.txt")) {
            require_printable(token, "a token");
            if (token.find('\n') != std::string::npos) broken("one token per line");
        }
    } catch (const InputError& error) {
        if (!input.empty()) broken("only an empty tokens file is refused");
        require_printable(error.what(), "the error message");
    }
}

}  // namespace attn::fuzz
