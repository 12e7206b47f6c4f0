// The `attn` program as a user meets it: help, the lesson walkthrough, check, compute, and every
// bad-input path of the foundation issue — each a clear message and exit code 2, never an abort.
#include <catch2/catch.hpp>
#include <filesystem>

#include "attn/npy.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tensor_match.hpp"

namespace {

using attn::testing::run_attn;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/compute";

// A .npy file written by hand, so that each field of the header can be wrong on purpose.
std::string npy_bytes(const std::string& descr, const std::string& fortran, const std::string& shape,
                      std::size_t data_bytes) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
    header.append(63 - (10 + header.size()) % 64, ' ');
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    return bytes + header + std::string(data_bytes, '\0');
}

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

TEST_CASE("cli - lesson 1 walks every step with a passing check", "[cli][lessons]") {
    const auto r = run_attn({"lesson", "1"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("tensor([[1.9991, 2.0000, 3.0000],\n          [4.0000, 5.0000, 6.0000]])"));
    CHECK_THAT(r.out, Catch::Contains("tensor([[50., 57.],"));
    CHECK_THAT(r.out, Catch::Contains("✓ context: expected (README.md:"));
    CHECK_THAT(r.out, Catch::Contains(" 0 failed"));
    CHECK_THAT(r.out, !Catch::Contains("✗"));
    CHECK_THAT(r.out, !Catch::Contains("\033["));  // no colour when the output is not a terminal
    CHECK(run_attn({"lesson", "dot-product", "--no-pause"}).exit_code == 0);
}

TEST_CASE("cli - check ends with the totals line", "[cli][lessons]") {
    const auto r = run_attn({"check"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Matches("(.|\n)*\n[0-9]+ passed, 0 failed\n$"));
    CHECK_THAT(run_attn({"check", "1"}).out, Catch::Contains("✓ seed_context [example one]"));
}

TEST_CASE("cli - an unknown lesson is exit 2 and lists the lessons", "[cli][errors]") {
    for (const std::string& command : {"lesson", "check"}) {
        const auto r = run_attn({command, "42"});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("unknown lesson '42'") && Catch::Contains("1 dot-product"));
    }
}

TEST_CASE("cli - a malformed lesson document is exit 2 naming file and line", "[cli][errors]") {
    TempDir dir;
    fs::create_directories(dir.path() + "/01-dot-product");
    write_file(dir.path() + "/01-dot-product/README.md", "# L\n\n```attn input encoder_outputs\n[[[1, 2], [3]]]\n```\n");
    for (const std::string& command : {"lesson", "check"}) {
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

TEST_CASE("cli - compute dot writes float32 outputs that match PyTorch", "[cli][compute]") {
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
        attn::DynamicTensor g = attn::DynamicTensor::from_shape(got.shape), e = attn::DynamicTensor::from_shape(expected.shape);
        std::copy(got.values.begin(), got.values.end(), g.begin());
        std::copy(expected.values.begin(), expected.values.end(), e.begin());
        CHECK_TENSOR_CLOSE(e, g, 1e-5, 1e-5);
    }
    // No temporary file is left behind.
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(out.path() + "/results")) files += entry.path().extension() == ".npy";
    CHECK(files == 3);
    CHECK(std::distance(fs::directory_iterator(out.path() + "/results"), fs::directory_iterator()) == 3);
}

TEST_CASE("cli - compute dot keeps float64 and works with B = 1 and S = 1", "[cli][compute]") {
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
    auto compute = [&]() { return run_attn({"compute", "dot", "--in", in, "--out", out}); };
    auto expect_error = [&](const std::vector<std::string>& fragments) {
        const auto r = compute();
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(no_abort(r));
        for (const auto& fragment : fragments) CHECK_THAT(r.err, Catch::Contains(fragment));
        CHECK_FALSE(fs::exists(out));  // nothing half-written
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
        expect_error({"decoder_output holds a non-finite value"});
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

TEST_CASE("cli - a misspelt input file gets a note", "[cli][compute]") {
    TempDir dir;
    write_lesson_inputs(dir.path());
    save(dir.path() + "/decoder_ouput.npy", {2, 3}, {1, 1, 1, 1, 1, 1});
    const auto r = run_attn({"compute", "dot", "--in", dir.path(), "--out", dir.path() + "/out"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("decoder_ouput.npy is not an input of dot"));
}
