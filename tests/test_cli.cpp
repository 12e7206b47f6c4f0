// The `attn` program as a user meets it: help, the lesson walkthrough, check, compute, and every
// bad-input path of the foundation issue — each a clear message and exit code 2, never an abort.
#include <catch2/catch.hpp>
#include <filesystem>

#include "attn/npy.hpp"
#include "attn/npy_tensor.hpp"
#include "support/fixtures.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tensor_match.hpp"

namespace {

using attn::testing::npy_bytes;
using attn::testing::run_attn;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/compute";

void save(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values,
          attn::NpyDtype dtype = attn::NpyDtype::float32) {
    write_file(path, attn::encode_npy(shape, values, dtype));
}

// The lesson 1 inputs, in a folder.
void write_lesson_inputs(const std::string& dir) {
    save(dir + "/encoder_outputs.npy", {2, 2, 3}, {1, 2, 3, 2, 2, 3, 4, 5, 6, 4, 5, 6});
    save(dir + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
}

bool no_abort(const attn::testing::CommandResult& r) { return r.exit_code < 128 && r.exit_code != 3; }

// Runs `attn arguments`: bad input must exit 2 (not an abort) with every fragment in the message,
// and leave `out` unwritten.
void expect_bad_input(const std::vector<std::string>& arguments, const std::vector<std::string>& fragments,
                      const std::string& out) {
    const auto r = run_attn(arguments);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(no_abort(r));
    for (const auto& fragment : fragments) CHECK_THAT(r.err, Catch::Contains(fragment));
    CHECK_FALSE(fs::exists(out));  // nothing half-written
}

}  // namespace

TEST_CASE("cli - help and version on every command exit 0", "[cli]") {
    for (const std::vector<std::string>& arguments : std::vector<std::vector<std::string>>{
             {"--help"}, {"list", "--help"}, {"lesson", "--help"}, {"check", "--help"}, {"compute", "--help"}}) {
        const auto r = run_attn(arguments);
        INFO(arguments[0] << "\n" << r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("Usage") || Catch::Contains("USAGE"));
    }
    CHECK_THAT(run_attn({"compute", "--help"}).out, Catch::Contains("encoder_outputs (B, S, H)"));
    CHECK_THAT(run_attn({"--help"}).out, Catch::Contains("Exit codes"));
    const auto version = run_attn({"--version"});
    CHECK(version.exit_code == 0);
    CHECK_THAT(version.out, Catch::StartsWith("attn "));
}

TEST_CASE("cli - usage errors exit 2 with the parser's message", "[cli][errors]") {
    const auto none = run_attn({});
    CHECK(none.exit_code == 2);
    const auto unknown = run_attn({"lesson", "1", "--bogus"});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("--bogus"));
    const auto missing = run_attn({"compute", "dot"});
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.err, Catch::Contains("--in"));
    CHECK(run_attn({"frobnicate"}).exit_code == 2);
}

