// `attn heatmap` and `attn view` through the real binary (issue 8). The page itself is checked in a
// browser by tests/browser/view_test.sh; these check the command's files, output and bad-input
// paths.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "attn/npy.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::expect_refused;
using attn::testing::run_attn;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

void save(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values,
          attn::NpyDtype dtype = attn::NpyDtype::float32) {
    write_file(path, attn::encode_npy(shape, values, dtype));
}

// Attention weights as PyTorch computed them for `compute mha` (B, h, T, S) = (3, 2, 5, 5).
const std::string fixture_weights = ATTN_SOURCE_DIR "/tests/data/compute/mha-padding/expected/weights.npy";

}  // namespace

TEST_CASE("cli - heatmap draws one grid per head of a sentence with its tokens", "[cli][view]") {
    const auto r = run_attn({"heatmap", "--sentence", "El perro va caminando sobre el pasto", "--heads", "2", "--d-model",
                             "16", "--seed", "1"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("untrained") && Catch::Contains("  head 0\n") && Catch::Contains("  head 1\n"));
    CHECK_THAT(r.out, Catch::Contains("  caminando ") && Catch::Contains("camina…"));  // long labels shortened above
    CHECK(r.out.find("\033[") == std::string::npos);  // NO_COLOR: block characters, no escape codes
}

TEST_CASE("cli - heatmap reads the weights of compute mha and labels them with tokens", "[cli][view]") {
    TempDir dir;
    write_file(dir.path() + "/tokens.txt", "the\ndog\nran\n[PAD]\n[PAD]\n");
    const auto r = run_attn({"heatmap", "--weights", fixture_weights, "--tokens", dir.path() + "/tokens.txt"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("(3, 2, 5, 5) (B, h, T, S)") && Catch::Contains("batch 2 · head 1"));
    CHECK_THAT(r.out, Catch::Contains("  [PAD] "));
}

TEST_CASE("cli - view writes a self-contained page and an SVG heatmap", "[cli][view]") {
    TempDir dir;
    const std::string page = dir.path() + "/out.html", picture = dir.path() + "/out.svg";
    const auto r = run_attn({"view", "--sentence", "El perro va caminando sobre el pasto", "--heads", "8", "--d-model", "64",
                             "--seed", "1", "--html", page, "--svg", picture, "--head", "3"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("wrote " + page + ": 8 heads, 7 queries × 7 keys"));
    const std::string html = attn::testing::read_file(page);
    CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>") && Catch::Contains("These weights are untrained"));
    CHECK_THAT(html, Catch::Contains("{\"selectedHead\":3,") && Catch::Contains("\"caminando\""));
    CHECK_THAT(attn::testing::read_file(picture), Catch::Contains("<svg") && Catch::Contains("head 3 of 8"));
    // The same command writes the same page: the embeddings and weights are seeded.
    const std::string again = dir.path() + "/again.html";
    run_attn({"view", "--sentence", "El perro va caminando sobre el pasto", "--seed", "1", "--head", "3", "--html", again});
    CHECK(attn::testing::read_file(again) == html);
}

TEST_CASE("cli - view labels a weights file with its tokens and draws the chosen sequence", "[cli][view]") {
    TempDir dir;
    write_file(dir.path() + "/tokens.txt", "</script>\n\"\na\nb\nc\n");
    const std::string page = dir.path() + "/out.html";
    const auto r = run_attn({"view", "--weights", fixture_weights, "--tokens", dir.path() + "/tokens.txt", "--item", "2",
                             "--html", page});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string html = attn::testing::read_file(page);
    CHECK_THAT(html, Catch::Contains("\"queryTokens\":[\"\\u003c/script\\u003e\",\"\\\"\",\"a\",\"b\",\"c\"]"));
    CHECK_THAT(html, Catch::Contains("sequence 2 of the 3 in the batch"));
}

TEST_CASE("cli - heatmap and view bad input is exit 2 with a clear message", "[cli][view][errors]") {
    TempDir dir;
    const std::string d = dir.path();
    write_file(d + "/weights.txt", "0.5 0.5\n");
    save(d + "/rank1.npy", {4}, {0.25, 0.25, 0.25, 0.25});
    save(d + "/scores.npy", {1, 2, 2}, {3.5, -1, 0.5, 0.5});
    save(d + "/unnormalised.npy", {2, 2}, {0.5, 0.5, 0.2, 0.3});
    write_file(d + "/four.txt", "a\nb\nc\nd\n");
    write_file(d + "/blocker", "not a folder");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"heatmap", "--weights", d + "/weights.txt"}, "weights.txt: not a .npy file"},
        {{"heatmap", "--weights", d + "/missing.npy"}, "missing.npy: cannot open"},
        {{"heatmap", "--weights", d + "/rank1.npy"}, "rank1.npy has shape (4), rank 1; attention weights have rank 2 to 4"},
        {{"view", "--weights", d + "/scores.npy", "--html", d + "/x.html"}, "scores.npy holds 3.5 at [0, 0, 0]"},
        {{"heatmap", "--weights", d + "/unnormalised.npy"}, "the weights of query [1, :] (the last axis, 2 keys) sum to 0.5, not 1"},
        {{"heatmap", "--weights", fixture_weights, "--tokens", d + "/four.txt"},
         "four.txt has 4 tokens but " + fixture_weights + " (3, 2, 5, 5) (B, h, T, S) has T = 5 queries and S = 5 keys"},
        {{"view", "--weights", fixture_weights, "--tokens", d + "/missing.txt", "--html", d + "/x.html"},
         "the tokens file " + d + "/missing.txt: cannot open"},
        {{"heatmap", "--sentence", ""}, "the sentence is empty"},
        {{"view", "--sentence", "   ", "--html", d + "/x.html"}, "the sentence is empty"},
        {{"heatmap", "--sentence", "El perro", "--heads", "5"}, "--d-model 64 is not a multiple of --heads 5"},
        {{"view", "--sentence", "El perro", "--html", d + "/blocker/out.html"}, "cannot write " + d + "/blocker/out.html"},
        {{"view", "--sentence", "El perro", "--html", d}, "it is a folder"},
        {{"view", "--sentence", "El perro"}, "nothing to write: give --html out.html, --svg out.svg or both"},
        {{"heatmap"}, "nothing to draw: give --sentence"},
        {{"view", "--sentence", "El perro", "--head", "8", "--html", d + "/x.html"}, "there is no head 8 (--head): the weights have 8 heads (0 to 7)"},
        {{"view", "--weights", fixture_weights, "--item", "3", "--svg", d + "/x.svg"}, "holds 3 sequences (B = 3); there is no sequence 3"},
        {{"heatmap", "--sentence", "a", "--weights", fixture_weights}, "--sentence excludes --weights"},
        {{"heatmap", "--sentence", "a", "--tokens", d + "/four.txt"}, "--tokens requires --weights"},
        {{"heatmap", "--weights", fixture_weights, "--seed", "3"}, "excludes --seed"},
    };
    for (const auto& [arguments, message] : cases) expect_refused(arguments, {message});
    CHECK_FALSE(fs::exists(d + "/x.html"));
    CHECK_FALSE(fs::exists(d + "/x.svg"));
}

