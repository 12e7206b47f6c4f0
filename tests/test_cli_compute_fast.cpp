// `attn compute` on both paths, through the real program: float32 inputs to mha, encoder-layer
// and encoder run on the float32 fast path (attn::fast) by default and on the double lesson path
// with --precision float64; both reproduce PyTorch's recorded outputs (tests/data/compute from
// tools/make_compute_fixtures.py, tests/data/interop from tools/make_interop_fixtures.py) to
// 1e-5. What has no fast form (a scores mask other than the causal one, the bottom-right causal
// alignment) takes the lesson path, and --precision float32 refuses it with exit 2.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "attn/npy.hpp"
#include "support/fixtures.hpp"
#include "support/interop_cases.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "support/tensor_match.hpp"

namespace {

using attn::testing::expect_refused;
using attn::testing::run_attn;
using attn::testing::TempDir;
namespace fs = std::filesystem;

const std::string fast_line = "computed in float32 on the fast path";
const std::string lesson_line = "computed in float64 on the lesson path";

struct Case {
    std::string name, folder, module;
    std::vector<std::string> options;  // after --in and --out
};

// tests/data/compute/MODULE-CASE/options.txt: key=value lines (heads=2, causal=1, …).
std::vector<std::string> options_from_keys(const std::string& folder) {
    std::ifstream file(folder + "/options.txt");
    std::vector<std::string> options;
    for (std::string line; std::getline(file, line);) {
        const auto equals = line.find('=');
        if (equals == std::string::npos) continue;
        const std::string key = line.substr(0, equals), value = line.substr(equals + 1);
        if (key == "heads") options.insert(options.end(), {"--heads", value});
        if (key == "causal" && value == "1") options.push_back("--causal");
        if (key == "causal_alignment") options.insert(options.end(), {"--causal-alignment", value});
        if (key == "norm_first" && value == "1") options.push_back("--norm-first");
        if (key == "activation") options.insert(options.end(), {"--activation", value});
        if (key == "eps") options.insert(options.end(), {"--eps", value});
        if (key == "no_output_projection" && value == "1") options.push_back("--no-output-projection");
    }
    return options;
}

// tests/data/interop/CASE/options.txt: the module, then one argument per line.
std::vector<Case> recorded_cases() {
    std::vector<Case> cases;
    for (const auto& entry : fs::directory_iterator(ATTN_SOURCE_DIR "/tests/data/compute")) {
        const std::string name = entry.path().filename().string();
        for (const std::string module : {"mha", "encoder-layer"}) {
            if (name.rfind(module + "-", 0) == 0) cases.push_back({name, entry.path().string(), module, options_from_keys(entry.path().string())});
        }
    }
    for (const auto& entry : fs::directory_iterator(attn::testing::interop_cases)) {
        if (!fs::exists(entry.path() / "options.txt")) continue;
        std::ifstream file(entry.path() / "options.txt");
        std::vector<std::string> lines;
        for (std::string line; std::getline(file, line);) lines.push_back(line);
        Case c{entry.path().filename().string(), entry.path().string(), lines.at(0), {lines.begin() + 1, lines.end()}};
        if (fs::exists(entry.path() / "model.npz")) c.options.insert(c.options.end(), {"--weights", c.folder + "/model.npz"});
        cases.push_back(c);
    }
    std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
    return cases;
}

// Runs a case with `extra` options; checks every output against PyTorch's and returns stdout.
std::string run_case(const Case& c, const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> arguments = {"compute", c.module, "--in", c.folder + "/in", "--out", out};
    arguments.insert(arguments.end(), c.options.begin(), c.options.end());
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    const auto r = run_attn(arguments);
    INFO(c.name << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const auto& expected : fs::directory_iterator(c.folder + "/expected")) {
        const std::string output = expected.path().filename().string();
        INFO("output " << output);
        // float32 on the fast path, double on the lesson path; PyTorch computed in float32 (float64
        // for the float64 cases): both within float32's rounding of PyTorch's values.
        CHECK_TENSOR_CLOSE(attn::testing::load_tensor(expected.path()), attn::testing::load_tensor(out + "/" + output), 1e-5, 1e-5);
    }
    return r.out;
}

bool has_scores_mask_other_than_causal(const Case& c) {
    // The recorded cases whose masks the fast path has no form of (their names say it).
    return c.name.find("bottom-right") != std::string::npos || c.name == "mha-attn-mask-bool-3d" ||
           c.name == "mha-attn-mask-float-int-padding";
}

}  // namespace

