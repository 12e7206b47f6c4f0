// Bring your own PyTorch model, through the real `attn` program: PyTorch's mask conventions by
// name, packed in_proj weights, whole encoders, state_dicts in .npz archives, sequence-first
// tensors — each against PyTorch's recorded output (tools/make_interop_fixtures.py) — and every
// way of getting a convention or a name wrong, refused with exit 2 and a message that says what
// attn expected.
#include <catch2/catch.hpp>
#include <filesystem>
#include <cmath>
#include <fstream>
#include <limits>

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
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string& interop = attn::testing::interop_cases;

// A case's options.txt: the module, then its options, one per line.
std::vector<std::string> case_arguments(const std::string& folder, const std::string& out) {
    std::ifstream file(folder + "/options.txt");
    std::vector<std::string> lines;
    for (std::string line; std::getline(file, line);) lines.push_back(line);
    std::vector<std::string> arguments = {"compute", lines.at(0), "--in", folder + "/in", "--out", out};
    arguments.insert(arguments.end(), lines.begin() + 1, lines.end());
    if (fs::exists(folder + "/model.npz")) arguments.insert(arguments.end(), {"--weights", folder + "/model.npz"});
    return arguments;
}

void save(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values) {
    write_file(path, attn::encode_npy(shape, values, attn::NpyDtype::float32));
}

// A bool .npy, as numpy.save writes a torch bool tensor's .numpy().
void save_bool(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<int>& values) {
    std::string shape_text = "(";
    for (std::size_t axis : shape) shape_text += std::to_string(axis) + ", ";
    shape_text += ")";
    std::string header = "{'descr': '|b1', 'fortran_order': False, 'shape': " + shape_text + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xFF);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    for (int value : values) bytes += static_cast<char>(value);
    write_file(path, bytes);
}

}  // namespace

TEST_CASE("interop - every recorded PyTorch model is reproduced to 1e-5", "[cli][compute][interop]") {
    TempDir out;
    std::size_t cases = 0;
    for (const auto& entry : fs::directory_iterator(interop)) {
        if (!fs::exists(entry.path() / "options.txt")) continue;
        const std::string name = entry.path().filename().string(), results = out.path() + "/" + name;
        const auto r = run_attn(case_arguments(entry.path().string(), results));
        INFO(name << "\n" << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        const auto got = attn::testing::load_tensor(results + "/output.npy");
        const auto expected = attn::testing::load_tensor(entry.path().string() + "/expected/output.npy");
        CHECK_TENSOR_CLOSE(expected, got, 1e-5, 1e-5);
        ++cases;
    }
    // mha: packed weights with a bool key_padding_mask, a 3-D bool attn_mask, a float attn_mask with
    // an integer key_padding_mask, sequence-first; encoder: post- and pre-norm (stored and deflated
    // archives), sequence-first with a float mask; encoder-layer under its state_dict's names;
    // the settings a state_dict does not show (test_cli_pytorch_settings.cpp): mha with bias=False,
    // an encoder whose final norm has its own eps, an encoder layer with the tanh GELU.
    CHECK(cases == 11);
}

TEST_CASE("interop - a mask under PyTorch's name for another module is refused: did you mean", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir.path() + "/in"), out = dir.path() + "/out";
    fs::rename(in + "/key_padding_mask.npy", in + "/src_key_padding_mask.npy");
    expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2"},
                   {"src_key_padding_mask.npy is not an input of mha", "did you mean key_padding_mask",
                    "True/1 = ignore"},
                   out);
    // The other way round, for the encoder layer, and TransformerEncoder.forward's `mask`.
    TempDir layer;
    const std::string layer_in = attn::testing::copy_interop_inputs("encoder-layer-state-dict-names", layer.path() + "/in");
    fs::rename(layer_in + "/src_mask.npy", layer_in + "/attn_mask.npy");
    expect_refused({"compute", "encoder-layer", "--in", layer_in, "--out", out, "--heads", "2"},
                   {"attn_mask.npy is not an input of encoder-layer", "did you mean src_mask"}, out);
    fs::rename(layer_in + "/attn_mask.npy", layer_in + "/mask.npy");
    expect_refused({"compute", "encoder-layer", "--in", layer_in, "--out", out, "--heads", "2"},
                   {"did you mean src_mask"}, out);
    // A weight one letter off.
    fs::rename(layer_in + "/mask.npy", layer_in + "/src_mask.npy");
    fs::rename(layer_in + "/norm1.weight.npy", layer_in + "/norm1_wieght.npy");
    expect_refused({"compute", "encoder-layer", "--in", layer_in, "--out", out, "--heads", "2"},
                   {"norm1_wieght.npy is not an input of encoder-layer", "did you mean norm1_weight"}, out);
}

