// `attn compute` through the real binary: every module's outputs against PyTorch's recorded ones
// (tests/data/compute), with their options, and every bad input: exit 2 with a message naming the
// file, the tensor and the shapes, and nothing written.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "attn/npy.hpp"
#include "attn/npy_tensor.hpp"
#include "support/fixtures.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tensor_match.hpp"

namespace {

using attn::testing::no_abort;
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

// The inputs of lessons/01-dot-product's first example (H = 3), in a folder.
void write_lesson_inputs(const std::string& dir) {
    save(dir + "/encoder_outputs.npy", {2, 2, 3}, {1, 2, 3, 2, 2, 3, 4, 5, 6, 4, 5, 6});
    save(dir + "/decoder_output.npy", {2, 3}, {7, 8, 9, 2, 1, 1});
}

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