TEST_CASE("cli - heatmap and view help give the defaults and the rules for weights files", "[cli][view]") {
    for (const std::string command : {"heatmap", "view"}) {
        const auto r = run_attn({command, "--help"});
        INFO(r.out);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("--sentence") && Catch::Contains("=64") && Catch::Contains("rows sum to 1"));
    }
    CHECK_THAT(run_attn({"view", "--help"}).out, Catch::Contains("--html") && Catch::Contains("--svg"));
}

TEST_CASE("cli - view refuses more tokens than a picture can show", "[cli][view][errors]") {
    TempDir dir;
    std::string words;
    for (int i = 0; i < 129; ++i) words += "w" + std::to_string(i) + " ";
    const auto r = run_attn({"view", "--sentence", words, "--heads", "1", "--d-model", "4", "--html", dir.path() + "/x.html"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("there are 129 queries and 129 keys") && Catch::Contains("readable up to 128"));
    CHECK_FALSE(fs::exists(dir.path() + "/x.html"));
}

TEST_CASE("cli - view writes its files all or none", "[cli][view][errors]") {
    TempDir dir;
    const auto r = run_attn({"view", "--sentence", "El perro", "--html", dir.path() + "/out.html", "--svg",
                             dir.path() + "/missing/out.svg"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("missing/out.svg: the folder"));
    CHECK_FALSE(fs::exists(dir.path() + "/out.html"));
    CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 0);  // no temporary file
}