TEST_CASE("compute fast path - every recorded PyTorch case, float32 by default and float64 on request", "[cli][compute][fast]") {
    TempDir out;
    std::size_t fast = 0, lesson = 0;
    for (const Case& c : recorded_cases()) {
        const bool float64_inputs = c.name.find("float64") != std::string::npos;
        const std::string by_default = run_case(c, out.path() + "/" + c.name + "-default", {});
        INFO(c.name << ": " << by_default);
        if (float64_inputs || has_scores_mask_other_than_causal(c)) {
            CHECK_THAT(by_default, Catch::Contains(lesson_line));
        } else {
            CHECK_THAT(by_default, Catch::Contains(fast_line));
            ++fast;
        }
        CHECK_THAT(run_case(c, out.path() + "/" + c.name + "-float64", {"--precision", "float64"}), Catch::Contains(lesson_line));
        ++lesson;
    }
    // 34 cases: 23 of mha and encoder-layer in tests/data/compute, 11 interop models. On the fast
    // path by default, 29: the float32 compute cases (padding, causal, cross, no w_o, B = 1 and
    // T = 1, pre- and post-norm, gelu, eps) but the bottom-right one, and the interop models but the
    // two with a non-causal attn_mask (state_dict names, packed weights, bias=False, encoders in
    // .npz archives with a causal src_mask, bool and float, seq-first).
    CHECK(fast == 29);
    CHECK(lesson == 34);
}

TEST_CASE("compute fast path - --threads changes the threads, not the numbers", "[cli][compute][fast]") {
    TempDir out;
    for (const Case& c : recorded_cases()) {
        if (c.name != "encoder-post-norm" && c.name != "mha-padding") continue;
        const std::string one = out.path() + "/" + c.name + "-1", two = out.path() + "/" + c.name + "-2";
        CHECK_THAT(run_case(c, one, {"--threads", "1"}), Catch::Contains(fast_line + " (attn::fast), 1 thread\n"));
        CHECK_THAT(run_case(c, two, {"--threads", "2"}), Catch::Contains(fast_line + " (attn::fast), 2 threads\n"));
        CHECK_TENSOR_CLOSE(attn::testing::load_tensor(one + "/output.npy"), attn::testing::load_tensor(two + "/output.npy"),
                           1e-6, 1e-6);
    }
}

TEST_CASE("compute fast path - what it cannot compute is refused under --precision float32", "[cli][compute][fast][errors]") {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    const std::string compute = ATTN_SOURCE_DIR "/tests/data/compute";
    // A float64 input: its rounding to float32 would be written as float64.
    expect_refused({"compute", "mha", "--in", compute + "/mha-float64/in", "--out", out, "--heads", "2", "--precision", "float32"},
                   {"mha: --precision float32 computes in float32", "is float64", "--precision float64"}, out);
    // A scores mask that is not the causal mask, and the bottom-right alignment.
    expect_refused({"compute", "mha", "--in", attn::testing::interop_cases + "/mha-attn-mask-bool-3d/in", "--out", out,
                    "--heads", "2", "--precision", "float32"},
                   {"the fast path, which has no form of attn_mask (other than the causal mask)"}, out);
    expect_refused({"compute", "mha", "--in", compute + "/mha-kv-cache-bottom-right/in", "--out", out, "--heads", "2",
                    "--causal", "--causal-alignment", "bottom-right", "--precision", "float32"},
                   {"no form of --causal-alignment bottom-right"}, out);
    // Modules without a fast path, and values that are not a precision or a thread count.
    expect_refused({"compute", "dot", "--in", compute + "/dot-b1/in", "--out", out, "--precision", "float64"},
                   {"dot computes in double only: --precision and --threads are for mha, encoder-layer, encoder"}, out);
    for (const std::vector<std::string>& bad : {std::vector<std::string>{"--precision", "float16"}, {"--threads", "0"}}) {
        std::vector<std::string> arguments = {"compute", "mha", "--in", compute + "/mha-self/in", "--out", out, "--heads", "2"};
        arguments.insert(arguments.end(), bad.begin(), bad.end());
        const auto r = run_attn(arguments);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(bad[0]));
        CHECK_FALSE(fs::exists(out));
    }
}

TEST_CASE("compute fast path - a float32 NaN in a weight is named as on the lesson path", "[cli][compute][fast][errors]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::copy(ATTN_SOURCE_DIR "/tests/data/compute/mha-self/in", in);
    const auto w_k = attn::testing::load_tensor(in + "/w_k.npy");
    std::vector<double> values(w_k.begin(), w_k.end());
    values[5] = std::nan("");
    attn::testing::write_file(in + "/w_k.npy", attn::encode_npy({w_k.shape(0), w_k.shape(1)}, values, attn::NpyDtype::float32));
    for (const std::string precision : {"float32", "float64"}) {
        expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2", "--causal", "--precision", precision},
                       {"mha: w_k holds nan at [0, 5]; inputs must be finite numbers"}, out);
    }
}

TEST_CASE("compute fast path - an empty sequence-first tensor is refused as on the lesson path", "[cli][compute][fast][errors]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::copy(ATTN_SOURCE_DIR "/tests/data/compute/mha-self/in", in);
    attn::testing::write_file(in + "/query.npy", attn::encode_npy({0, 2, 8}, {}, attn::NpyDtype::float32));
    for (const std::string precision : {"float32", "float64"}) {
        expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2", "--seq-first", "--precision", precision},
                       {"mha: query has shape (2, 0, 8): dimension T is 0", "with --seq-first the sequences are read (T, B, D)"},
                       out);
    }
}
