// Hostile inputs through the real `attn` program, one TEST_CASE per class of the reliability issue:
// what a class of students can feed the tutor. Each case checks the exit code, a fragment of the
// message (naming the file — and line, for documents — or the option), that the message holds no
// control byte, and, where files are written, the output folder's content before and after.
// Inputs that are not regular files and outputs written all or none: test_cli_hostile_files.cpp.
// Every run has a time limit: a hang is a failure, not a stuck suite.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "attn/files.hpp"
#include "attn/npy.hpp"
#include "support/fixtures.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::expect_refused;
using attn::testing::has_control_byte;
using attn::testing::save_identity_attention;
using attn::testing::save_npy;
using attn::testing::snapshot;
using attn::testing::CommandResult;
using attn::testing::npy_bytes;
using attn::testing::run_attn;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

constexpr int time_limit = attn::testing::hostile_time_limit;

// A lessons folder holding one lesson document: `attn check --lessons-dir FOLDER N` reads it
// with lesson N's program (slugs as the lessons have them).
std::string lesson_folder(const TempDir& dir, const std::string& folder, const std::string& text) {
    const std::string lessons = dir.path() + "/lessons";
    fs::create_directories(lessons + "/" + folder);
    write_file(lessons + "/" + folder + "/README.md", text);
    return lessons;
}

// A small document for lessons/01-dot-product's program, with `inputs` and `expects` in place of
// its blocks.
std::string lesson_one(const std::string& prose, const std::string& encoder_outputs = "[[[1, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]",
                       const std::string& expect = "tensor([[50., 57.],\n        [19., 19.]])") {
    return "# Lesson 1 — hostile\n\nIntroduction.\n\n## Step 1 — Inputs\n\n" + prose +
           "\n```attn input encoder_outputs shape=B,S,H\n" + encoder_outputs +
           "\n```\n\n```attn input decoder_output shape=B,H\n[[7, 8, 9],\n [2, 1, 1]]\n```\n\n## Step 2 — Scores\n\n"
           "```attn expect scores shape=B,S\n" + expect + "\n```\n";
}

}  // namespace

// --- Crash ----------------------------------------------------------------------------------

TEST_CASE("hostile - a literal nested 30000 deep is a format error, not a stack overflow", "[cli][hostile]") {
    TempDir dir;
    const std::string deep = std::string(30000, '[') + "1" + std::string(30000, ']');
    const std::string lessons = lesson_folder(dir, "01-dot-product", lesson_one("", deep));
    expect_refused({"--lessons-dir", lessons, "check", "1"}, {"README.md:9:", "nested more than 64 deep"});
    expect_refused({"--lessons-dir", lessons, "lesson", "1"}, {"README.md:9:"});
}

// --- Hangs and conversions -----------------------------------------------------------------

// --- Silent wrong results ------------------------------------------------------------------

TEST_CASE("hostile - scores that overflow float64 are an error in every compute module", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directory(in);
    const double big = 1e160;  // the dot product of two such rows is 2e320: beyond float64
    SECTION("dot") {
        save_npy(in + "/encoder_outputs.npy", {1, 2, 2}, {big, big, big, big});
        save_npy(in + "/decoder_output.npy", {1, 2}, {-big, -big});
        expect_refused({"compute", "dot", "--in", in, "--out", out}, {"dot: ", "scores[0, 0] is -inf, not a finite number"});
    }
    SECTION("self-attention") {
        save_npy(in + "/Q.npy", {1, 2, 2}, {big, big, big, big});
        save_npy(in + "/K.npy", {1, 2, 2}, {-big, -big, -big, -big});
        save_npy(in + "/V.npy", {1, 2, 2}, {1, 2, 3, 4});
        expect_refused({"compute", "self-attention", "--in", in, "--out", out},
                       {"self-attention: ", "scores[0, 0, 0] is -inf, not a finite number", "Q[0, 0] · K[0, 0]"});
        // The same keys hidden by --causal: scores are checked before the mask, so still refused.
        expect_refused({"compute", "self-attention", "--causal", "--in", in, "--out", out}, {"scores[0, 0, 0] is -inf"});
    }
    SECTION("mha") {
        save_identity_attention(in, 2);
        save_npy(in + "/query.npy", {1, 2, 2}, {big, big, big, big});
        save_npy(in + "/key.npy", {1, 2, 2}, {-big, -big, -big, -big});
        save_npy(in + "/value.npy", {1, 2, 2}, {1, 2, 3, 4});
        expect_refused({"compute", "mha", "--heads", "1", "--in", in, "--out", out},
                       {"mha: multi_head_attention: scores[0, 0, 0, 0] is -inf, not a finite number"});
    }
    SECTION("encoder-layer") {
        save_identity_attention(in, 2);
        save_npy(in + "/x.npy", {1, 2, 2}, {big, -big, big, -big});
        for (const char* name : {"norm1_weight", "norm2_weight"}) save_npy(in + "/" + name + ".npy", {2}, {1, 1});
        for (const char* name : {"norm1_bias", "norm2_bias", "linear2_bias"}) save_npy(in + "/" + name + ".npy", {2}, {0, 0});
        save_npy(in + "/linear1_weight.npy", {3, 2}, {1, 0, 0, 1, 1, 1});
        save_npy(in + "/linear1_bias.npy", {3}, {0, 0, 0});
        save_npy(in + "/linear2_weight.npy", {2, 3}, {1, 0, 0, 0, 1, 0});
        expect_refused({"compute", "encoder-layer", "--heads", "1", "--in", in, "--out", out},
                       {"encoder-layer: multi_head_attention: scores[0, 0, 0, 0] is inf, not a finite number"});
    }
    CHECK_FALSE(fs::exists(out));
}

