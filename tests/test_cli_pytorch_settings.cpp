// PyTorch settings a state_dict does not show, through the real `attn` program: each is either
// expressed (bias=False, a final norm's own eps, the tanh GELU — their recorded PyTorch outputs
// are reproduced in test_cli_interop.cpp's loop over tests/data/interop; here, that leaving the
// setting out changes the numbers, so those cases can fail) or refused naming what the model has
// and what attn supports (add_bias_kv, kdim/vdim, a half-biased attention, a forgotten w_o), or
// stated (add_zero_attn, enable_nested_tensor) where attn cannot see it.
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
using attn::testing::load_tensor;
using attn::testing::run_attn;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string& interop = attn::testing::interop_cases;

void save(const std::string& path, const std::vector<std::size_t>& shape, double value) {
    std::size_t count = 1;
    for (std::size_t axis : shape) count *= axis;
    write_file(path, attn::encode_npy(shape, std::vector<double>(count, value), attn::NpyDtype::float32));
}

template <class Tensor>
double largest_difference(const Tensor& a, const Tensor& b) {
    REQUIRE(a.shape() == b.shape());
    double largest = 0;
    for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a.data()[i] - b.data()[i]));
    return largest;
}

// attn compute on a recorded case with `options` instead of its own; the largest difference from
// PyTorch's output.
double difference_with(const std::string& name, const std::string& module, const std::vector<std::string>& options) {
    TempDir out;
    std::vector<std::string> arguments = {"compute", module, "--in", interop + "/" + name + "/in", "--out", out.path() + "/r",
                                          "--weights", interop + "/" + name + "/model.npz"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    const auto r = run_attn(arguments);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return largest_difference(load_tensor(interop + "/" + name + "/expected/output.npy"), load_tensor(out.path() + "/r/output.npy"));
}

}  // namespace

TEST_CASE("pytorch settings - each expressed setting matters: left out, the output is far from PyTorch's",
          "[cli][compute][interop]") {
    // The recorded cases run with their options in test_cli_interop.cpp (to 1e-5); the same runs
    // without the setting miss by far more, so those comparisons can fail.
    CHECK(difference_with("encoder-norm-eps", "encoder", {"--heads", "2", "--eps", "1e-06", "--norm-eps", "0.01"}) < 1e-5);
    CHECK(difference_with("encoder-norm-eps", "encoder", {"--heads", "2", "--eps", "1e-06"}) > 1e-3);
    CHECK(difference_with("encoder-layer-gelu-tanh", "encoder-layer", {"--heads", "2", "--activation", "gelu-tanh"}) < 1e-5);
    CHECK(difference_with("encoder-layer-gelu-tanh", "encoder-layer", {"--heads", "2", "--activation", "gelu"}) > 1e-4);
}

TEST_CASE("pytorch settings - --norm-eps is the encoder's final norm's, and only there", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    const std::string layer = interop + "/encoder-layer-state-dict-names/in";
    expect_refused({"compute", "encoder-layer", "--in", layer, "--out", out, "--heads", "2", "--norm-eps", "0.01"},
                   {"encoder-layer has no final norm: --norm-eps is for encoder"}, out);
    expect_refused({"compute", "mha", "--in", layer, "--out", out, "--heads", "2", "--norm-eps", "0.01"},
                   {"--norm-eps"}, out);
    const std::vector<std::string> encoder = {"compute", "encoder", "--in", interop + "/encoder-norm-eps/in", "--out", out,
                                              "--heads", "2", "--weights", interop + "/encoder-norm-eps/model.npz"};
    auto with = [&](std::vector<std::string> extra) {
        auto arguments = encoder;
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return arguments;
    };
    expect_refused(with({"--norm-eps", "0"}), {"--norm-eps: must be a finite number greater than 0, not '0'"}, out);
    // An encoder without a final norm: the option would change nothing, so it is refused.
    const std::string in = dir.path() + "/in";
    fs::create_directories(in);
    for (const auto& entry : fs::directory_iterator(layer)) {
        const std::string name = entry.path().filename().string();
        const bool weight = name != "x.npy" && name != "src_mask.npy";
        fs::copy_file(entry.path(), in + "/" + (weight ? "layers.0." : "") + name);
    }
    CHECK(run_attn({"compute", "encoder", "--in", in, "--out", dir.path() + "/ran", "--heads", "2"}).exit_code == 0);
    expect_refused({"compute", "encoder", "--in", in, "--out", out, "--heads", "2", "--norm-eps", "0.01"},
                   {"--norm-eps sets the final norm's eps, and there is no final norm (norm_weight, norm_bias)"}, out);
}

TEST_CASE("pytorch settings - an unknown activation names the three attn reads", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    expect_refused({"compute", "encoder-layer", "--in", interop + "/encoder-layer-gelu-tanh/in", "--out", out, "--heads", "2",
                    "--weights", interop + "/encoder-layer-gelu-tanh/model.npz", "--activation", "gelu_approximate"},
                   {"unknown activation 'gelu_approximate'", "gelu-tanh"}, out);
}

TEST_CASE("pytorch settings - add_bias_kv and kdim/vdim are refused naming what the model has",
          "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir.path() + "/in"), out = dir.path() + "/out";
    const std::vector<std::string> run = {"compute", "mha", "--in", in, "--out", out, "--heads", "2"};
    save(in + "/bias_k.npy", {1, 1, 8}, 0.5);
    expect_refused(run, {"bias_k.npy is nn.MultiheadAttention's add_bias_kv=True", "attn does not support add_bias_kv"}, out);
    fs::remove(in + "/bias_k.npy");
    // kdim = vdim = 4 ≠ embed_dim 8: PyTorch stores q_proj_weight (8, 8), k_proj_weight (8, 4), v_proj_weight (8, 4).
    fs::remove(in + "/in_proj_weight.npy");
    save(in + "/q_proj_weight.npy", {8, 8}, 0.1);
    save(in + "/k_proj_weight.npy", {8, 4}, 0.1);
    save(in + "/v_proj_weight.npy", {8, 4}, 0.1);
    expect_refused(run, {"k_proj_weight.npy is one of nn.MultiheadAttention's separate projections",
                         "kdim or vdim differs from embed_dim", "attn supports key and value of the model width D only"},
                   out);
}

