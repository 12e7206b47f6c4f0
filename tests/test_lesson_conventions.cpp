// The conventions every lesson document keeps, checked over the parsed documents:
//   · a check means what it shows: the tolerance of every expected value (its written digits'
//     half unit + atol + rtol·|v|, as tutor/check computes it) is smaller than the value itself,
//     unless the value is exactly 0 — otherwise a wrong number could pass under a green ✓; and a
//     block that keeps the default tolerance lets its written digits decide (the default float
//     noise allowance is no larger than their half unit), so the digits a class sees are right;
//   · it fits a projector: every fenced block (code, formulas, tensors) and every table is at
//     most 76 columns wide, so that it does not wrap at 80 columns once indented.
// tools/lesson_expectations.py --check applies the same tolerance rules.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include "support/per_lesson.hpp"
#include "tutor/lesson/check.hpp"
#include "tutor/lesson/lessons.hpp"

namespace {

using namespace attn::tutor;

constexpr std::size_t widest_line = 76;

// Columns a line takes on a terminal: one per code point, none for combining marks (the bar of
// h̄ is U+0304). The lessons use no double-width characters.
std::size_t display_width(const std::string& line) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < line.size();) {
        const unsigned char lead = static_cast<unsigned char>(line[i]);
        const std::size_t length = lead < 0x80 ? 1 : lead >> 5 == 0x6 ? 2 : lead >> 4 == 0xE ? 3 : 4;
        unsigned code = length == 1 ? lead : lead & (0x7F >> length);
        for (std::size_t k = 1; k < length && i + k < line.size(); ++k) code = (code << 6) | (line[i + k] & 0x3F);
        const bool combining = (code >= 0x0300 && code <= 0x036F) || (code >= 0x20D0 && code <= 0x20FF);
        if (!combining) ++width;
        i += length;
    }
    return width;
}

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream file(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);) lines.push_back(line);
    return lines;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Both editions of a lesson: README.md and, where it exists, the Spanish README.es.md.
std::vector<std::string> lesson_documents(const attn::testing::LessonFolder& lesson) {
    std::vector<std::string> documents = {lesson.path + "/README.md"};
    if (std::ifstream(lesson.path + "/README.es.md").good()) documents.push_back(lesson.path + "/README.es.md");
    return documents;
}

void every_tolerance_is_below_its_value(const attn::testing::LessonFolder& lesson) {
    std::size_t values = 0;
    for (const auto& path : lesson_documents(lesson)) {
        const LessonDocument document = read_lesson_document(path);
        for (const auto& block : document.blocks) {
            if (block.kind != LessonBlock::Kind::expect) continue;
            const Tolerance defaults;
            const double absolute = block.absolute_tolerance.value_or(defaults.absolute);
            const double relative = block.relative_tolerance.value_or(defaults.relative);
            const bool default_tolerance = !block.absolute_tolerance && !block.relative_tolerance;
            const auto& tensor = block.literal.tensor;
            for (std::size_t i = 0; i < tensor.size(); ++i) {
                const double value = tensor.data()[i], resolution = block.literal.resolution.at(i);
                if (!std::isfinite(value) || value == 0.0) continue;
                ++values;
                const double noise = absolute + relative * std::fabs(value);
                INFO(path << ":" << block.line << ": " << block.name << " element " << i << " = "
                                          << value << ", written to ±" << resolution << ", atol " << absolute
                                          << ", rtol " << relative);
                CHECK(resolution + noise < std::fabs(value));
                if (default_tolerance && resolution > 0.0) CHECK(noise <= resolution);
            }
        }
    }
    CHECK(values > 10);  // the lesson's blocks were read
}

void every_block_fits_76_columns(const attn::testing::LessonFolder& lesson) {
    std::size_t checked = 0;
    for (const auto& path : lesson_documents(lesson)) {
        const auto lines = read_lines(path);
        bool in_block = false;
        std::string fence;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::string& line = lines[i];
            const bool fence_line = starts_with(line, "```") || starts_with(line, "~~~");
            if (fence_line && !in_block) {  // an opening fence: its info string is not shown
                in_block = true;
                fence = line.substr(0, 3);
                continue;
            }
            if (in_block && starts_with(line, fence)) {
                in_block = false;
                continue;
            }
            if (!in_block && !starts_with(line, "|")) continue;
            ++checked;
            INFO(path << ":" << i + 1 << ": " << line);
            CHECK(display_width(line) <= widest_line);
        }
    }
    CHECK(checked > 10);
}

}  // namespace

TEST_CASE("display width counts code points and skips combining marks", "[lessons][conventions]") {
    CHECK(display_width("abc") == 3);
    CHECK(display_width("h̄_s · q") == 7);   // h, bar (0), _, s, space, ·, space, q
    CHECK(display_width("−∞ √d_k") == 7);
}

ATTN_PER_LESSON_TEST("every expected value's tolerance is smaller than the value", "[lessons][conventions]",
                     every_tolerance_is_below_its_value)
ATTN_PER_LESSON_TEST("every fenced block and table fits in 76 columns", "[lessons][conventions]",
                     every_block_fits_76_columns)