TEST_CASE("interop - two mask conventions at once are refused, naming both", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir.path() + "/in"), out = dir.path() + "/out";
    save(in + "/attention_mask.npy", {2, 4}, {1, 1, 0, 0, 1, 1, 1, 0});
    expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2"},
                   {"attention_mask (Hugging Face: 1 = attend)", "key_padding_mask (PyTorch: True = ignore)",
                    "two conventions"},
                   out);
}

TEST_CASE("interop - a mask value outside its convention says which convention attn expected", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir.path() + "/in"), out = dir.path() + "/out";
    const std::vector<std::string> run = {"compute", "mha", "--in", in, "--out", out, "--heads", "2"};
    fs::remove(in + "/key_padding_mask.npy");
    // PyTorch's additive padding saved as attention_mask: -inf is no 0/1.
    const double inf = std::numeric_limits<double>::infinity();
    save(in + "/attention_mask.npy", {2, 4}, {0, 0, -inf, -inf, 0, 0, 0, -inf});
    expect_refused(run, {"attention_mask (2, 4) holds -inf at [0, 2]", "Hugging Face convention: 1 = attend",
                         "key_padding_mask (True = ignore)"},
                   out);
    fs::remove(in + "/attention_mask.npy");
    // A float key_padding_mask of 0/1: PyTorch would add the 1 to the scores.
    save(in + "/key_padding_mask.npy", {2, 4}, {0, 0, 1, 1, 0, 0, 0, 1});
    expect_refused(run, {"key_padding_mask (2, 4) holds 1 at [0, 2]", "save the mask as bool"}, out);
    // The same as bool runs; as float 0/-inf too, with the same numbers.
    save_bool(in + "/key_padding_mask.npy", {2, 4}, {0, 0, 1, 1, 0, 0, 0, 1});
    REQUIRE(run_attn(run).exit_code == 0);
    const auto from_bool = attn::testing::load_tensor(out + "/output.npy");
    fs::remove_all(out);
    save(in + "/key_padding_mask.npy", {2, 4}, {0, 0, -inf, -inf, 0, 0, 0, -inf});
    REQUIRE(run_attn(run).exit_code == 0);
    CHECK_TENSOR_CLOSE(from_bool, attn::testing::load_tensor(out + "/output.npy"), 0.0, 0.0);
    fs::remove_all(out);
    fs::remove(in + "/key_padding_mask.npy");
    // attn_mask: NaN is no mask, and the shape must be (T, S) or (B·h, T, S).
    save(in + "/attn_mask.npy", {3, 4}, {0, 0, 0, 0, 0, std::nan(""), 0, 0, 0, 0, 0, 0});
    expect_refused(run, {"attn_mask (3, 4) holds nan at [1, 1]", "PyTorch's attn_mask"}, out);
    save(in + "/attn_mask.npy", {2, 3, 4}, std::vector<double>(24, 0.0));
    expect_refused(run, {"attn_mask (2, 3, 4) must be (T, S) = (3, 4) or (B·h, T, S) = (4, 3, 4)"}, out);
    // An additive -inf is a mask, not a non-finite input.
    std::vector<double> causal(12, 0.0);
    causal[1] = causal[2] = causal[3] = causal[6] = causal[7] = -inf;
    save(in + "/attn_mask.npy", {3, 4}, causal);
    CHECK(run_attn(run).exit_code == 0);
}

