// A model's settings that travel with its weights (the attn_config member of --weights) and
// --prefix, through the real `attn` program, on tests/data/config (tools/make_config_fixtures.py,
// PyTorch 1.13's outputs): the config alone gives PyTorch's numbers; a flag may repeat it but not
// contradict it; without a config the flags stay required; a malformed config is refused naming
// what is wrong; a prefix is stripped when given, found when one fits, refused when two do.
#include <catch2/catch.hpp>
#include <filesystem>

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

const std::string cases = ATTN_SOURCE_DIR "/tests/data/config";

// `attn compute MODULE --in CASE/in --weights ARCHIVE` with `extra`; the run's result.
attn::testing::CommandResult compute(const std::string& module, const std::string& case_name, const std::string& archive,
                                     const std::string& out, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> arguments = {"compute", module, "--in", cases + "/" + case_name + "/in", "--out", out,
                                          "--weights", archive};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return run_attn(arguments);
}

// The run succeeds and its output is PyTorch's to 1e-5 (float32 on both sides).
void expect_pytorch_output(const std::string& module, const std::string& case_name, const std::string& archive,
                           const std::vector<std::string>& extra = {}) {
    TempDir dir;
    const auto r = compute(module, case_name, archive, dir.path() + "/out", extra);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_TENSOR_CLOSE(load_tensor(cases + "/" + case_name + "/expected/output.npy"),
                       load_tensor(dir.path() + "/out/output.npy"), 1e-5, 0);
}

// Refused with exit 2, every fragment in the message, nothing written.
void expect_refused(const std::string& module, const std::string& case_name, const std::string& archive,
                    const std::vector<std::string>& extra, const std::vector<std::string>& fragments) {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    std::vector<std::string> arguments = {"compute", module, "--in", cases + "/" + case_name + "/in", "--out", out,
                                          "--weights", archive};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    attn::testing::expect_refused(arguments, fragments);
    CHECK_FALSE(fs::exists(out));
}

const std::string encoder = cases + "/encoder/model.npz";

}  // namespace

TEST_CASE("compute config - the config alone gives PyTorch's output; a flag equal to it is accepted",
          "[cli][compute][config]") {
    // Pre-norm, tanh GELU, eps 1e-6, final norm eps 1e-3: four settings no flag gives here.
    expect_pytorch_output("encoder", "encoder", encoder);
    expect_pytorch_output("encoder", "encoder", encoder, {"--precision", "float64"});
    expect_pytorch_output("encoder", "encoder", encoder,
                          {"--heads", "2", "--norm-first", "--activation", "gelu-tanh", "--eps", "1e-6", "--norm-eps", "0.001"});
}

TEST_CASE("compute config - a flag that contradicts the config is refused, naming both values", "[cli][compute][config]") {
    expect_refused("encoder", "encoder", encoder, {"--heads", "4"}, {"model.npz[attn_config] says heads = 2", "--heads 4"});
    expect_refused("encoder", "encoder", encoder, {"--eps", "1e-5"}, {"says eps = 1e-06", "--eps 1e-05"});
    expect_refused("encoder", "encoder", encoder, {"--norm-eps", "1e-6"}, {"says norm_eps = 0.001", "--norm-eps 1e-06"});
    expect_refused("encoder", "encoder", encoder, {"--activation", "gelu"}, {"says activation = gelu-tanh", "--activation gelu"});
    // The layer's config is post-norm: --norm-first contradicts it.
    expect_refused("encoder-layer", "encoder-layer", cases + "/encoder-layer/model.npz", {"--norm-first"},
                   {"says norm_first = false", "--norm-first"});
}

