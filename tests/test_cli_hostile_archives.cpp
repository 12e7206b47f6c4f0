// Hostile inputs, second round (issue 24), through the real `attn`: archives and .npy headers
// that used to give silent wrong answers, masks that overflow, numbers and sizes in options.
// The archives and headers are tests/data/hostile (written by its generate.py, read by NumPy
// as the comments say); each case checks the exit code, the message and that nothing was written.
#include <catch2/catch.hpp>

#include <cfloat>
#include <filesystem>
#include <string>
#include <vector>

#include "attn/npy.hpp"
#include "support/hostile_checks.hpp"
#include "support/temp_dir.hpp"

namespace {

using attn::testing::expect_refused;
using attn::testing::run_attn;
using attn::testing::snapshot;
using attn::testing::TempDir;
using attn::testing::write_file;
namespace fs = std::filesystem;

const std::string hostile = ATTN_SOURCE_DIR "/tests/data/hostile";
const std::string mha_inputs = ATTN_SOURCE_DIR "/tests/data/compute/mha-causal/in";

void save(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<double>& values) {
    write_file(path, attn::encode_npy(shape, values, attn::NpyDtype::float64));
}

// lessons/05-multi-head-attention's fixture without its output projection: what a member that is
// not read would leave.
std::string mha_without_output_projection(const TempDir& dir) {
    const std::string in = dir.path() + "/in";
    fs::create_directories(in);
    for (const auto& entry : fs::directory_iterator(mha_inputs)) {
        const std::string name = entry.path().filename().string();
        if (name != "w_o.npy" && name != "b_o.npy") fs::copy_file(entry.path(), in + "/" + name);
    }
    return in;
}

}  // namespace

TEST_CASE("hostile2 - an archive member under a folder is refused, never read as its bare name", "[cli][hostile]") {
    TempDir dir;
    const std::string in = mha_without_output_projection(dir), out = dir.path() + "/out";
    // NumPy reads these members as 'model/w_o' and '../w_o' (tests/data/hostile/generate.py).
    for (const auto& [archive, member] : {std::pair<std::string, std::string>{"member-in-folder.npz", "model/w_o.npy"},
                                          {"member-in-parent.npz", "../w_o.npy"}}) {
        INFO(archive);
        expect_refused({"compute", "mha", "--heads", "2", "--in", in, "--weights", hostile + "/" + archive, "--out", out},
                       {archive, "member " + member, "has a folder in it", "'w_o.npy'"});
        CHECK_FALSE(fs::exists(out));
    }
}

TEST_CASE("hostile2 - a member in other capitals is pointed at its input, never ignored", "[cli][hostile]") {
    TempDir dir;
    const std::string in = mha_without_output_projection(dir), out = dir.path() + "/out";
    expect_refused({"compute", "mha", "--heads", "2", "--in", in, "--weights", hostile + "/member-capitals.npz", "--out", out},
                   {"member-capitals.npz[Out_Proj.Weight]", "did you mean w_o", "nothing was computed"});
    // The same file name in the input folder.
    fs::copy_file(mha_inputs + "/w_o.npy", in + "/Out_Proj.Weight.npy");
    expect_refused({"compute", "mha", "--heads", "2", "--in", in, "--out", out}, {"Out_Proj.Weight.npy", "did you mean w_o"});
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("hostile2 - archives that would inflate past their limits are refused before inflating", "[cli][hostile]") {
    // 24 entries over one deflated member of 2 MiB; three members of 1 GiB each, 3 GiB in all,
    // over the 2 GiB + 1 MiB an archive may hold.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"overlapping-entries.npz", "the zip entries of members m0.npy and m1.npy overlap"},
        {"total-too-large.npz", "the members together claim more than 2148532224 bytes"},
    };
    TempDir dir;
    const std::string in = mha_without_output_projection(dir), out = dir.path() + "/out";
    for (const auto& [archive, fragment] : cases) {
        INFO(archive);
        expect_refused({"compute", "mha", "--heads", "2", "--in", in, "--weights", hostile + "/" + archive, "--out", out},
                       {hostile + "/" + archive + ": " + fragment});
    }
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("hostile2 - a .npy header with a key twice or a key NumPy refuses is refused", "[cli][hostile]") {
    // NumPy 1.24 reads the first three by their last value (shape (4,), fortran_order True, 12
    // float32) and refuses the last two: a reader keeping the first value disagrees with it.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"repeated-shape.npy", "the .npy header gives 'shape' twice"},
        {"repeated-fortran-order.npy", "the .npy header gives 'fortran_order' twice"},
        {"repeated-descr.npy", "the .npy header gives 'descr' twice"},
        {"unknown-key.npy", "the .npy header has an unknown key 'order'"},
        {"shape-not-a-tuple.npy", "shape is not a tuple"},
    };
    for (const auto& [file, fragment] : cases) {
        INFO(file);
        TempDir dir;
        const std::string html = dir.path() + "/w.html";
        expect_refused({"view", "--weights", hostile + "/" + file, "--html", html}, {file, fragment});
        CHECK_FALSE(fs::exists(html));
    }
}

