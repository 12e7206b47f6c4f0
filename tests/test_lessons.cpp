// Every lesson document's checks, run as the tutor runs them: one test per lesson folder
// (support/per_lesson.hpp). Plus the
// errors a lesson author sees when a document and its program disagree.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "support/per_lesson.hpp"
#include "support/temp_dir.hpp"
#include "tutor/lesson/lesson_report.hpp"
#include "tutor/lesson/lessons.hpp"

namespace {

using namespace attn::tutor;

const std::string lessons_dir = ATTN_SOURCE_DIR "/lessons";

// Runs every check of a lesson and reports each failure with its numbers.
void every_check_passes(const attn::testing::LessonFolder& folder) {
    const auto lessons = list_lessons(lessons_dir);
    const LessonInfo& lesson = find_lesson(lessons, std::to_string(folder.number));
    REQUIRE(lesson.program != nullptr);
    const LessonRun run = run_lesson(lesson);
    REQUIRE(run.checks.size() >= 3);  // a lesson without checks would pass vacuously
    for (const auto& check : run.checks) {
        INFO(describe_check(Terminal{}, run, check));
        CHECK(check.comparison.passed);
    }
}

}  // namespace

// One test case per lesson folder: "lesson N - slug - every expected value matches" [lessonNN].
ATTN_PER_LESSON_TEST("every expected value matches", "[lessons]", every_check_passes)

namespace {

// The tensor `name` that lesson `number`'s program computed for `example`.
attn::DynamicTensor computed(const LessonRun& run, const std::string& example, const std::string& name) {
    return run.computed.at(example).at(name);
}

LessonRun run_of(int number) { return run_lesson(find_lesson(list_lessons(lessons_dir), std::to_string(number))); }

}  // namespace

TEST_CASE("lesson 4 - decoding with a KV cache gives the new tokens the rows of the full computation", "[lessons][lesson04]") {
    // Step 11: queries 2 and 3 over all four keys, aligned bottom-right, are rows 2 and 3 of step 4;
    // aligned top-left (the same example's `_top_left` tensors) they are not.
    const LessonRun run = run_of(4);
    const attn::DynamicTensor full = computed(run, "main", "weights"), cached = computed(run, "kv_cache", "weights_bottom_right");
    const attn::DynamicTensor top_left = computed(run, "kv_cache", "weights_top_left");
    REQUIRE(cached.shape() == std::vector<std::size_t>({1, 2, 4}));
    for (std::size_t t = 0; t < 2; ++t)
        for (std::size_t s = 0; s < 4; ++s) {
            INFO("query " << t << " key " << s);
            CHECK(cached(0, t, s) == Approx(full(0, t + 2, s)).margin(1e-15));
        }
    CHECK(top_left(0, 0, 0) == 1.0);
    const attn::DynamicTensor full_output = computed(run, "main", "output"), cached_output = computed(run, "kv_cache", "output_bottom_right");
    for (std::size_t i = 0; i < 3; ++i) CHECK(cached_output(0, 1, i) == Approx(full_output(0, 3, i)).margin(1e-15));
}

TEST_CASE("lesson 6 - the worked layer's attention is lesson 5's, and its norm statistics are norm1's",
          "[lessons][lesson05][lesson06]") {
    const LessonRun five = run_of(5), six = run_of(6);
    const attn::DynamicTensor output5 = computed(five, "main", "output"), attention6 = computed(six, "main", "attention_output");
    REQUIRE(output5.shape() == attention6.shape());
    for (std::size_t i = 0; i < output5.size(); ++i) CHECK(attention6.data()[i] == Approx(output5.data()[i]).margin(1e-14));
    const bool same_weights = computed(six, "main", "attention_weights") == computed(five, "main", "weights");
    CHECK(same_weights);
    // Step 5 by hand: mean 8.4375 / 4 of row 0 of x + attention(x), to the written digits.
    CHECK(computed(six, "main", "norm1_mean")(0, 0) == Approx(2.1094).margin(5e-5));
    CHECK(computed(six, "main", "norm1_variance")(0, 0) == Approx(2.1092).margin(5e-5));
}

