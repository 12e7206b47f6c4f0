// attn compute decoder-layer, decoder and transformer through the real `attn` program: PyTorch's
// nn.TransformerDecoderLayer, nn.TransformerDecoder and nn.Transformer (tools/make_decoder_compute_fixtures.py,
// PyTorch 1.13 in eval mode) reproduced from their state_dicts, tgt and memory, and the masks under
// PyTorch's names and conventions; each mask and setting matters; bad input is refused by name.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/fixtures.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tensor_match.hpp"

namespace {

using attn::testing::load_tensor;
using attn::testing::run_attn;
using attn::testing::TempDir;
namespace fs = std::filesystem;

const std::string cases = ATTN_SOURCE_DIR "/tests/data/compute_decoder";

// A case's command: the module and options of its options.txt, its in/ (or `in`) and model.npz.
std::vector<std::string> case_arguments(const std::string& name, const std::string& out, const std::string& in = "") {
    std::ifstream file(cases + "/" + name + "/options.txt");
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);) lines.push_back(line);
    std::vector<std::string> arguments = {"compute", lines.at(0), "--in", in.empty() ? cases + "/" + name + "/in" : in,
                                          "--out", out, "--weights", cases + "/" + name + "/model.npz"};
    arguments.insert(arguments.end(), lines.begin() + 1, lines.end());
    return arguments;
}

// The largest |attn − PyTorch| of case `name` run with its inputs in `in` (default: its own).
double difference_from_pytorch(const std::string& name, const std::string& in = "") {
    TempDir out;
    const auto r = run_attn(case_arguments(name, out.path() + "/r", in));
    INFO(name << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto got = load_tensor(out.path() + "/r/output.npy");
    const auto expected = load_tensor(cases + "/" + name + "/expected/output.npy");
    REQUIRE(got.shape() == expected.shape());
    double largest = 0;
    for (std::size_t i = 0; i < got.size(); ++i) largest = std::max(largest, std::abs(got.data()[i] - expected.data()[i]));
    return largest;
}

// A copy of case `name`'s in/ folder without `left_out`.
std::string inputs_without(const std::string& name, const std::string& left_out, const std::string& to) {
    fs::create_directories(to);
    for (const auto& entry : fs::directory_iterator(cases + "/" + name + "/in")) {
        if (entry.path().stem() != left_out) fs::copy_file(entry.path(), to + "/" + entry.path().filename().string());
    }
    return to;
}

}  // namespace

TEST_CASE("compute decoder - every recorded PyTorch decoder is reproduced to 1e-5", "[cli][compute][decoder]") {
    TempDir out;
    std::size_t count = 0;
    for (const auto& entry : fs::directory_iterator(cases)) {
        const std::string name = entry.path().filename().string(), results = out.path() + "/" + name;
        const auto r = run_attn(case_arguments(name, results));
        INFO(name << "\n" << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("(2, 3, 8) float32"));  // float32 in, float32 out
        // transformer's memory is not compared: PyTorch's nested-tensor path zeroes its padded rows
        // (docs/bring-your-own-weights.md); the output, whose memory_key_padding_mask hides them, is.
        CHECK_TENSOR_CLOSE(load_tensor(entry.path() / "expected" / "output.npy"), load_tensor(results + "/output.npy"), 1e-5, 0);
        ++count;
    }
    // decoder-layer: post-norm with the causal tgt_mask and both padding masks; pre-norm GELU with
    // a bool memory_mask and its config. decoder: two layers and a final norm inside a bigger
    // model (prefix found), and pre-norm tanh GELU with every mask and its config. transformer:
    // post-norm with the causal tgt_mask and three padding masks; pre-norm GELU with a float
    // src_mask, a bool memory_mask, its config, inside a bigger model.
    CHECK(count == 6);
}

TEST_CASE("compute decoder - each mask matters: left out, the output is far from PyTorch's", "[cli][compute][decoder]") {
    // The comparisons above can fail: without any one of the masks the numbers move by far more than 1e-5.
    const std::string every = "decoder-pre-gelu-tanh-every-mask-config";
    for (const char* mask : {"tgt_mask", "memory_mask", "tgt_key_padding_mask", "memory_key_padding_mask"}) {
        TempDir dir;
        INFO(mask);
        CHECK(difference_from_pytorch(every, inputs_without(every, mask, dir.path() + "/in")) > 1e-3);
    }
    const std::vector<std::pair<std::string, std::string>> others = {
        {"decoder-layer-post-relu-causal-padding", "tgt_mask"},
        {"transformer-post-relu-causal-padding", "src_key_padding_mask"},
        {"transformer-post-relu-causal-padding", "tgt_mask"},
        {"transformer-pre-gelu-config-prefixed", "src_mask"},
        {"transformer-pre-gelu-config-prefixed", "memory_mask"},
    };
    for (const auto& [name, mask] : others) {
        TempDir dir;
        INFO(name << " without " << mask);
        CHECK(difference_from_pytorch(name, inputs_without(name, mask, dir.path() + "/in")) > 1e-3);
    }
}

