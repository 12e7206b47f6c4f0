// This lesson's own tests: the online softmax against the standard one on the document's examples,
// the worked tiles' numbers, and a hostile tile size.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::computed;
using attn::testing::TempDir;
using attn::testing::write_file;
using namespace attn::tutor;  // the lesson runs: list_lessons, find_lesson, run_lesson

}  // namespace

ATTN_LESSON_TEST_CASE("the online softmax gives lesson 4's output and skips the tiles above the diagonal",
                      "[lesson04]") {
    const LessonRun run = attn::testing::run_this_lesson();
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

ATTN_LESSON_TEST_CASE("a tile size that is not a whole number from 1 to a million names the input", "[errors]") {
    TempDir dir;
    std::filesystem::create_directories(dir.path() + "/" ATTN_LESSON_FOLDER);
    const std::string path = dir.path() + "/07-online-softmax/README.md";
    const std::string tensors = "# L\n```attn input Q\n[[[1, 0]]]\n```\n```attn input K\n[[[1, 0], [0, 1]]]\n```\n"
                                "```attn input V\n[[[1], [2]]]\n```\n```attn input query_tile\n[1]\n```\n";
    for (const std::string key_tile : {"[0]", "[1e30]", "[1.5]", "[-2]", "[1, 2]"}) {
        INFO("key_tile " << key_tile);
        write_file(path, tensors + "```attn input key_tile\n" + key_tile + "\n```\n");
        CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number())),
                          Catch::Contains("README.md") && Catch::Contains("input 'key_tile' must be one whole number"));
    }
    // NaN is refused earlier, by the literal reader, with the document's file and line.
    write_file(path, tensors + "```attn input key_tile\n[nan]\n```\n");
    CHECK_THROWS_WITH(run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number())),
                      Catch::Contains("README.md:15") && Catch::Contains("nan"));
    write_file(path, tensors + "```attn input key_tile\n[3]\n```\n");
    CHECK(run_lesson(find_lesson(list_lessons(dir.path()), attn::testing::this_lesson_number())).checks.empty());
}