TEST_CASE("cli - list shows the lessons", "[cli]") {
    const auto r = run_attn({"list"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("1  dot-product") && Catch::Contains("Dot-product attention"));
}

TEST_CASE("cli - lesson 1 walks every step with a passing check", "[cli][lessons][lesson01]") {
    const auto r = run_attn({"lesson", "1"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("tensor([[1.9991, 2.0000, 3.0000],\n          [4.0000, 5.0000, 6.0000]])"));
    CHECK_THAT(r.out, Catch::Contains("tensor([[50., 57.],"));
    CHECK_THAT(r.out, Catch::Contains("✓ context (README.md:"));
    CHECK_THAT(r.out, Catch::Contains(" 0 failed"));
    CHECK_THAT(r.out, !Catch::Contains("✗"));
    CHECK_THAT(r.out, !Catch::Contains("\033["));  // no colour when the output is not a terminal
    CHECK(run_attn({"lesson", "dot-product", "--no-pause"}).exit_code == 0);
}

TEST_CASE("cli - check ends with the totals line", "[cli][lessons]") {
    const auto r = run_attn({"check"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    // The last line alone: std::regex recurses once per character, and `(.|\n)*` over the whole
    // output (10 kB with six lessons) overflows the stack of a sanitizer build.
    REQUIRE(r.out.size() >= 2);
    const std::string last_line = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
    CHECK_THAT(last_line, Catch::Matches("[0-9]+ passed, 0 failed\n"));
    CHECK_THAT(run_attn({"check", "1"}).out, Catch::Contains("✓ seed_context [example one]"));
}

TEST_CASE("cli - an unknown lesson is exit 2 and lists the lessons", "[cli][errors]") {
    for (const std::string command : {"lesson", "check"}) {
        const auto r = run_attn({command, "42"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("unknown lesson '42'") && Catch::Contains("1 dot-product"));
    }
}

TEST_CASE("cli - a malformed lesson document is exit 2 naming file and line", "[cli][errors]") {
    TempDir dir;
    fs::create_directories(dir.path() + "/01-dot-product");
    write_file(dir.path() + "/01-dot-product/README.md", "# L\n\n```attn input encoder_outputs\n[[[1, 2], [3]]]\n```\n");
    for (const std::string command : {"lesson", "check"}) {
        const auto r = run_attn({"--lessons-dir", dir.path(), command, "1"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("01-dot-product/README.md:4:") && Catch::Contains("same length"));
        CHECK(r.out.empty());  // nothing printed before the error: the class does not stop halfway
    }
}

TEST_CASE("cli - a wrong expected value fails the check with exit 1", "[cli]") {
    TempDir dir;
    fs::create_directories(dir.path() + "/01-dot-product");
    write_file(dir.path() + "/01-dot-product/README.md",
               "# L\n```attn input encoder_outputs\n[[[1, 2], [3, 4]]]\n```\n```attn input decoder_output\n[[1, 1]]\n```\n"
               "```attn expect scores\ntensor([[3., 8.]])\n```\n```attn expect weights\ntensor([[0.0180, 0.9820]])\n```\n");
    const auto r = run_attn({"--lessons-dir", dir.path(), "check"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("✗ scores") && Catch::Contains("expected 8, got 7") &&
                          Catch::Contains("✓ weights") && Catch::EndsWith("1 passed, 1 failed\n"));
    const auto lesson = run_attn({"--lessons-dir", dir.path(), "lesson", "1"});
    CHECK(lesson.exit_code == 1);
    CHECK_THAT(lesson.out, Catch::Contains("expected, as written in the document:\n    tensor([[3., 8.]])"));
}

TEST_CASE("cli - compute dot writes float32 outputs that match PyTorch", "[cli][compute][lesson01]") {
    TempDir out;
    const std::string case_dir = fixtures + "/dot-batch4";
    const auto r = run_attn({"compute", "dot", "--in", case_dir + "/in", "--out", out.path() + "/results"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("context.npy  (4, 16) float32"));
    for (const std::string name : {"scores", "weights", "context"}) {
        const auto got = attn::read_npy(out.path() + "/results/" + name + ".npy");
        const auto expected = attn::read_npy(case_dir + "/expected/" + name + ".npy");
        CHECK(got.dtype == attn::NpyDtype::float32);
        CHECK(got.shape == expected.shape);
        CHECK_TENSOR_CLOSE(attn::to_tensor(expected), attn::to_tensor(got), 1e-5, 1e-5);
    }
    // No temporary file is left behind.
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(out.path() + "/results")) files += entry.path().extension() == ".npy";
    CHECK(files == 3);
    CHECK(std::distance(fs::directory_iterator(out.path() + "/results"), fs::directory_iterator()) == 3);
}

TEST_CASE("cli - compute dot keeps float64 and works with B = 1 and S = 1", "[cli][compute][lesson01]") {
    TempDir dir;
    for (const std::string name : {"dot-float64", "dot-b1-s1", "dot-b1", "dot-s1"}) {
        const auto r = run_attn({"compute", "dot", "--in", fixtures + "/" + name + "/in", "--out", dir.path() + "/" + name});
        INFO(name << "\n" << r.err);
        CHECK(r.exit_code == 0);
        const auto expected = attn::read_npy(fixtures + "/" + name + "/expected/context.npy");
        const auto got = attn::read_npy(dir.path() + "/" + name + "/context.npy");
        CHECK(got.shape == expected.shape);
        CHECK(got.dtype == expected.dtype);
    }
}

TEST_CASE("cli - compute bad inputs are exit 2 with a message naming the problem", "[cli][compute][errors]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directories(in);
    auto expect_error = [&](const std::vector<std::string>& fragments) {
        expect_bad_input({"compute", "dot", "--in", in, "--out", out}, fragments, out);
    };

    SECTION("a missing input file") {
        save(in + "/encoder_outputs.npy", {2, 2, 3}, std::vector<double>(12, 1.0));
        expect_error({"missing input file", "decoder_output.npy", "(B, H)"});
    }
    SECTION("a file that is not .npy") {
        write_lesson_inputs(in);
        write_file(in + "/decoder_output.npy", "7,8,9\n2,1,1\n");
        expect_error({"decoder_output.npy", "not a .npy file"});
    }
    SECTION("a truncated file") {
        write_lesson_inputs(in);
        const std::string bytes = attn::encode_npy({2, 3}, {7, 8, 9, 2, 1, 1}, attn::NpyDtype::float32);
        write_file(in + "/decoder_output.npy", bytes.substr(0, bytes.size() - 4));
        expect_error({"decoder_output.npy", "truncated"});
    }
    SECTION("an empty file") {
        write_lesson_inputs(in);
        write_file(in + "/decoder_output.npy", "");
        expect_error({"decoder_output.npy", "not a .npy file"});
    }
    SECTION("a wrong dtype") {
        write_lesson_inputs(in);
        write_file(in + "/decoder_output.npy", npy_bytes("<i8", "False", "(2, 3)", 48));
        expect_error({"decoder_output.npy", "int64", "float32 or float64"});
    }
    SECTION("Fortran order") {
        write_lesson_inputs(in);
        write_file(in + "/decoder_output.npy", npy_bytes("<f4", "True", "(2, 3)", 24));
        expect_error({"decoder_output.npy", "Fortran"});
    }
    SECTION("a wrong rank") {
        write_lesson_inputs(in);
        save(in + "/decoder_output.npy", {6}, {7, 8, 9, 2, 1, 1});
        expect_error({"decoder_output has shape (6)", "needs rank 2: (B, H)"});
    }
    SECTION("shapes that disagree") {
        write_lesson_inputs(in);
        save(in + "/decoder_output.npy", {2, 4}, std::vector<double>(8, 1.0));
        expect_error({"encoder_outputs (2, 2, 3) (B, S, H) has H = 3", "decoder_output (2, 4) (B, H) has H = 4"});
    }
    SECTION("a NaN in an input") {
        write_lesson_inputs(in);
        save(in + "/decoder_output.npy", {2, 3}, {7, 8, std::nan(""), 2, 1, 1});
        expect_error({"decoder_output holds nan at [0, 2]"});
    }
    SECTION("an input folder that does not exist") {
        const auto r = run_attn({"compute", "dot", "--in", dir.path() + "/nowhere", "--out", out});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("nowhere") && Catch::Contains("does not exist"));
    }
    SECTION("an unknown module") {
        write_lesson_inputs(in);
        const auto r = run_attn({"compute", "dott", "--in", in, "--out", out});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("unknown module 'dott'"));
    }
}

TEST_CASE("cli - an output folder that cannot be written is exit 2 and leaves nothing", "[cli][compute][errors]") {
    TempDir dir;
    const std::string in = dir.path() + "/in";
    fs::create_directories(in);
    write_lesson_inputs(in);
    // A regular file where a folder is needed: refused even for root, unlike permission bits.
    write_file(dir.path() + "/blocker", "not a folder");
    const auto r = run_attn({"compute", "dot", "--in", in, "--out", dir.path() + "/blocker/results"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("cannot create the output folder") && Catch::Contains("blocker/results"));
    const auto same = run_attn({"compute", "dot", "--in", in, "--out", dir.path() + "/blocker"});
    CHECK(same.exit_code == 2);
    CHECK(attn::testing::read_file(dir.path() + "/blocker") == "not a folder");
}

TEST_CASE("cli - a misspelt input file is refused with the name it meant", "[cli][compute]") {
    TempDir dir;
    write_lesson_inputs(dir.path());
    save(dir.path() + "/decoder_ouput.npy", {2, 3}, {1, 1, 1, 1, 1, 1});
    const auto r = run_attn({"compute", "dot", "--in", dir.path(), "--out", dir.path() + "/out"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("decoder_ouput.npy is not an input of dot; did you mean decoder_output?"));
    CHECK_FALSE(fs::exists(dir.path() + "/out"));
}

TEST_CASE("cli - lessons 2 and 3 walk every step with a passing check", "[cli][lessons][lesson02][lesson03]") {
    const auto luong = run_attn({"lesson", "2"});
    INFO(luong.out << luong.err);
    CHECK(luong.exit_code == 0);
    CHECK_THAT(luong.out, Catch::Contains("tensor([[41., 39.],"));
    CHECK_THAT(luong.out, Catch::Contains("✓ context [example identity]"));  // W_a = I gives lesson 1's 1.9991
    CHECK_THAT(luong.out, Catch::Contains("✓ weights_with_bias"));
    CHECK_THAT(luong.out, Catch::Contains("B 1") && Catch::Contains("concat"));  // the side-by-side heatmap
    CHECK_THAT(luong.out, !Catch::Contains("✗"));

    const auto bahdanau = run_attn({"lesson", "bahdanau", "--no-pause"});
    INFO(bahdanau.out << bahdanau.err);
    CHECK(bahdanau.exit_code == 0);
    CHECK_THAT(bahdanau.out, Catch::Contains("tensor([[1.5582, 2.0000, 3.0000],"));
    CHECK_THAT(bahdanau.out, Catch::Contains("✓ split_scores") && Catch::Contains("✓ reshape_weights"));
    CHECK_THAT(bahdanau.out, Catch::Contains("additive"));
    CHECK_THAT(bahdanau.out, !Catch::Contains("✗"));
    CHECK_THAT(run_attn({"check", "2", "3"}).out, Catch::EndsWith(" passed, 0 failed\n"));
}

TEST_CASE("cli - compute luong and bahdanau match PyTorch", "[cli][compute][lesson02][lesson03]") {
    TempDir out;
    for (const std::string module : {"luong", "bahdanau"}) {
        for (const std::string name : {"batch4", "b1-s1"}) {
            const std::string case_dir = fixtures + "/" + module + "-" + name;
            const auto r = run_attn({"compute", module, "--in", case_dir + "/in", "--out", out.path() + "/" + module + name});
            INFO(module << " " << name << "\n" << r.out << r.err);
            REQUIRE(r.exit_code == 0);
            for (const std::string output : {"scores", "weights", "context"}) {
                const auto got = attn::read_npy(out.path() + "/" + module + name + "/" + output + ".npy");
                const auto expected = attn::read_npy(case_dir + "/expected/" + output + ".npy");
                CHECK(got.dtype == attn::NpyDtype::float32);
                REQUIRE(got.shape == expected.shape);
                for (std::size_t i = 0; i < got.values.size(); ++i) {
                    CHECK(got.values[i] == Approx(expected.values[i]).margin(1e-5).epsilon(1e-5));
                }
            }
        }
    }
}

TEST_CASE("cli - compute luong and bahdanau bad weights are exit 2 naming the tensor and both shapes",
          "[cli][compute][errors][lesson02][lesson03]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directories(in);
    write_lesson_inputs(in);  // H = 3
    auto expect_error = [&](const std::string& module, const std::vector<std::string>& fragments) {
        expect_bad_input({"compute", module, "--in", in, "--out", out}, fragments, out);
    };
    auto save_bahdanau_weights = [&]() {
        save(in + "/W1.npy", {6, 6}, std::vector<double>(36, 0.1));
        save(in + "/b1.npy", {6}, std::vector<double>(6, 0.0));
        save(in + "/w2.npy", {1, 6}, std::vector<double>(6, 1.0));
        save(in + "/b2.npy", {1}, {0.5});
    };

    SECTION("luong: a missing weight file") {
        expect_error("luong", {"missing input file", "W.npy", "luong needs W (H, H)"});
    }
    SECTION("luong: a W of the wrong shape") {
        save(in + "/W.npy", {4, 4}, std::vector<double>(16, 1.0));
        expect_error("luong", {"luong: shapes disagree", "encoder_outputs (2, 2, 3) (B, S, H) has H = 3",
                               "W (4, 4) (H, H) has H = 4"});
    }
    SECTION("luong: a W that is not square") {
        save(in + "/W.npy", {3, 4}, std::vector<double>(12, 1.0));
        expect_error("luong", {"W (3, 4) (H, H) has H = 4"});
    }
    SECTION("luong: a W of the wrong rank") {
        save(in + "/W.npy", {9}, std::vector<double>(9, 1.0));
        expect_error("luong", {"W has shape (9) (rank 1) but luong needs rank 2: (H, H)"});
    }
    SECTION("bahdanau: a missing weight file") {
        save_bahdanau_weights();
        fs::remove(in + "/b2.npy");
        expect_error("bahdanau", {"missing input file", "b2.npy", "bahdanau needs b2 (1)"});
    }
    SECTION("bahdanau: a b1 of the wrong length") {
        save_bahdanau_weights();
        save(in + "/b1.npy", {7}, std::vector<double>(7, 0.0));
        expect_error("bahdanau", {"encoder_outputs (2, 2, 3) (B, S, H) has H = 3", "b1 (7) (2H) has 2H = 7 (2H must be 6)"});
    }
    SECTION("bahdanau: a W1 of the wrong shape") {
        save_bahdanau_weights();
        save(in + "/W1.npy", {3, 3}, std::vector<double>(9, 0.0));
        expect_error("bahdanau", {"encoder_outputs (2, 2, 3) (B, S, H) has H = 3", "W1 (3, 3) (2H, 2H) has 2H = 3 (2H must be 6)"});
    }
    SECTION("bahdanau: a w2 with more than one row") {
        save_bahdanau_weights();
        save(in + "/w2.npy", {2, 6}, std::vector<double>(12, 0.0));
        expect_error("bahdanau", {"w2 (2, 6) (1, 2H): dimension 0 must be 1, it is 2"});
    }
}

TEST_CASE("cli - bench refuses bad options with exit 2 and a message naming the option", "[cli][bench][errors]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"bench", "mha", "--d-model", "10", "--heads", "3"}, "--heads 3 does not divide --d-model 10"},
        {{"bench", "mha", "--batch", "0"}, "--batch must be at least 1 (got 0)"},
        {{"bench", "encoder-layer", "--seq=0"}, "--seq must be at least 1 (got 0)"},
        {{"bench", "encoder-layer", "--d-ff", "0"}, "--d-ff must be at least 1 (got 0)"},
        {{"bench", "mha", "--threads", "0"}, "--threads must be at least 1 (got 0)"},
        {{"bench", "mha", "--threads=-2"}, "--threads must be at least 1 (got -2)"},
        {{"bench", "mha", "--repeat", "0"}, "--repeat must be at least 1 (got 0)"},
        {{"bench", "mha", "--d-ff", "64"}, "--d-ff applies to encoder-layer only"},
        {{"bench", "attention"}, "unknown module 'attention'; the modules are: mha, encoder-layer"},
    };
    for (const auto& [arguments, message] : cases) {
        const auto r = run_attn(arguments);
        INFO(arguments[1] << " " << message << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(message));
        CHECK(r.out.empty());
    }
    CHECK(run_attn({"bench", "mha", "--batch", "two"}).exit_code == 2);  // the parser's own message
    CHECK(run_attn({"bench"}).exit_code == 2);
}

TEST_CASE("cli - bench prints one JSON object with the documented keys", "[cli][bench]") {
    // A tiny shape and one timed call: this checks the output, not the speed.
    const auto r = run_attn({"bench", "mha", "--batch", "2", "--seq", "5", "--d-model", "8", "--heads", "2",
                             "--threads", "1", "--repeat", "1", "--json"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("{\"module\": \"mha\", \"shape\": {\"batch\": 2, \"seq\": 5, \"d_model\": 8, "
                                        "\"heads\": 2, \"d_ff\": null}") &&
                          Catch::EndsWith("}\n"));
    for (const std::string key : {"\"threads\": 1", "\"min_ms\": ", "\"median_ms\": ", "\"gflops\": ", "\"peak_rss_mb\": "}) {
        CHECK_THAT(r.out, Catch::Contains(key));
    }
    const auto table = run_attn({"bench", "encoder-layer", "--batch", "1", "--seq", "4", "--d-model", "8", "--heads",
                                 "2", "--d-ff", "16", "--threads", "2", "--repeat", "2"});
    CHECK(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("attn bench encoder-layer · float32 · B 1, T 4, D 8, h 2, F 16 · 2 threads") &&
                              Catch::Contains("GFLOP/s") && Catch::Contains("peak RSS"));
    CHECK_THAT(run_attn({"bench", "--help"}).out, Catch::Contains("encoder-layer") && Catch::Contains("--d-ff 2048"));
}

// ---------------------------------------------------------------------------------------------
// Lessons 4 and 5: their walkthroughs, `attn compute self-attention` and `attn compute mha` with
// their options (--causal, --heads), their bad inputs, and `attn run mha`.
namespace {

// The numbers of a .npy file, compared with a recorded PyTorch output of the same shape.
void check_matches_recorded(const std::string& got_path, const std::string& expected_path) {
    const auto got = attn::read_npy(got_path);
    const auto expected = attn::read_npy(expected_path);
    INFO(got_path);
    CHECK(got.dtype == expected.dtype);
    REQUIRE(got.shape == expected.shape);
    for (std::size_t i = 0; i < got.values.size(); ++i) {
        CHECK(got.values[i] == Approx(expected.values[i]).margin(2e-6).epsilon(1e-5));
    }
}

// A copy of a recorded case's inputs that a test may spoil.
std::string copy_inputs(const std::string& case_name, const std::string& dir) {
    fs::copy(fixtures + "/" + case_name + "/in", dir + "/in", fs::copy_options::recursive);
    return dir + "/in";
}

}  // namespace

TEST_CASE("cli - lessons 4 and 5 walk every step with a passing check", "[cli][lessons][lesson04][lesson05]") {
    const auto causal = run_attn({"lesson", "4"});
    INFO(causal.out << causal.err);
    CHECK(causal.exit_code == 0);
    // Seed 002's printed result, to the last digit.
    CHECK_THAT(causal.out, Catch::Contains("tensor([[[1.0000, 0.0000, 0.0000],\n"
                                           "           [0.4568, 0.5432, 0.0000],\n"
                                           "           [0.3219, 0.3332, 0.3449],\n"
                                           "           [0.2309, 0.5130, 0.5260]]])"));
    CHECK_THAT(causal.out, Catch::Contains("✓ weights_top_left [example kv_cache]") && Catch::Contains("✓ dot_std [example spread]"));
    CHECK_THAT(causal.out, Catch::Contains(" 0 failed") && !Catch::Contains("✗"));

    const auto heads = run_attn({"lesson", "multi-head-attention", "--no-pause"});
    INFO(heads.out << heads.err);
    CHECK(heads.exit_code == 0);
    CHECK_THAT(heads.out, Catch::Contains("B 0 · h 1") && Catch::Contains("✓ seed000_batch_weights") &&
                              Catch::Contains("✓ left_output"));
    CHECK_THAT(heads.out, Catch::Contains(" 0 failed") && !Catch::Contains("✗"));
    CHECK_THAT(run_attn({"check", "4", "5"}).out, Catch::EndsWith(" passed, 0 failed\n"));
}

TEST_CASE("cli - compute self-attention and mha match PyTorch with their options", "[cli][compute][lesson04][lesson05]") {
    TempDir out;
    struct Case {
        std::string module, name;
        std::vector<std::string> options;
    };
    const std::vector<Case> cases = {
        {"self-attention", "self-attention-batch3", {}},
        {"self-attention", "self-attention-cross-causal-t-lt-s", {"--causal"}},
        {"self-attention", "self-attention-b1-t1", {"--causal"}},
        {"self-attention", "self-attention-float64", {"--causal"}},
        {"mha", "mha-self", {"--heads", "2"}},
        {"mha", "mha-self-no-wo", {"--heads", "4", "--no-output-projection"}},
        {"mha", "mha-padding", {"--heads", "2"}},
        {"mha", "mha-causal-cross", {"--heads", "4", "--causal"}},
        {"mha", "mha-causal-left-padding", {"--heads", "2", "--causal"}},
        {"mha", "mha-b1-t1", {"--heads", "2"}},
        {"mha", "mha-float64", {"--heads", "3", "--causal"}},
        {"self-attention", "self-attention-kv-cache-bottom-right", {"--causal", "--causal-alignment", "bottom-right"}},
        {"self-attention", "self-attention-cross-causal-t-gt-s", {"--causal", "--causal-alignment", "top-left"}},
        {"mha", "mha-kv-cache-bottom-right", {"--heads", "2", "--causal", "--causal-alignment", "bottom-right"}},
    };
    for (const auto& c : cases) {
        std::vector<std::string> arguments = {"compute", c.module, "--in", fixtures + "/" + c.name + "/in", "--out",
                                              out.path() + "/" + c.name};
        arguments.insert(arguments.end(), c.options.begin(), c.options.end());
        const auto r = run_attn(arguments);
        INFO(c.name << "\n" << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        const std::vector<std::string> outputs = {"weights", "output"};
        for (const auto& output : outputs) {
            check_matches_recorded(out.path() + "/" + c.name + "/" + output + ".npy",
                                   fixtures + "/" + c.name + "/expected/" + output + ".npy");
        }
    }
    CHECK_THAT(run_attn({"compute", "--help"}).out,
               Catch::Contains("attention_mask (B, S) optional") && Catch::Contains("weights (B, h, T, S)") &&
                   Catch::Contains("options: --heads h (required) --causal"));
}

TEST_CASE("cli - compute mha and self-attention bad input is exit 2 naming tensors and shapes",
          "[cli][compute][errors][lesson04][lesson05]") {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    auto expect_error = [&](const std::vector<std::string>& arguments, const std::vector<std::string>& fragments) {
        std::vector<std::string> command = arguments;
        command.insert(command.end(), {"--out", out});
        expect_bad_input(command, fragments, out);
    };

    SECTION("heads that do not divide d_model") {
        const std::string in = copy_inputs("mha-padding", dir.path());  // D = 8
        expect_error({"compute", "mha", "--in", in, "--heads", "3"},
                     {"mha: multi_head_attention: d_model D = 8 (the last dimension of query (3, 5, 8))",
                      "not a multiple of the number of heads h = 3"});
    }
    SECTION("no --heads, or --heads 0") {
        const std::string in = copy_inputs("mha-padding", dir.path());
        expect_error({"compute", "mha", "--in", in}, {"mha needs the number of heads: add --heads h"});
        expect_error({"compute", "mha", "--in", in, "--heads", "0"}, {"--heads: must be a whole number from 1 to 2147483647"});
    }
    SECTION("an attention_mask of the wrong shape") {
        const std::string in = copy_inputs("mha-padding", dir.path());
        save(in + "/attention_mask.npy", {3, 4}, std::vector<double>(12, 1.0));
        expect_error({"compute", "mha", "--in", in, "--heads", "2"},
                     {"key (3, 5, 8) (B, S, D) has S = 5", "attention_mask (3, 4) (B, S) has S = 4"});
    }
    SECTION("an attention_mask holding something else than 0 and 1") {
        const std::string in = copy_inputs("mha-padding", dir.path());
        std::vector<double> mask(15, 1.0);
        mask[7] = 0.5;
        save(in + "/attention_mask.npy", {3, 5}, mask);
        expect_error({"compute", "mha", "--in", in, "--heads", "2"}, {"attention_mask (3, 5) holds 0.5 at [1, 2]"});
    }
    SECTION("weights of the wrong shape") {
        const std::string in = copy_inputs("mha-padding", dir.path());
        save(in + "/w_v.npy", {8, 6}, std::vector<double>(48, 0.1));
        expect_error({"compute", "mha", "--in", in, "--heads", "2"},
                     {"query (3, 5, 8) (B, T, D) has D = 8", "w_v (8, 6) (D, D) has D = 6"});
        save(in + "/w_v.npy", {8, 8}, std::vector<double>(64, 0.1));
        save(in + "/b_o.npy", {7}, std::vector<double>(7, 0.1));
        expect_error({"compute", "mha", "--in", in, "--heads", "2"}, {"b_o (7) (D) has D = 7"});
    }
    SECTION("b_o without w_o") {
        const std::string in = copy_inputs("mha-padding", dir.path());
        fs::remove(in + "/w_o.npy");
        expect_error({"compute", "mha", "--in", in, "--heads", "2"}, {"missing weight 'w_o'", "while b_o is given"});
    }
    SECTION("options a module does not use") {
        write_lesson_inputs(dir.path());
        expect_error({"compute", "dot", "--in", dir.path(), "--heads", "2"}, {"dot has no heads"});
        expect_error({"compute", "dot", "--in", dir.path(), "--causal"}, {"dot has no causal mask"});
        const std::string in = copy_inputs("self-attention-batch3", dir.path());
        expect_error({"compute", "self-attention", "--in", in, "--heads", "2"}, {"self-attention has no heads"});
        expect_error({"compute", "dot", "--in", dir.path(), "--causal", "--causal-alignment", "bottom-right"},
                     {"dot has no causal mask"});
    }
    SECTION("--causal-alignment without --causal, or with an unknown alignment") {
        const std::string in = copy_inputs("self-attention-kv-cache-bottom-right", dir.path());
        expect_error({"compute", "self-attention", "--in", in, "--causal-alignment", "bottom-right"},
                     {"--causal-alignment bottom-right", "add --causal"});
        expect_error({"compute", "self-attention", "--in", in, "--causal", "--causal-alignment", "bottom"},
                     {"unknown causal alignment 'bottom'", "top-left", "bottom-right"});
    }
    SECTION("self-attention keys whose width is not the queries'") {
        const std::string in = copy_inputs("self-attention-batch3", dir.path());  // Q (3, 5, 8)
        save(in + "/K.npy", {3, 5, 7}, std::vector<double>(105, 0.1));
        expect_error({"compute", "self-attention", "--in", in}, {"Q (3, 5, 8) (B, T, d_k) has d_k = 8", "K (3, 5, 7)"});
    }
}

TEST_CASE("cli - run mha prints the shape of every intermediate", "[cli][run][lesson05]") {
    // A small shape: this checks what is printed, never how long it took.
    const auto r = run_attn({"run", "mha", "--batch", "2", "--seq", "5", "--d-model", "12", "--heads", "3", "--seed", "7"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const std::string line : {"  x (2, 5, 12)", "  q_heads (2, 3, 5, 4)", "  scores (2, 3, 5, 5)",
                                   "  attention (2, 3, 5, 5)", "  output (2, 5, 12)", "multi_head_attention took "}) {
        CHECK_THAT(r.out, Catch::Contains(line));
    }
    CHECK_THAT(run_attn({"run", "--help"}).out, Catch::Contains("--seq") && Catch::Contains("=300") &&
                                                    Catch::Contains("=768") && Catch::Contains("--seed"));
}

TEST_CASE("cli - run mha refuses bad options with exit 2", "[cli][run][errors][lesson05]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"run", "mha", "--heads", "5"}, "--d-model 768 is not a multiple of --heads 5"},
        {{"run", "attention"}, "unknown example 'attention'; attn run knows: mha"},
        {{"run", "mha", "--batch", "0"}, "--batch: must be a whole number of at least 1, not '0'"},
        {{"run", "mha", "--seq", "100000"}, "would need"},
    };
    for (const auto& [arguments, message] : cases) {
        const auto r = run_attn(arguments);
        INFO(message << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(no_abort(r));
        CHECK_THAT(r.err, Catch::Contains(message));
    }
}

TEST_CASE("cli - compute encoder-layer matches torch.nn.TransformerEncoderLayer with its options", "[cli][compute][lesson06]") {
    TempDir out;
    struct Case {
        std::string name;
        std::vector<std::string> options;
    };
    const std::vector<Case> cases = {
        {"encoder-layer-post-relu", {"--heads", "2"}},
        {"encoder-layer-pre-gelu", {"--heads", "3", "--norm-first", "--activation", "gelu"}},
        {"encoder-layer-padding", {"--heads", "2"}},
        {"encoder-layer-eps", {"--heads", "1", "--eps", "0.01"}},
        {"encoder-layer-b1-t1", {"--heads", "2", "--norm-first", "--activation", "gelu"}},
    };
    for (const auto& c : cases) {
        std::vector<std::string> arguments = {"compute", "encoder-layer", "--in", fixtures + "/" + c.name + "/in",
                                              "--out", out.path() + "/" + c.name};
        arguments.insert(arguments.end(), c.options.begin(), c.options.end());
        const auto r = run_attn(arguments);
        INFO(c.name << "\n" << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        const auto got = attn::testing::load_tensor(out.path() + "/" + c.name + "/output.npy");
        const auto expected = attn::testing::load_tensor(fixtures + "/" + c.name + "/expected/output.npy");
        CHECK_TENSOR_CLOSE(expected, got, 2e-5, 1e-4);
    }
    CHECK_THAT(run_attn({"compute", "--help"}).out,
               Catch::Contains("linear1_weight (F, D)") && Catch::Contains("--norm-first --eps X (default 1e-5)"));
}

TEST_CASE("cli - compute encoder-layer bad input is exit 2 naming the tensor and the problem",
          "[cli][compute][errors][lesson06]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directories(in);
    for (const auto& entry : fs::directory_iterator(fixtures + "/encoder-layer-post-relu/in")) {
        fs::copy_file(entry.path(), in + "/" + entry.path().filename().string());
    }
    auto expect_error = [&](std::vector<std::string> options, const std::vector<std::string>& fragments) {
        std::vector<std::string> arguments = {"compute", "encoder-layer", "--in", in, "--out", out};
        arguments.insert(arguments.end(), options.begin(), options.end());
        expect_bad_input(arguments, fragments, out);
    };
    expect_error({"--heads", "2", "--eps", "0"}, {"--eps: must be a finite number greater than 0, not '0'"});
    expect_error({"--heads", "2", "--eps", "-1e-5"}, {"--eps: must be a finite number greater than 0, not '-1e-5'"});
    expect_error({"--heads", "2", "--activation", "swish"}, {"unknown activation 'swish'; expected relu, gelu (the exact erf form) or gelu-tanh"});
    expect_error({}, {"encoder-layer needs the number of heads"});
    expect_error({"--heads", "3"}, {"not a multiple of the number of heads h = 3"});
    fs::create_directories(dir.path() + "/dot");
    write_lesson_inputs(dir.path() + "/dot");
    const auto dot = run_attn({"compute", "dot", "--in", dir.path() + "/dot", "--out", out, "--norm-first"});
    CHECK(dot.exit_code == 2);
    CHECK_THAT(dot.err, Catch::Contains("--norm-first, --eps, --norm-eps and --activation are for encoder-layer, encoder"));
    save(in + "/linear2_weight.npy", {8, 15}, std::vector<double>(120, 0.1));  // F is 16
    expect_error({"--heads", "2"}, {"linear1_weight (16, 8) (F, D) has F = 16", "linear2_weight (8, 15) (D, F) has F = 15"});
    fs::remove(in + "/norm2_bias.npy");
    expect_error({"--heads", "2"}, {"missing input file", "norm2_bias.npy", "norm2.bias"});
}

// attn heatmap and attn view (issue 8). The page itself is checked in a browser by
// tests/browser/view_test.sh; these check the command's files, output and bad-input paths.
namespace {

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
    for (const auto& [arguments, message] : cases) {
        const auto r = run_attn(arguments);
        INFO(message << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(no_abort(r));
        CHECK_THAT(r.err, Catch::Contains(message));
    }
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