TEST_CASE("hostile2 - a float mask that makes a score overflow is refused, not shared out", "[cli][hostile]") {
    // D = 2, one head, identity projections: every score is q·k/√2 = ±1e300/√2 ≈ ±7.07e299, finite
    // (the sign of the keys). Plus a mask of the same sign and 1.7976931348623157e308 (the largest
    // double), it is ±inf in float64.
    for (const double huge : {DBL_MAX, -DBL_MAX}) {
        INFO("mask " << huge);
        TempDir dir;
        const std::string in = dir.path() + "/in", out = dir.path() + "/out";
        fs::create_directories(in);
        save(in + "/query.npy", {1, 2, 2}, {1e150, 0, 1e150, 0});
        const double k = huge > 0 ? 1e150 : -1e150;
        save(in + "/key.npy", {1, 2, 2}, {k, 0, k, 0});
        save(in + "/value.npy", {1, 2, 2}, {1, 2, 3, 4});
        for (const char* w : {"w_q", "w_k", "w_v", "w_o"}) save(in + "/" + w + ".npy", {2, 2}, {1, 0, 0, 1});
        for (const char* b : {"b_q", "b_k", "b_v", "b_o"}) save(in + "/" + b + ".npy", {2}, {0, 0});
        save(in + "/attn_mask.npy", {2, 2}, {huge, 0, huge, huge});
        expect_refused({"compute", "mha", "--heads", "1", "--in", in, "--out", out},
                       {"mha: multi_head_attention: scores[0, 0, 0, 0] + the additive mask[0, 0, 0]",
                        huge > 0 ? "overflows to +inf" : "overflows to -inf", "scale the mask down"});
        CHECK_FALSE(fs::exists(out));
    }
}

TEST_CASE("hostile2 - numeric options refuse NaN and infinities, quoting the value given", "[cli][hostile]") {
    TempDir dir;
    for (const std::string value : {"nan", "NaN", "inf", "-inf", "1e999", "infinity"}) {
        INFO(value);
        expect_refused({"exercise", "1", "--time-limit", value}, {"--time-limit", "must be a finite number from 0.1 to 3600",
                                                                  "not '" + value + "'"});
        expect_refused({"compute", "encoder-layer", "--heads", "1", "--in", dir.path(), "--out", dir.path() + "/out", "--eps", value},
                       {"--eps", "must be a finite number greater than 0", "not '" + value + "'"});
    }
    expect_refused({"exercise", "1", "--time-limit", "0.05"}, {"--time-limit", "not '0.05'"});
    CHECK_FALSE(fs::exists(dir.path() + "/out"));
}

TEST_CASE("hostile2 - a huge --heads is reported with the value given, not a capped size", "[cli][hostile]") {
    // The fixtures have D = 8: h = 2^31 - 1 is named as typed, never as the capped 268435457.
    TempDir dir;
    const std::string huge = "2147483647", out = dir.path() + "/out";
    expect_refused({"compute", "mha", "--heads", huge, "--in", mha_inputs, "--out", out}, {"the number of heads h = " + huge});
    expect_refused({"compute", "encoder-layer", "--heads", huge, "--in", ATTN_SOURCE_DIR "/tests/data/compute/encoder-layer-b1/in",
                    "--out", out},
                   {"encoder-layer: --heads " + huge + " is more than the model width D = 8"});
    CHECK_FALSE(fs::exists(out));
}

TEST_CASE("hostile2 - compute encoder applies encoder-layer's limit on the (B, T, F) intermediate", "[cli][hostile]") {
    // B = 1, T = 4096, D = 1, h = 1 and F = 2^17: (B, T, F) holds 2^29 values, over the 2^28 limit,
    // from inputs of about 1 MiB. Both modules refuse it before allocating, with the same words.
    TempDir dir;
    const std::size_t T = 4096, F = std::size_t(1) << 17;
    const std::string layer = dir.path() + "/layer", stack = dir.path() + "/stack";
    fs::create_directories(layer);
    fs::create_directories(stack);
    auto weights = [&](const std::string& folder, const std::string& prefix) {
        for (const char* w : {"w_q", "w_k", "w_v", "w_o"}) save(folder + "/" + prefix + w + ".npy", {1, 1}, {1});
        for (const char* b : {"b_q", "b_k", "b_v", "b_o", "norm1_bias", "norm2_bias", "linear2_bias"}) {
            save(folder + "/" + prefix + b + ".npy", {1}, {0});
        }
        for (const char* n : {"norm1_weight", "norm2_weight"}) save(folder + "/" + prefix + n + ".npy", {1}, {1});
        save(folder + "/" + prefix + "linear1_weight.npy", {F, 1}, std::vector<double>(F, 0.0));
        save(folder + "/" + prefix + "linear1_bias.npy", {F}, std::vector<double>(F, 0.0));
        save(folder + "/" + prefix + "linear2_weight.npy", {1, F}, std::vector<double>(F, 0.0));
        save(folder + "/x.npy", {1, T, 1}, std::vector<double>(T, 1.0));
    };
    weights(layer, "");
    weights(stack, "layers_0_");
    for (const auto& [module, in] : {std::pair<std::string, std::string>{"encoder-layer", layer}, {"encoder", stack}}) {
        INFO(module);
        expect_refused({"compute", module, "--heads", "1", "--in", in, "--out", dir.path() + "/out"},
                       {module + ": an intermediate (B,T,F)", "(1, 4096, 131072)"});
    }
    CHECK_FALSE(fs::exists(dir.path() + "/out"));
}