TEST_CASE("lesson 7 - the online softmax gives lesson 4's output and skips the tiles above the diagonal",
          "[lessons][lesson04][lesson07]") {
    const LessonRun run = run_of(7);
    for (const std::string example : {"main", "causal"}) {
        INFO("example " << example);
        const attn::DynamicTensor standard = computed(run, example, "output"), online = computed(run, example, "online_output");
        REQUIRE(standard.shape() == online.shape());
        for (std::size_t i = 0; i < standard.size(); ++i) CHECK(online.data()[i] == Approx(standard.data()[i]).margin(1e-15));
    }
    // The worked example's second tile: m grows from 2 to 3, l and acc are multiplied by e^(2 − 3).
    CHECK(computed(run, "main", "m_tile0")(0, 0) == 2.0);
    CHECK(computed(run, "main", "m_tile1")(0, 0) == 3.0);
    CHECK(computed(run, "main", "rescale_tile1")(0, 0) == Approx(std::exp(-1.0)).epsilon(1e-15));
    CHECK(computed(run, "main", "l_tile1")(0, 0) == Approx(std::exp(-1.0) + std::exp(-2.0) + 1.0 + std::exp(-3.0)).epsilon(1e-15));
    // Six queries and keys in tiles of two: the three tiles above the diagonal are skipped.
    const attn::DynamicTensor tiles = computed(run, "causal", "tile_computed");
    REQUIRE(tiles.shape() == std::vector<std::size_t>({3, 3}));
    for (std::size_t row = 0; row < 3; ++row)
        for (std::size_t column = 0; column < 3; ++column) CHECK(tiles(row, column) == (column > row ? 0.0 : 1.0));
    CHECK(computed(run, "causal", "tiles_skipped")(0) == 3.0);
}

TEST_CASE("every lesson folder has a program and every program a folder", "[lessons]") {
    const auto lessons = list_lessons(lessons_dir);
    for (const auto& lesson : lessons) {
        INFO(lesson.document_path);
        CHECK(lesson.program != nullptr);
    }
    for (const auto& program : lesson_programs()) {
        INFO(program.slug);
        CHECK_NOTHROW(find_lesson(lessons, program.slug));
    }
}

TEST_CASE("the per-lesson tests are registered for every lesson the tutor lists", "[lessons]") {
    // The tests' own discovery (support/per_lesson.hpp) against the tutor's: a lesson missed by
    // one of them would silently have no per-lesson tests.
    const auto lessons = list_lessons(lessons_dir);
    const auto& folders = attn::testing::lesson_folders();
    REQUIRE(folders.size() >= 7);  // the lessons are really there
    std::vector<std::pair<int, std::string>> listed, found;
    for (const auto& lesson : lessons) listed.emplace_back(lesson.number, lesson.slug);
    for (const auto& folder : folders) found.emplace_back(folder.number, folder.slug);
    std::sort(listed.begin(), listed.end());
    CHECK(found == listed);
}

TEST_CASE("lessons are found by number or slug and a typo lists them", "[lessons]") {
    const auto lessons = list_lessons(lessons_dir);
    CHECK(find_lesson(lessons, "1").slug == "dot-product");
    CHECK(find_lesson(lessons, "01").number == 1);
    CHECK(find_lesson(lessons, "dot-product").number == 1);
    CHECK_THROWS_WITH(find_lesson(lessons, "42"), Catch::Contains("unknown lesson '42'") && Catch::Contains("1 dot-product"));
    CHECK_THROWS_WITH(find_lesson(lessons, "dot"), Catch::Contains("unknown lesson 'dot'"));
}