TEST_CASE("pytorch settings - bias=False runs; a half-biased attention is refused", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    // mha-bias-false (no in_proj_bias, no out_proj.bias) runs in test_cli_interop.cpp's loop; with
    // only out_proj.bias, or two of the three split biases, it is refused.
    const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir.path() + "/in");
    const std::vector<std::string> run = {"compute", "mha", "--in", in, "--out", out, "--heads", "2"};
    fs::remove(in + "/in_proj_bias.npy");
    expect_refused(run, {"b_o (out_proj.bias) is given without the in-projection biases", "bias=True", "bias=False"}, out);
    save(in + "/b_q.npy", {8}, 0.1);
    save(in + "/b_v.npy", {8}, 0.1);
    expect_refused(run, {"missing b_k: give b_q, b_k and b_v (or PyTorch's packed in_proj_bias), or none"}, out);
    // An encoder layer without any attention bias: PyTorch 2.1's bias=False, which encoder-layer does not read.
    const std::string layer = attn::testing::copy_interop_inputs("encoder-layer-state-dict-names", dir.path() + "/layer");
    fs::remove(layer + "/self_attn.in_proj_bias.npy");
    fs::remove(layer + "/self_attn.out_proj.bias.npy");
    expect_refused({"compute", "encoder-layer", "--in", layer, "--out", out, "--heads", "2"},
                   {"the attention has no biases", "bias=False", "mha reads nn.MultiheadAttention(bias=False)"}, out);
}

TEST_CASE("pytorch settings - a missing w_o is refused unless --no-output-projection says so",
          "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir.path() + "/in"), out = dir.path() + "/out";
    const std::vector<std::string> run = {"compute", "mha", "--in", in, "--out", out, "--heads", "2"};
    fs::remove(in + "/w_o.npy");
    expect_refused(run, {"missing weight 'w_o' (PyTorch's out_proj.weight), while b_o is given", "--no-output-projection"}, out);
    auto explicit_run = run;
    explicit_run.push_back("--no-output-projection");
    expect_refused(explicit_run, {"--no-output-projection and b_o are both given"}, out);
    fs::remove(in + "/b_o.npy");
    expect_refused(run, {"missing weight 'w_o'", "or --no-output-projection for a block without an output projection"}, out);
    const auto r = run_attn(explicit_run);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    expect_refused({"compute", "encoder-layer", "--in", in, "--out", dir.path() + "/none", "--heads", "2",
                    "--no-output-projection"},
                   {"encoder-layer does not choose its output projection: --no-output-projection is for mha"},
                   dir.path() + "/none");
}

TEST_CASE("pytorch settings - enable_nested_tensor: PyTorch's padded rows are norm(0), the others agree",
          "[cli][compute][interop]") {
    // tests/data/interop/nested: nn.TransformerEncoder with its default enable_nested_tensor=True,
    // in eval mode under no_grad, with a src_key_padding_mask (sequence 1's last two positions).
    TempDir out;
    const std::string folder = interop + "/nested";
    const auto r = run_attn({"compute", "encoder", "--in", folder + "/in", "--out", out.path() + "/r", "--heads", "2",
                             "--weights", folder + "/model.npz"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto got = load_tensor(out.path() + "/r/output.npy");
    const auto nested = load_tensor(folder + "/expected/output.npy");
    const auto not_nested = load_tensor(folder + "/expected/output_not_nested.npy");
    const std::size_t D = got.shape(2);
    // attn computes every position, as PyTorch does without nested tensors.
    CHECK_TENSOR_CLOSE(not_nested, got, 1e-5, 1e-5);
    double kept = 0, padded_apart = 0;
    for (std::size_t b = 0; b < 2; ++b) {
        for (std::size_t t = 0; t < 4; ++t) {
            const bool padding = b == 1 && t >= 2;
            for (std::size_t d = 0; d < D; ++d) {
                const double difference = std::abs(got(b, t, d) - nested(b, t, d));
                if (padding) {
                    padded_apart = std::max(padded_apart, difference);
                    CHECK(nested(b, t, d) == nested(1, 2, d));  // every padded row is norm.bias
                } else {
                    kept = std::max(kept, difference);
                }
            }
        }
    }
    CHECK(kept < 1e-5);           // positions that are not padding agree
    CHECK(padded_apart > 0.1);    // padded positions do not, and must be left out of a comparison
}

TEST_CASE("pytorch settings - attn compute --help states what a state_dict does not show", "[cli][compute][interop]") {
    const auto r = run_attn({"compute", "--help"});
    REQUIRE(r.exit_code == 0);
    for (const char* fragment :
         {"add_zero_attn=True (nn.MultiheadAttention) leaves no trace in the weights and attn does\n"
          "    not support it", "add_bias_kv (bias_k, bias_v) and kdim/vdim", "--norm-eps", "gelu-tanh",
          "enable_nested_tensor=True", "--no-output-projection",
          "--heads", "Number of heads h (mha, encoder-layer, encoder"}) {
        CHECK_THAT(r.out, Catch::Contains(fragment));
    }
}