TEST_CASE("compute decoder - the config's settings are checked against the flags", "[cli][compute][decoder][config]") {
    TempDir dir;
    auto arguments = case_arguments("decoder-pre-gelu-tanh-every-mask-config", dir.path() + "/out");
    auto with = [&](std::vector<std::string> extra) {
        auto all = arguments;
        all.insert(all.end(), extra.begin(), extra.end());
        return all;
    };
    attn::testing::expect_refused(with({"--activation", "gelu"}), {"says activation = gelu-tanh", "--activation gelu"});
    attn::testing::expect_refused(with({"--norm-eps", "1e-5"}), {"says norm_eps = 0.001", "--norm-eps 1e-05"});
    CHECK_FALSE(fs::exists(dir.path() + "/out"));
    // Without a config, --heads is required.
    attn::testing::expect_refused({"compute", "decoder-layer", "--in", cases + "/decoder-layer-post-relu-causal-padding/in",
                                   "--out", dir.path() + "/out", "--weights",
                                   cases + "/decoder-layer-post-relu-causal-padding/model.npz"},
                                  {"decoder-layer needs the number of heads"});
}

TEST_CASE("compute decoder - bad input is refused naming the tensor and its shape", "[cli][compute][decoder][errors]") {
    TempDir dir;
    const std::string name = "decoder-layer-post-relu-causal-padding", out = dir.path() + "/out";
    auto refused_with = [&](const std::string& input, const std::vector<std::size_t>& shape,
                            const std::vector<std::string>& fragments) {
        TempDir scratch;
        const std::string in = inputs_without(name, input, scratch.path() + "/in");
        std::size_t count = 1;
        for (std::size_t axis : shape) count *= axis;
        attn::testing::save_npy(in + "/" + input + ".npy", shape, std::vector<double>(count, 0.0), attn::NpyDtype::float32);
        attn::testing::expect_refused(case_arguments(name, out, in), fragments);
        CHECK_FALSE(fs::exists(out));
    };
    refused_with("memory", {2, 4, 6}, {"memory (2, 4, 6)", "tgt (2, 3, 8)"});  // D differs
    refused_with("memory", {3, 4, 8}, {"memory (3, 4, 8)"});
    refused_with("tgt_mask", {3, 4}, {"tgt_mask (3, 4) must be (T, S) = (3, 3)"});
    refused_with("memory_key_padding_mask", {2, 3}, {"memory_key_padding_mask (2, 3)"});
    refused_with("memory", {2, 0, 8}, {"memory has shape (2, 0, 8): dimension S is 0"});
    // A decoder's weights given to the layer: named, with the name it meant.
    attn::testing::expect_refused({"compute", "decoder-layer", "--in", cases + "/" + name + "/in", "--out", out, "--heads", "2",
                                   "--weights", cases + "/decoder-post-final-norm-prefixed/model.npz", "--prefix", "decoder."},
                                  {"is not an input of decoder-layer", "did you mean"});
    // A whole nn.Transformer given to encoder: its encoder and decoder layers both have norm1.
    const std::string whole = cases + "/transformer-post-relu-causal-padding/model.npz";
    attn::testing::expect_refused({"compute", "encoder", "--in", ATTN_SOURCE_DIR "/tests/data/config/encoder/in", "--out", out,
                                   "--heads", "2", "--weights", whole},
                                  {"model.npz holds more than one encoder: its keys fit the prefixes 'decoder.', 'encoder.'"});
    // An encoder's weights given to the decoder: the cross-attention is missing, by its PyTorch name.
    attn::testing::expect_refused({"compute", "decoder", "--in", cases + "/" + name + "/in", "--out", out, "--heads", "2",
                                   "--weights", ATTN_SOURCE_DIR "/tests/data/config/encoder/model.npz"},
                                  {"decoder: layers_0_: missing weight 'multihead_attn_in_proj_weight'"});
}
