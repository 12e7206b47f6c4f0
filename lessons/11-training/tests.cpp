// This lesson's own tests: the trained model of the document copies the document's sequences
// (the expected decodes are the inputs themselves, not a reference's output), and the lesson's
// program refuses hostile documents through the real `attn check --lessons-dir`: exit 2 naming
// the input, never a crash, a hang or an hour-long run.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/hostile_checks.hpp"
#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"
#include "support/run_command.hpp"

namespace {

using attn::testing::computed;
using attn::testing::TempDir;

// One step holding these input blocks, in the example `example`.
std::string document_with(const std::string& example, const std::vector<std::pair<std::string, std::string>>& inputs) {
    std::string text = "# Lesson " + attn::testing::this_lesson_number() + " — hostile\n\n## Step\n\n";
    for (const auto& [name, values] : inputs) text += "```attn input " + name + " example=" + example + "\n" + values + "\n```\n\n";
    return text;
}

void expect_check_refused(const std::string& document, const std::vector<std::string>& fragments) {
    TempDir dir;
    attn::testing::expect_refused({"--lessons-dir", attn::testing::this_lesson_with_document(dir, document), "check",
                                   attn::testing::this_lesson_number()},
                                  fragments);
}

// The inputs of a seeded run, with one of them replaced.
std::vector<std::pair<std::string, std::string>> run_inputs(const std::string& changed = "", const std::string& values = "") {
    std::vector<std::pair<std::string, std::string>> inputs = {
        {"vocabulary", "[11]"}, {"d_model", "[8]"}, {"d_ff", "[16]"}, {"heads", "[2]"},  {"layers", "[1]"},
        {"seed", "[1]"},        {"batch", "[2]"},   {"length", "[5]"},  {"warmup", "[4]"}, {"lr_factor", "[1]"},
        {"steps", "[2]"},       {"sequences", "[[1, 2, 3, 4, 5]]"}};
    for (auto& [name, text] : inputs)
        if (name == changed) text = values;
    return inputs;
}

}  // namespace

ATTN_LESSON_TEST_CASE("the trained model copies the document's sequences", "[lesson09]") {
    const auto run = attn::testing::run_this_lesson();
    const attn::DynamicTensor sequences = run.document.inputs("train").at("sequences");
    const attn::DynamicTensor decodes = computed(run, "train", "decodes");
    REQUIRE(decodes.shape() == sequences.shape());
    for (std::size_t n = 0; n < sequences.shape(0); ++n) {
        std::string expected, got;
        for (std::size_t t = 0; t < sequences.shape(1); ++t) {
            expected += " " + std::to_string(int(sequences(n, t)));
            got += " " + std::to_string(int(decodes(n, t)));
        }
        INFO("sequence " << n << ": expected" << expected << ", got" << got);
        CHECK(expected == got);
    }
}

ATTN_LESSON_TEST_CASE("hostile - model sizes that do not fit or are too large for a lesson", "[cli][hostile]") {
    expect_check_refused(document_with("train", run_inputs("heads", "[3]")), {"input 'heads' [3] must divide d_model [8]"});
    expect_check_refused(document_with("small", run_inputs("d_model", "[4096]")), {"d_model"});
    expect_check_refused(document_with("train", run_inputs("layers", "[0]")), {"layers"});
    expect_check_refused(document_with("train", run_inputs("vocabulary", "[2]")), {"input 'vocabulary' [2] is too small"});
    // 1 000 steps of a model of width 512: refused before the first, not run for an hour.
    auto wide = run_inputs("steps", "[1000]");
    for (auto& [name, text] : wide) {
        if (name == "d_model") text = "[512]";
        if (name == "d_ff") text = "[2048]";
    }
    expect_check_refused(document_with("train", wide), {"1000 steps", "d_model 512", "too long for a lesson", "attn train copy"});
}

ATTN_LESSON_TEST_CASE("hostile - sequences and targets outside the vocabulary, too short to shift", "[cli][hostile]") {
    expect_check_refused(document_with("train", run_inputs("sequences", "[[1, 2, 11, 4, 5]]")), {"sequences"});
    expect_check_refused(document_with("train", run_inputs("sequences", "[[1, 0, 3, 4, 5]]")), {"sequences"});
    expect_check_refused(document_with("train", run_inputs("sequences", "[[1]]")), {"sequences", "(1, 1)"});
    expect_check_refused(document_with("forcing", {{"tgt", "[[1]]"}}), {"tgt has shape (1, 1)"});
    expect_check_refused(document_with("loss", {{"logits", "[[0, 1, 2]]"}, {"targets", "[3]"}, {"padding", "[0]"}}),
                         {"targets"});
    expect_check_refused(
        document_with("smoothing",
                      {{"logits", "[[0, 1, 2]]"}, {"targets", "[1]"}, {"padding", "[0]"}, {"label_smoothing", "[1.5]"}}),
        {"label_smoothing"});
}

ATTN_LESSON_TEST_CASE("hostile - Adam's gradients that do not match the parameters", "[cli][hostile]") {
    expect_check_refused(document_with("adam", {{"theta", "[1, 2]"}, {"gradients", "[[1, 2, 3]]"}, {"learning_rate", "[0.1]"}}),
                         {"input 'gradients' (1, 3)", "'theta' (2)"});
    expect_check_refused(document_with("adam", {{"theta", "[1, 2]"}, {"gradients", "[[1, nan]]"}, {"learning_rate", "[0.1]"}}),
                         {"README.md:10", "nan"});
}