// --- Undefined behaviour reachable from input ----------------------------------------------

TEST_CASE("hostile - a literal exponent past any integer is neither UB nor accepted blindly", "[cli][hostile]") {
    TempDir dir;
    // 1.5e-99999999999999999999 is 0: a different input, so the check fails (exit 1), cleanly.
    std::string lessons = lesson_folder(dir, "01-dot-product",
                                        lesson_one("", "[[[1.5e-99999999999999999999, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]"));
    const auto r = run_attn({"--lessons-dir", lessons, "check", "1"}, {}, time_limit);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("✗ scores"));
    lessons = lesson_folder(dir, "01-dot-product", lesson_one("", "[[[1.5e99999999999999999999, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]"));
    expect_refused({"--lessons-dir", lessons, "check", "1"}, {"README.md:9:28:", "beyond the range of a float64"});
}

TEST_CASE("hostile - a .npy shape with a zero axis and huge axes is refused before allocating", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directory(in);
    save_npy(in + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
    write_file(in + "/encoder_outputs.npy", npy_bytes("<f8", "False", "(0, 999999999999999, 999999999999999)", 0));
    expect_refused({"compute", "dot", "--in", in, "--out", out},
                   {"encoder_outputs.npy: the shape (0, 999999999999999, 999999999999999) is too large"});
    write_file(dir.path() + "/w.npy", npy_bytes("<f4", "False", "(100000, 100000)", 0));
    expect_refused({"heatmap", "--weights", dir.path() + "/w.npy"}, {"w.npy: the shape (100000, 100000) is too large"});
}

TEST_CASE("hostile - sizes from options are checked before allocating", "[cli][hostile]") {
    TempDir dir;
    const auto huge = expect_refused({"view", "--sentence", "El perro va", "--d-model", "4611686018427387904", "--heads", "1",
                                      "--html", dir.path() + "/x.html"},
                                     {"d_model 4611686018427387904 is more than 4096", "--d-model"});
    CHECK_THAT(huge.err, !Catch::Contains("out of memory"));
    const auto run = expect_refused({"run", "mha", "--seq", "1000000"}, {"--seq 1000000", "the limit is 8 GiB"});
    CHECK_THAT(run.err, !Catch::Contains("out of memory"));
    expect_refused({"run", "mha", "--d-model", "4611686018427387904", "--heads", "1"}, {"--d-model 4611686018427387904", "8 GiB"});
    const auto bench = expect_refused({"bench", "mha", "--seq", "99999999999"}, {"--seq 99999999999", "the limit is 8 GiB"});
    CHECK_THAT(bench.err, !Catch::Contains("out of memory"));
    // Small inputs can ask for huge weights: (1, 1, 20000, 20000) is refused before it is computed.
    const std::string in = dir.path() + "/in";
    fs::create_directory(in);
    save_identity_attention(in, 1);
    for (const char* name : {"query", "key", "value"}) save_npy(in + "/" + name + ".npy", {1, 20000, 1}, std::vector<double>(20000, 0.5));
    expect_refused({"compute", "mha", "--heads", "1", "--in", in, "--out", dir.path() + "/out"},
                   {"mha: the output 'weights' (B,h,T,S): the shape (1, 1, 20000, 20000) is too large"});
    CHECK_FALSE(fs::exists(dir.path() + "/out"));
}

// --- Internal error from a document ----------------------------------------------------------

TEST_CASE("hostile - an empty heading before a blank line renders", "[cli][hostile]") {
    TempDir dir;
    const std::string lessons = lesson_folder(dir, "01-dot-product", lesson_one("### \n\nAfter an empty heading.\n"));
    const auto r = run_attn({"--lessons-dir", lessons, "lesson", "1"}, {}, time_limit);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("After an empty heading."));
}