TEST_CASE("a document the program cannot use names the file and line", "[lessons][errors]") {
    attn::testing::TempDir dir;
    std::filesystem::create_directories(dir.path() + "/01-dot-product");
    const std::string path = dir.path() + "/01-dot-product/README.md";
    const std::string inputs =
        "# L\n```attn input encoder_outputs\n[[[1, 2]]]\n```\n```attn input decoder_output\n[[1, 1]]\n```\n";

    attn::testing::write_file(path, inputs + "```attn expect attention\n[[1.]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), "1")),
                      Catch::Contains("README.md:8:") && Catch::Contains("computes no tensor 'attention'") &&
                          Catch::Contains("it computes: context, scores"));

    attn::testing::write_file(path, "# L\n```attn input encoder_outputs\n[[[1, 2]]]\n```\n```attn expect scores\n[[1.]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), "1")),
                      Catch::Contains("no input block for 'decoder_output'"));

    attn::testing::write_file(path, "# L\n```attn input encoder_outputs\n[[1, 2]]\n```\n```attn input decoder_output\n[[1, 1]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), "1")),
                      Catch::Contains("has shape (1, 2); the lesson needs (B, S, H)"));

    attn::testing::write_file(path, "# L\n```attn input encoder_outputs\n[[[1, 2]]]\n```\n```attn input decoder_output\n[[1, 1, 1]]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), "1")),
                      Catch::Contains("README.md") && Catch::Contains("encoder_outputs (1, 1, 2) (B, S, H) has H = 2 but decoder_output (1, 3) (B, H) has H = 3"));
}

TEST_CASE("a wrong expected value fails its check with the numbers", "[lessons]") {
    attn::testing::TempDir dir;
    std::filesystem::create_directories(dir.path() + "/01-dot-product");
    attn::testing::write_file(dir.path() + "/01-dot-product/README.md",
                              "# L\n```attn input encoder_outputs\n[[[1, 2], [3, 4]]]\n```\n"
                              "```attn input decoder_output\n[[1, 1]]\n```\n"
                              "```attn expect scores\ntensor([[3., 8.]])\n```\n");
    const LessonRun run = run_lesson(find_lesson(list_lessons(dir.path()), "1"));
    REQUIRE(run.checks.size() == 1);
    CHECK_FALSE(run.passed());
    CHECK(run.checks[0].comparison.max_abs_difference == 1.0);
    CHECK_THAT(run.checks[0].comparison.summary(), Catch::Contains("first at [0, 1]: expected 8, got 7"));
}

TEST_CASE("lesson 7 - a tile size that is not a whole number from 1 to a million names the input",
          "[lessons][errors][lesson07]") {
    attn::testing::TempDir dir;
    std::filesystem::create_directories(dir.path() + "/07-online-softmax");
    const std::string path = dir.path() + "/07-online-softmax/README.md";
    const std::string tensors = "# L\n```attn input Q\n[[[1, 0]]]\n```\n```attn input K\n[[[1, 0], [0, 1]]]\n```\n"
                                "```attn input V\n[[[1], [2]]]\n```\n```attn input query_tile\n[1]\n```\n";
    for (const std::string key_tile : {"[0]", "[1e30]", "[1.5]", "[-2]", "[1, 2]"}) {
        INFO("key_tile " << key_tile);
        attn::testing::write_file(path, tensors + "```attn input key_tile\n" + key_tile + "\n```\n");
        CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), "7")),
                          Catch::Contains("README.md") && Catch::Contains("input 'key_tile' must be one whole number"));
    }
    // NaN is refused earlier, by the literal reader, with the document's file and line.
    attn::testing::write_file(path, tensors + "```attn input key_tile\n[nan]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), "7")),
                      Catch::Contains("README.md:15") && Catch::Contains("nan"));
    attn::testing::write_file(path, tensors + "```attn input key_tile\n[3]\n```\n");
    CHECK(run_lesson(find_lesson(list_lessons(dir.path()), "7")).checks.empty());
}
