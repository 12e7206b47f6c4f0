// attn compute MODULE --grad through the real `attn` program: the gradients of self-attention,
// mha and encoder-layer against torch.autograd.grad in float64 (tests/data/compute/grad-*, from
// tools/make_grad_compute_fixtures.py), and every refusal: exit 2, a message naming what is
// wrong, nothing written.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "attn/npy.hpp"
#include "support/fixtures.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tensor_match.hpp"

namespace {

using attn::testing::expect_refused;
using attn::testing::load_tensor;
using attn::testing::run_attn;
using attn::testing::TempDir;
namespace fs = std::filesystem;

const std::string fixtures = ATTN_SOURCE_DIR "/tests/data/compute";

// `attn compute … --grad` for case `name`, inputs from `in` (default: its own), options from its
// options.txt (module=…, heads=…, causal=1, norm_first=1, activation=…, seq_first=1, weights=…).
std::vector<std::string> grad_arguments(const std::string& name, const std::string& out, const std::string& in = "") {
    const std::string folder = fixtures + "/" + name;
    std::ifstream file(folder + "/options.txt");
    std::vector<std::string> options;
    std::string module;
    for (std::string line; std::getline(file, line);) {
        const auto equals = line.find('=');
        const std::string key = line.substr(0, equals), value = line.substr(equals + 1);
        if (key == "module") module = value;
        if (key == "heads") options.insert(options.end(), {"--heads", value});
        if (key == "causal" && value == "1") options.push_back("--causal");
        if (key == "norm_first" && value == "1") options.push_back("--norm-first");
        if (key == "activation") options.insert(options.end(), {"--activation", value});
        if (key == "seq_first" && value == "1") options.push_back("--seq-first");
        if (key == "weights") options.insert(options.end(), {"--weights", folder + "/" + value});
    }
    std::vector<std::string> arguments = {"compute", module, "--in", in.empty() ? folder + "/in" : in, "--out", out, "--grad"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    return arguments;
}

std::set<std::string> files_in(const std::string& folder) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
    return names;
}

std::vector<std::string> grad_cases() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(fixtures)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("grad-", 0) == 0) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

// A copy of case `name`'s inputs that a test may change.
std::string copy_inputs(const std::string& name, const std::string& to) {
    fs::copy(fixtures + "/" + name + "/in", to, fs::copy_options::recursive);
    return to;
}

}  // namespace

TEST_CASE("compute grad - every recorded case matches torch.autograd to 1e-10", "[cli][compute][grad]") {
    TempDir out;
    const std::vector<std::string> cases = grad_cases();
    for (const auto& name : cases) {
        const std::string results = out.path() + "/" + name, expected = fixtures + "/" + name + "/expected";
        const auto r = run_attn(grad_arguments(name, results));
        INFO(name << "\n" << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("computed in float64 on the lesson path"));
        // One gradient per floating-point input, none for a mask: PyTorch's set of leaves exactly
        // (self-attention also writes its weights, which autograd's case does not record).
        std::set<std::string> written = files_in(results);
        written.erase("weights.npy");
        CHECK(written == files_in(expected));
        for (const auto& file : files_in(expected)) {
            INFO(name << ": " << file);
            CHECK_TENSOR_CLOSE(load_tensor(expected + "/" + file), load_tensor(results + "/" + file), 1e-10, 0);
        }
    }
    // self-attention: cross (T != S, d_k != d_v), causal. mha: cross with split weights and a
    // key_padding_mask; self-attention from three files with packed weights, causal, --seq-first.
    // encoder-layer: post-norm relu with a src_key_padding_mask; pre-norm gelu with a float causal
    // src_mask and the weights from model.npz under state_dict keys.
    CHECK(cases.size() == 6);
}

TEST_CASE("compute grad - float32 inputs are computed in double and written float32", "[cli][compute][grad]") {
    TempDir dir;
    const std::string name = "grad-mha-cross-padding", in = dir.path() + "/in";
    fs::create_directories(in);
    for (const auto& entry : fs::directory_iterator(fixtures + "/" + name + "/in")) {
        const attn::NpyArray array = attn::read_npy(entry.path().string(), attn::NpyAccept::floats_bools_integers);
        const std::string to = in + "/" + entry.path().filename().string();
        if (array.dtype == attn::NpyDtype::float64) {
            attn::testing::save_npy(to, array.shape, array.values, attn::NpyDtype::float32);
        } else {
            fs::copy_file(entry.path(), to);
        }
    }
    const auto r = run_attn(grad_arguments(name, dir.path() + "/out", in));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("grad_w_q.npy  (8, 8) float32"));
    CHECK_THAT(r.out, Catch::Contains("computed in float64 on the lesson path"));
    CHECK(attn::read_npy(dir.path() + "/out/grad_query.npy").dtype == attn::NpyDtype::float32);
    // The inputs rounded to float32 (relative 6e-8) move the gradients by about that much.
    CHECK_TENSOR_CLOSE(load_tensor(fixtures + "/" + name + "/expected/grad_w_q.npy"),
                       load_tensor(dir.path() + "/out/grad_w_q.npy"), 1e-5, 1e-5);
}

TEST_CASE("compute grad - bad requests are refused by name and write nothing", "[cli][compute][grad]") {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    SECTION("grad_output missing") {
        const std::string in = copy_inputs("grad-self-attention-cross", dir.path() + "/in");
        fs::remove(in + "/grad_output.npy");
        expect_refused(grad_arguments("grad-self-attention-cross", out, in), {"grad_output.npy", "--grad needs grad_output"});
    }
    SECTION("grad_output of another shape than output") {
        const std::string in = copy_inputs("grad-mha-cross-padding", dir.path() + "/in");
        attn::testing::save_npy(in + "/grad_output.npy", {2, 3, 7}, std::vector<double>(42, 0.5));
        expect_refused(grad_arguments("grad-mha-cross-padding", out, in),
                       {"grad_output (2, 3, 7) must have the shape of output, (2, 3, 8)"});
    }
    SECTION("grad_output holding NaN") {
        const std::string in = copy_inputs("grad-self-attention-cross", dir.path() + "/in");
        std::vector<double> values(2 * 3 * 3, 1.0);
        values[4] = std::nan("");
        attn::testing::save_npy(in + "/grad_output.npy", {2, 3, 3}, values);
        expect_refused(grad_arguments("grad-self-attention-cross", out, in), {"grad_output", "nan", "[0, 1, 1]"});
    }
    SECTION("a module without a backward") {
        expect_refused({"compute", "dot", "--in", fixtures + "/dot-batch4/in", "--out", out, "--grad"},
                       {"dot has no backward", "--grad is for self-attention, mha, encoder-layer"});
    }
    SECTION("--grad with --precision float32") {
        auto arguments = grad_arguments("grad-mha-cross-padding", out);
        arguments.insert(arguments.end(), {"--precision", "float32"});
        expect_refused(arguments, {"--grad computes the gradients in double", "--precision float32"});
    }
    CHECK_FALSE(fs::exists(out));
}