// --- Terminal escape injection -------------------------------------------------------------

TEST_CASE("hostile - escape sequences in a .npy header, a title, headings and prose never reach the terminal", "[cli][hostile]") {
    TempDir dir;
    const std::string esc = "\033]0;owned\007\033[2J";
    const std::string in = dir.path() + "/in";
    fs::create_directory(in);
    save_npy(in + "/encoder_outputs.npy", {2, 2, 3}, {1, 2, 3, 2, 2, 3, 4, 5, 6, 4, 5, 6});
    write_file(in + "/decoder_output.npy", npy_bytes("<f4" + esc + std::string(1, '\0'), "False", "(2, 3)", 24));
    const auto npy = expect_refused({"compute", "dot", "--in", in, "--out", dir.path() + "/out"}, {"decoder_output.npy", "dtype"});
    CHECK(npy.err.find('\0') == std::string::npos);

    std::string text = lesson_one("Prose " + esc + " with a \xE2\x80\xAE bidi override.\n");
    const std::string title = "hostile", heading = "Step 2 — Scores";
    text.replace(text.find(title), title.size(), "title " + esc);
    text.replace(text.find(heading), heading.size(), "Scores " + esc);
    const std::string lessons = lesson_folder(dir, "01-dot-product", text);
    lesson_folder(dir, "07-red\033[31m", "# A lesson with an escape in its folder's name\n");
    for (const std::vector<std::string>& command : {std::vector<std::string>{"lesson", "1"}, {"list"}, {"check", "1"}}) {
        std::vector<std::string> arguments{"--lessons-dir", lessons};
        arguments.insert(arguments.end(), command.begin(), command.end());
        const auto r = run_attn(arguments, {}, time_limit);
        INFO(command[0] << ": " << r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK_FALSE(has_control_byte(r.out));
        CHECK_FALSE(has_control_byte(r.err));
        CHECK(r.out.find("\xE2\x80\xAE") == std::string::npos);
    }
    const auto list = run_attn({"--lessons-dir", lessons, "list"}).out;
    CHECK_THAT(list, Catch::Contains("title \xEF\xBF\xBD]0;owned") && Catch::Contains("red\xEF\xBF\xBD[31m"));
}

// --- Unclear messages and exit codes -------------------------------------------------------

TEST_CASE("hostile - 1e400 and nan in a lesson's blocks are format errors naming file and line", "[cli][hostile]") {
    TempDir dir;
    std::string lessons = lesson_folder(dir, "01-dot-product", lesson_one("", "[[[1e400, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]"));
    expect_refused({"--lessons-dir", lessons, "check", "1"}, {"README.md:9:9:", "1e400 is beyond the range of a float64"});
    lessons = lesson_folder(dir, "01-dot-product", lesson_one("", "[[[nan, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]"));
    expect_refused({"--lessons-dir", lessons, "check", "1"}, {"README.md:9:4:", "nan cannot be checked"});
    lessons = lesson_folder(dir, "01-dot-product", lesson_one("", "[[[inf, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]"));
    expect_refused({"--lessons-dir", lessons, "check", "1"}, {"README.md:8:", "input 'encoder_outputs' holds inf at [0, 0, 0]"});
    lessons = lesson_folder(dir, "01-dot-product", lesson_one("", "[[[1, 2, 3], [2, 2, 3]],\n [[4, 5, 6], [4, 5, 6]]]",
                                                              "tensor([[50., 1e400],\n        [19., 19.]])"));
    expect_refused({"--lessons-dir", lessons, "check", "1"}, {"README.md:21:20:", "1e400 is beyond"});
}

TEST_CASE("hostile - heatmap labels that do not fit are found before the walkthrough starts", "[cli][hostile]") {
    TempDir dir;
    // Three labels for three expected rows: the document agrees with itself, but
    // lessons/01-dot-product computes two rows of weights.
    std::string text = lesson_one("");
    text += "\n```attn expect weights shape=B,S heatmap rows=a,b,c\ntensor([[0.5, 0.5],\n        [0.5, 0.5],\n        [0.5, 0.5]])\n```\n";
    const std::string lessons = lesson_folder(dir, "01-dot-product", text);
    const auto r = expect_refused({"--lessons-dir", lessons, "lesson", "1"},
                                  {"README.md:25:", "rows= gives 3 labels but 'weights' is computed with shape (2, 2)"});
    CHECK(r.out.empty());  // nothing was shown before the error
}

TEST_CASE("hostile - negative or fractional option numbers are refused, never wrapped", "[cli][hostile]") {
    TempDir dir;
    const std::string html = dir.path() + "/x.html";
    expect_refused({"view", "--sentence", "El perro", "--html", html, "--head", "-1"}, {"--head", "whole number", "'-1'"});
    expect_refused({"view", "--sentence", "El perro", "--html", html, "--item", "-1"}, {"--item", "'-1'"});
    expect_refused({"view", "--sentence", "El perro", "--html", html, "--seed", "-1"}, {"--seed", "'-1'"});
    expect_refused({"view", "--sentence", "El perro", "--html", html, "--head", "1.5"}, {"--head", "'1.5'"});
    expect_refused({"run", "mha", "--seed", "-1"}, {"--seed", "from 0 to 4294967295", "'-1'"});
    expect_refused({"run", "mha", "--seed", "4294967296"}, {"--seed", "'4294967296'"});
    expect_refused({"run", "mha", "--batch", "1e3"}, {"--batch", "'1e3'"});
    CHECK_FALSE(fs::exists(html));
    for (const auto& r : {run_attn({"view", "--sentence", "x", "--html", html, "--head", "-1"})}) {
        CHECK_THAT(r.err, !Catch::Contains("18446744073709551615"));
    }
}

TEST_CASE("hostile - a folder as a tokens file is called a folder", "[cli][hostile]") {
    TempDir dir;
    save_npy(dir.path() + "/w.npy", {2, 2}, {1, 0, 0, 1});
    expect_refused({"heatmap", "--weights", dir.path() + "/w.npy", "--tokens", dir.path()}, {"the tokens file", "is a folder"});
}

TEST_CASE("hostile - an unknown command is named", "[cli][hostile]") {
    expect_refused({"frobnicate"}, {"unknown command 'frobnicate'", "lesson", "compute"});
    expect_refused({"--lessons-dir", "x", "chek", "1"}, {"unknown command 'chek'"});
    expect_refused({"fr\033[31mob"}, {"unknown command 'fr\xEF\xBF\xBD[31mob'"});
}

TEST_CASE("hostile - NUL bytes and escapes in paths and files are never quoted raw", "[cli][hostile]") {
    TempDir dir;
    const std::string in = dir.path() + "/in";
    fs::create_directory(in);
    save_npy(in + "/encoder_outputs.npy", {2, 2, 3}, {1, 2, 3, 2, 2, 3, 4, 5, 6, 4, 5, 6});
    write_file(in + "/decoder_output.npy", npy_bytes("<f4", "False", std::string("(2,\0 3)", 7), 24));
    const auto r = expect_refused({"compute", "dot", "--in", in, "--out", dir.path() + "/out"}, {"decoder_output.npy", "bad dimension"});
    CHECK(r.err.find('\0') == std::string::npos);
    expect_refused({"compute", "dot", "--in", dir.path() + "/in\033[31m", "--out", dir.path() + "/out"},
                   {"the input folder", "in\xEF\xBF\xBD[31m"});
    // A file beside the inputs with an escape in its name: the note about it is printable too.
    save_npy(in + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
    write_file(in + "/extra\033[2J.npy", "");
    const auto note = run_attn({"compute", "dot", "--in", in, "--out", dir.path() + "/out"}, {}, time_limit);
    CHECK(note.exit_code == 0);
    CHECK_THAT(note.err, Catch::Contains("extra\xEF\xBF\xBD[2J.npy is not an input of dot"));
    CHECK_FALSE(has_control_byte(note.err));
}
