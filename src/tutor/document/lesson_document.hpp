// tutor/document/lesson_document.hpp — a lesson as written in lessons/NN-slug/README.md.
//
// Why: the document is the single source of a lesson's numbers. It reads as ordinary Markdown,
// and its fenced blocks whose info string starts with `attn` carry the worked example:
//
//   ```attn input encoder_outputs shape=B,S,H          an input of example "main"
//   [[[1, 2, 3], [2, 2, 3]], [[4, 5, 6], [4, 5, 6]]]
//   ```
//   ```attn expect scores shape=B,S                    a value the lesson must compute
//   tensor([[50., 57.],
//           [19., 19.]])
//   ```
//
// Attributes: example=NAME (default "main"), shape=LETTERS (the shape legend, checked against the
// rank), atol=X and rtol=X (extra tolerance on top of the written digits), heatmap (draw the
// tensor as a shaded grid too) with rows=LABELS and columns=LABELS (token labels of the grid),
// brief (an input the class saw in an earlier lesson: one line on screen). The `# ` line is the
// title, each `## ` section is one step of the walkthrough. docs/lesson-format.md is the full spec.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tutor/document/tensor_literal.hpp"

namespace attn::tutor {

struct LessonBlock {
    enum class Kind { input, expect };
    Kind kind = Kind::input;
    std::string name;
    std::string example = "main";
    std::vector<std::string> dimension_letters;  // from shape=B,S,H; empty when not given
    std::optional<double> absolute_tolerance, relative_tolerance;
    bool heatmap = false;                                  // `heatmap`: also draw it as a shaded grid
    std::vector<std::string> row_labels, column_labels;   // rows=a,b,c columns=x,y (heatmap labels)
    bool brief = false;    // `brief` (inputs): seen in an earlier lesson, shown as one line
    int line = 0;          // the line of the opening fence
    std::string text;      // the literal as written
    TensorLiteral literal;
};

/// Markdown prose, or a reference to one of the document's attn blocks.
struct LessonSegment {
    std::string prose;
    int block = -1;  // index into LessonDocument::blocks, or -1 for prose
};

/// The introduction (before the first `## `) or one step.
struct LessonSection {
    std::string heading;  // the text after "## " (the title for the introduction)
    int line = 0;
    std::vector<LessonSegment> segments;
};

struct LessonDocument {
    std::string path;
    std::string title;
    std::vector<LessonSection> sections;  // sections[0] is the introduction
    std::vector<LessonBlock> blocks;

    /// The examples named by the input blocks, in order of first appearance.
    std::vector<std::string> examples() const;
    /// The input tensors of one example, by name.
    std::map<std::string, DynamicTensor> inputs(const std::string& example) const;
};

/// The largest lesson document read (4 MiB; the longest lesson is about 40 kB).
constexpr std::size_t max_lesson_document_bytes = std::size_t(4) << 20;

/// Parses Markdown text; `path` names the file in error messages (LessonFormatError, "path:line: ...").
/// Every line goes through printable_text (attn/printable.hpp) first: no control character or
/// escape sequence of a document ever reaches the terminal. Inputs must be finite numbers.
LessonDocument parse_lesson_document(const std::string& markdown, const std::string& path);

/// Reads and parses a lesson file; a missing file, a folder, a FIFO, a device or a file over
/// max_lesson_document_bytes is an InputError naming it.
LessonDocument read_lesson_document(const std::string& path);

}  // namespace attn::tutor