TEST_CASE("compute config - without a config the flags stay required, and are needed", "[cli][compute][config]") {
    // The same weights without attn_config: --heads is required again, and the defaults miss.
    TempDir dir;
    const std::string in = cases + "/encoder/in", out = dir.path() + "/out";
    const std::string plain = ATTN_SOURCE_DIR "/tests/data/interop/encoder-norm-eps/model.npz";
    attn::testing::expect_refused({"compute", "encoder", "--in", ATTN_SOURCE_DIR "/tests/data/interop/encoder-norm-eps/in",
                                   "--out", out, "--weights", plain},
                                  {"needs the number of heads: add --heads h"});
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("compute config - a config without a setting the module reads is refused, naming the key",
          "[cli][compute][config]") {
    const std::string bad = cases + "/bad/";
    expect_refused("encoder", "encoder", bad + "missing-eps.npz", {"--eps", "1e-6"}, {"attn_config] has no \"eps\""});
    expect_refused("encoder", "encoder", bad + "missing-norm-eps.npz", {}, {"has no \"norm_eps\"", "final norm"});
}

TEST_CASE("compute config - a malformed or hostile config is bad input naming what is wrong",
          "[cli][compute][config][errors]") {
    const std::vector<std::pair<std::string, std::vector<std::string>>> refusals = {
        {"deep-nesting", {"the value of \"heads\" is an object or an array", "at byte 10"}},
        {"too-long", {"holds 70002 bytes; a config is at most 65536"}},
        {"huge-number", {"a number beyond double's range at byte"}},
        {"huge-heads", {"\"heads\" must be a whole number from 1 to 65536, got 99999999999999999999"}},
        {"fractional-heads", {"\"heads\" must be a whole number from 1 to 65536, got 2.5"}},
        {"bad-utf8", {"a byte that is not UTF-8 at byte 31"}},
        {"lone-surrogate", {"a lone UTF-16 surrogate at byte 16"}},
        {"unknown-key", {"unknown key \"num_heads\"", "heads, norm_first, activation, eps and norm_eps"}},
        {"escape-in-key", {"unknown key \"", "[31mred\""}},
        {"control-in-string", {"a control character inside a string at byte 18"}},
        {"wrong-type", {"\"norm_first\" must be true or false, got \"true\""}},
        {"unknown-activation", {"\"activation\" must be \"relu\", \"gelu\" or \"gelu-tanh\", got \"swish\""}},
        {"negative-eps", {"\"eps\" must be a positive number, got -1e-5"}},
        {"duplicate-key", {"the key \"heads\" a second time at byte 13"}},
        {"trailing-text", {"expected the end of the text after the object at byte 13"}},
        {"not-an-object", {"expected a '{' (a config is one JSON object) at byte 0"}},
        {"empty", {"the text ends where a '{' (a config is one JSON object) was expected at byte 0"}},
        {"float-array", {"must hold the config's UTF-8 bytes as a 1-D uint8 array", "got float32 (2)"}},
    };
    for (const auto& [name, fragments] : refusals) {
        INFO(name);
        std::vector<std::string> expected = fragments;
        expected.push_back(name + ".npz[attn_config]");  // the member named in the archive
        expect_refused("encoder", "encoder", cases + "/bad/" + name + ".npz", {}, expected);
    }
}

TEST_CASE("compute prefix - given, found when one fits, refused when two do", "[cli][compute][config][prefix]") {
    const std::string nested = cases + "/nested/model.npz";
    // "model.encoder." is the one prefix before layers.0.norm1.weight; the other parts are left out.
    expect_pytorch_output("encoder", "encoder", nested);
    expect_pytorch_output("encoder", "encoder", nested, {"--prefix", "model.encoder."});
    expect_pytorch_output("encoder-layer", "encoder-layer", cases + "/encoder-layer/model.npz");
    expect_pytorch_output("encoder-layer", "encoder-layer", cases + "/encoder-layer/model.npz", {"--prefix", "module."});
    const std::string two = cases + "/nested/two-encoders.npz";
    expect_refused("encoder", "encoder", two, {}, {"two-encoders.npz holds more than one encoder", "'model.encoder.', 'model.other.'",
                                                   "--prefix"});
    expect_pytorch_output("encoder", "encoder", two, {"--prefix", "model.encoder."});
    expect_refused("encoder", "encoder", nested, {"--prefix", "model.decoder."},
                   {"--prefix 'model.decoder.': no member of", "starts with it"});
    // The wrong part's weights are refused by name, not computed.
    expect_refused("encoder", "encoder", nested, {"--prefix", "model."}, {"is not an input of encoder"});
}

TEST_CASE("compute prefix - --prefix needs --weights", "[cli][compute][config][prefix][errors]") {
    TempDir dir;
    attn::testing::expect_refused({"compute", "encoder", "--in", cases + "/encoder/in", "--out", dir.path() + "/out",
                                   "--heads", "2", "--prefix", "module."},
                                  {"--prefix module. selects members of the --weights archive"});
}
