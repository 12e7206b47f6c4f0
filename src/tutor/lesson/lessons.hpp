// tutor/lesson/lessons.hpp — the lessons: where their documents are, what each one computes, and the
// run that checks every expected value of a document against the library.
//
// Why the split: the document holds prose and numbers; the program (one C++ function per lesson,
// lessons/NN-slug/lesson.cpp beside its document) computes every named intermediate from the
// document's inputs with the library. run_lesson joins the two: each `attn expect` block is
// compared with the tensor of the same name the program computed for that example.
//
//   auto lessons = list_lessons(lessons_directory(""));
//   LessonRun run = run_lesson(find_lesson(lessons, "1"));
//   run.passed();   // true when every expect block matched
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tutor/lesson/check.hpp"
#include "tutor/document/lesson_document.hpp"

namespace attn::tutor {

using NamedTensors = std::map<std::string, DynamicTensor>;

/// The inputs of one example, with accessors that explain a missing or misshapen input.
class LessonInputs {
public:
    /// `lines`: the line of each input's block, for messages ("README.md:42: …").
    LessonInputs(NamedTensors tensors, std::string document, std::string example, std::map<std::string, int> lines = {});
    /// The input `name`, which must have rank `rank`; `legend` ("(B, S, H)") is quoted in errors.
    DynamicTensor get(const std::string& name, std::size_t rank, const std::string& legend) const;
    /// The same, for an input whose values are counts or sizes (a number of heads, widths): every
    /// value must be a whole number in [min, max] — and their sum at most max_total — before a
    /// program turns it into a size, so that [1e9], [-1], [nan] or [0.5] is a LessonFormatError
    /// naming the file and line, never a hang, a wrap-around or a silent truncation.
    DynamicTensor get_counts(const std::string& name, std::size_t rank, const std::string& legend, std::size_t min,
                             std::size_t max, std::size_t max_total = SIZE_MAX) const;
    bool has(const std::string& name) const;

private:
    NamedTensors tensors_;
    std::string document_, example_;
    std::map<std::string, int> lines_;
};

/// One lesson's computation: every tensor its document may check, for one example.
using LessonComputation = NamedTensors (*)(const std::string& example, const LessonInputs& inputs);

struct LessonProgram {
    int number;
    const char* slug;
    LessonComputation compute;
};

/// The lessons this build knows how to compute, in order.
const std::vector<LessonProgram>& lesson_programs();

/// A lesson found on disk: lessons/NN-slug/README.md.
struct LessonInfo {
    int number = 0;
    std::string slug;
    std::string title;
    std::string document_path;
    const LessonProgram* program = nullptr;  // null when this build has no program for it
};

/// A lesson folder's name split: "01-dot-product" → {1, "dot-product"}; "100-copy" → {100,
/// "copy"}. Digits (at most 6), a dash, a slug of at least one character; nullopt otherwise.
struct LessonFolderName {
    int number;
    std::string slug;
};
std::optional<LessonFolderName> parse_lesson_folder(const std::string& folder);

/// The lessons folder: `override` if given, else $ATTN_LESSONS_DIR, else the source tree's lessons/.
std::string lessons_directory(const std::string& override);

/// Every NN-slug/README.md under `directory`, sorted by number. InputError when there is none.
/// Another edition of a lesson (README.es.md beside it) is never a lesson of its own.
std::vector<LessonInfo> list_lessons(const std::string& directory);

/// The document of `lesson` in `language`: its README.md for "en", else README.<language>.md
/// beside it (README.es.md, the Spanish edition). The file need not exist. Both editions hold the
/// same attn blocks in the same steps (tests/test_lesson_editions.cpp); only the prose differs.
std::string edition_path(const LessonInfo& lesson, const std::string& language);

/// `lesson` as its edition in `language` has it (document_path and title from that file); empty
/// when that edition does not exist. For "en", `lesson` itself.
std::optional<LessonInfo> lesson_edition(const LessonInfo& lesson, const std::string& language);

/// A lesson by number ("1", "01"), slug in any case ("dot-product", "Luong") or folder name
/// ("02-luong"); InputError listing the lessons otherwise.
const LessonInfo& find_lesson(const std::vector<LessonInfo>& lessons, const std::string& number_or_slug);

/// One `attn expect` block judged.
struct CheckResult {
    int block = -1;  // index into LessonDocument::blocks
    DynamicTensor got;
    Comparison comparison;
};

struct LessonRun {
    LessonInfo info;
    LessonDocument document;
    std::map<std::string, NamedTensors> computed;  // example → every tensor the program computed
    std::vector<CheckResult> checks;               // in document order

    bool passed() const;
    /// The check of block `block`, or null.
    const CheckResult* check_for_block(int block) const;
};

/// Parses the document, computes every example, compares every expect block.
/// A document the program cannot use (a missing input, an expect block naming a tensor the
/// program does not compute, heatmap labels that do not fit the computed tensor) is a
/// LessonFormatError naming the file and line, raised before anything is shown.
LessonRun run_lesson(const LessonInfo& lesson);

}  // namespace attn::tutor