TEST_CASE("interop - packed and split weights together are refused", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string in = attn::testing::copy_interop_inputs("mha-packed-key-padding-mask", dir.path() + "/in"), out = dir.path() + "/out";
    save(in + "/w_q.npy", {8, 8}, std::vector<double>(64, 0.0));
    expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2"},
                   {"in_proj_weight (PyTorch's packed w_q; w_k; w_v) and w_q are the same weights given twice"}, out);
    fs::remove(in + "/w_q.npy");
    fs::remove(in + "/in_proj_weight.npy");
    expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2"},
                   {"missing weight 'w_q' (or PyTorch's packed in_proj_weight)"}, out);
    save(in + "/in_proj_weight.npy", {20, 8}, std::vector<double>(160, 0.0));
    expect_refused({"compute", "mha", "--in", in, "--out", out, "--heads", "2"}, {"in_proj_weight (20, 8)"}, out);
}

TEST_CASE("interop - hostile .npz archives are bad input naming the file and the member", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string in = dir.path() + "/in", out = dir.path() + "/out";
    fs::create_directories(in);
    const std::string npz = interop + "/npz/";
    const std::vector<std::pair<std::string, std::vector<std::string>>> archives = {
        {"corrupt-crc.npz", {"corrupt-crc.npz: member x.npy: CRC-32 mismatch"}},
        {"truncated.npz", {"truncated.npz: not an .npz archive"}},
        {"not-a-zip.npz", {"not-a-zip.npz: not an .npz archive"}},
        {"bomb.npz", {"bomb.npz: member x.npy: the zip directory says 33554576 bytes, the member's .npy header 144"}},
        {"bomb-lying-size.npz", {"bomb-lying-size.npz: member x.npy: inflates to more than the 144 bytes it declares"}},
    };
    for (const auto& [archive, fragments] : archives) {
        INFO(archive);
        expect_refused({"compute", "encoder", "--in", in, "--out", out, "--heads", "2", "--weights", npz + archive},
                       fragments, out);
    }
    // Found by the npz fuzzer: a deflated member that is not a .npy leaked zlib's stream, and its
    // message named the member without the archive.
    expect_refused({"compute", "encoder", "--in", in, "--out", out, "--heads", "2", "--weights",
                    ATTN_SOURCE_DIR "/tests/data/fuzz_regressions/npz-zlib-stream-leaked-on-a-bad-header.npz"},
                   {"npz-zlib-stream-leaked-on-a-bad-header.npz: member x.npy: not a .npy file"}, out);
    // The good archives are read, stored and deflated: their x is refused only for being given twice.
    save(in + "/x.npy", {2, 3}, {0, 1, 2, 3, 4, 5});
    for (const std::string archive : {"good.npz", "good-compressed.npz"}) {
        expect_refused({"compute", "encoder", "--in", in, "--out", out, "--heads", "2", "--weights", npz + archive},
                       {archive + "[x] and", "are both x; give it once"}, out);
    }
}

TEST_CASE("interop - --seq-first is for the sequence-first modules only", "[cli][compute][interop][errors]") {
    TempDir dir;
    const std::string out = dir.path() + "/out";
    expect_refused({"compute", "self-attention", "--in", dir.path(), "--out", out, "--seq-first"},
                   {"self-attention has no sequence-first layout", "mha, encoder-layer, encoder"}, out);
    // A batch-first case given --seq-first: its shapes no longer agree, and the message says how it read them.
    const auto r = run_attn({"compute", "mha", "--in", interop + "/mha-attn-mask-bool-3d/in", "--out", out, "--heads", "2",
                             "--weights", interop + "/mha-attn-mask-bool-3d/model.npz", "--seq-first"});
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("query (3, 2, 8) (B, T, D) has B = 3 but key (4, 2, 8) (B, S, D) has B = 4") &&
                          Catch::Contains("with --seq-first the sequences are read (T, B, D)"));
}
