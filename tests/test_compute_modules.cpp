// Tests for tutor/compute_modules.hpp: the shape legend rules shared by every module, and the
// dot module against values PyTorch computed (tests/data/compute/*, made by
// tools/make_compute_fixtures.py), including B = 1 and S = 1.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <xtensor/xview.hpp>

#include "attn/npy_tensor.hpp"
#include "support/tensor_match.hpp"
#include "tutor/compute_modules.hpp"

namespace {

using namespace attn::tutor;
namespace fs = std::filesystem;

attn::DynamicTensor load(const fs::path& path) { return attn::read_npy_tensor(path.string()); }

// Runs `module_name` on every tests/data/compute/<module_name>-* case and compares each output
// with PyTorch's (float32 in PyTorch for most cases, float64 in the library); returns the count.
std::size_t check_recorded_cases(const std::string& module_name) {
    const fs::path root = ATTN_SOURCE_DIR "/tests/data/compute";
    std::size_t cases = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(module_name + "-", 0) != 0) continue;
        ++cases;
        INFO("case " << name);
        const ComputeModule& module = find_compute_module(module_name);
        NamedTensors inputs;
        for (const auto& spec : module.inputs) inputs[spec.name] = load(entry.path() / "in" / (spec.name + ".npy"));
        const NamedTensors outputs = run_compute_module(module, inputs, {});
        for (const auto& spec : module.outputs) {
            INFO("output " << spec.name);
            CHECK_TENSOR_CLOSE(load(entry.path() / "expected" / (spec.name + ".npy")), outputs.at(spec.name), 1e-5, 1e-5);
        }
    }
    return cases;
}

}  // namespace

TEST_CASE("the luong module matches PyTorch on every recorded case", "[compute][pytorch][lesson02]") {
    CHECK(check_recorded_cases("luong") >= 5);  // batch4, b1, s1, b1-s1, float64
}

TEST_CASE("the bahdanau module matches PyTorch on every recorded case", "[compute][pytorch][lesson03]") {
    CHECK(check_recorded_cases("bahdanau") >= 5);  // batch4, b1, s1, b1-s1, float64
}

TEST_CASE("the luong and bahdanau modules name the weight and both shapes", "[compute][errors][lesson02][lesson03]") {
    const attn::DynamicTensor A = xt::zeros<double>({2, 3, 4}), b = xt::zeros<double>({2, 4});
    const ComputeModule& luong = find_compute_module("luong");
    CHECK_THROWS_WITH(validate_compute_inputs(luong, {{"encoder_outputs", A}, {"decoder_output", b}, {"W", xt::zeros<double>({4, 5})}}),
                      Catch::Contains("encoder_outputs (2, 3, 4) (B, S, H) has H = 4") &&
                          Catch::Contains("W (4, 5) (H, H) has H = 5"));
    CHECK_THROWS_WITH(validate_compute_inputs(luong, {{"encoder_outputs", A}, {"decoder_output", b}}),
                      Catch::Contains("missing input 'W' (H, H)"));

    const ComputeModule& bahdanau = find_compute_module("bahdanau");
    NamedTensors inputs = {{"encoder_outputs", A},
                           {"decoder_output", b},
                           {"W1", xt::zeros<double>({8, 8})},
                           {"b1", xt::zeros<double>({8})},
                           {"w2", xt::zeros<double>({1, 8})},
                           {"b2", xt::zeros<double>({1})}};
    CHECK_NOTHROW(validate_compute_inputs(bahdanau, inputs));
    inputs["b1"] = xt::zeros<double>({7});
    CHECK_THROWS_WITH(validate_compute_inputs(bahdanau, inputs),
                      Catch::Contains("encoder_outputs (2, 3, 4) (B, S, H) has H = 4") &&
                          Catch::Contains("b1 (7) (2H) has 2H = 7 (2H must be 8)"));
    inputs["b1"] = xt::zeros<double>({8});
    inputs["W1"] = xt::zeros<double>({8, 4});
    CHECK_THROWS_WITH(validate_compute_inputs(bahdanau, inputs), Catch::Contains("W1 (8, 4) (2H, 2H) has 2H = 4 (2H must be 8)"));
    inputs["W1"] = xt::zeros<double>({8, 8});
    inputs["b2"] = xt::zeros<double>({2});
    CHECK_THROWS_WITH(validate_compute_inputs(bahdanau, inputs), Catch::Contains("b2 (2) (1): dimension 0 must be 1, it is 2"));
}

TEST_CASE("the dot module matches PyTorch on every recorded case", "[compute][pytorch][lesson01]") {
    const fs::path root = ATTN_SOURCE_DIR "/tests/data/compute";
    std::size_t cases = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("dot-", 0) != 0) continue;
        ++cases;
        DYNAMIC_SECTION(name) {
            const ComputeModule& module = find_compute_module("dot");
            NamedTensors inputs;
            for (const auto& spec : module.inputs) inputs[spec.name] = load(entry.path() / "in" / (spec.name + ".npy"));
            const NamedTensors outputs = run_compute_module(module, inputs, {});
            for (const auto& spec : module.outputs) {
                INFO("output " << spec.name);
                // PyTorch computed in float32; the library in float64.
                CHECK_TENSOR_CLOSE(load(entry.path() / "expected" / (spec.name + ".npy")), outputs.at(spec.name), 1e-5, 1e-5);
            }
        }
    }
    CHECK(cases >= 5);
}

TEST_CASE("compute inputs are checked against the shape legend", "[compute][errors]") {
    const ComputeModule& dot = find_compute_module("dot");
    const attn::DynamicTensor A = xt::zeros<double>({2, 3, 4});
    CHECK_THROWS_WITH(validate_compute_inputs(dot, {{"encoder_outputs", A}}), Catch::Contains("missing input 'decoder_output' (B, H)"));
    CHECK_THROWS_WITH(validate_compute_inputs(dot, {{"encoder_outputs", A}, {"decoder_output", xt::zeros<double>({2, 5})}}),
                      Catch::Contains("encoder_outputs (2, 3, 4) (B, S, H) has H = 4") &&
                          Catch::Contains("decoder_output (2, 5) (B, H) has H = 5"));
    CHECK_THROWS_WITH(validate_compute_inputs(dot, {{"encoder_outputs", A}, {"decoder_output", xt::zeros<double>({3, 4})}}),
                      Catch::Contains("has B = 2") && Catch::Contains("has B = 3"));
    CHECK_THROWS_WITH(validate_compute_inputs(dot, {{"encoder_outputs", xt::zeros<double>({2, 4})}, {"decoder_output", xt::zeros<double>({2, 4})}}),
                      Catch::Contains("encoder_outputs has shape (2, 4) (rank 2) but dot needs rank 3: (B, S, H)"));
    CHECK_THROWS_WITH(validate_compute_inputs(dot, {{"encoder_outputs", xt::zeros<double>({2, 0, 4})}, {"decoder_output", xt::zeros<double>({2, 4})}}),
                      Catch::Contains("dimension S is 0"));
    attn::DynamicTensor with_nan = xt::zeros<double>({2, 4});
    with_nan(1, 2) = std::nan("");
    CHECK_THROWS_WITH(validate_compute_inputs(dot, {{"encoder_outputs", A}, {"decoder_output", with_nan}}),
                      Catch::Contains("decoder_output holds nan at [1, 2]"));
    CHECK_THROWS_WITH(find_compute_module("dott"), Catch::Contains("unknown module 'dott'") && Catch::Contains("dot"));
}

TEST_CASE("a result that overflows is refused rather than written as NaN", "[compute][errors]") {
    const ComputeModule& dot = find_compute_module("dot");
    const attn::DynamicTensor huge = xt::ones<double>({1, 2, 2}) * 1e200;
    const attn::DynamicTensor query = xt::ones<double>({1, 2}) * 1e200;
    CHECK_THROWS_WITH(run_compute_module(dot, {{"encoder_outputs", huge}, {"decoder_output", query}}, {}),
                      Catch::Contains("scores[0, 0] is inf, not a finite number"));
}

// ---------------------------------------------------------------------------------------------
// lessons/04-causal-self-attention and lessons/05-multi-head-attention: the self-attention and mha
// modules, whose recorded cases also carry options (MODULE-CASE/options.txt: heads=2, causal=1) and
// optional inputs (w_o, b_o, attention_mask).
namespace {

ComputeOptions read_options(const fs::path& case_dir) {
    ComputeOptions options;
    std::ifstream file(case_dir / "options.txt");
    for (std::string line; std::getline(file, line);) {
        const auto equals = line.find('=');
        if (equals == std::string::npos) continue;
        const std::string key = line.substr(0, equals), value = line.substr(equals + 1);
        if (key == "heads") options.heads = std::stoi(value);
        if (key == "causal") options.causal = value == "1";
        if (key == "causal_alignment") options.causal_alignment = value;
        if (key == "norm_first") options.norm_first = value == "1";
        if (key == "activation") options.activation = value;
        if (key == "eps") options.eps = std::stod(value);
        if (key == "no_output_projection") options.no_output_projection = value == "1";
    }
    return options;
}

NamedTensors load_inputs(const ComputeModule& module, const fs::path& case_dir) {
    NamedTensors inputs;
    for (const auto& spec : module.inputs) {
        const fs::path path = case_dir / "in" / (spec.name + ".npy");
        if (spec.required || fs::exists(path)) inputs[spec.name] = load(path);
    }
    return inputs;
}

// Every tests/data/compute/<module>-* case, with its options, against PyTorch's outputs.
std::size_t check_cases_with_options(const std::string& module_name, double absolute = 2e-6, double relative = 1e-5) {
    const fs::path root = ATTN_SOURCE_DIR "/tests/data/compute";
    const ComputeModule& module = find_compute_module(module_name);
    std::size_t cases = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(module_name + "-", 0) != 0) continue;
        ++cases;
        INFO("case " << name);
        REQUIRE(fs::exists(entry.path() / "options.txt"));
        const NamedTensors outputs = run_compute_module(module, load_inputs(module, entry.path()), read_options(entry.path()));
        for (const auto& spec : module.outputs) {
            INFO("output " << spec.name);
            // PyTorch computed most cases in float32; the library computes in float64.
            CHECK_TENSOR_CLOSE(load(entry.path() / "expected" / (spec.name + ".npy")), outputs.at(spec.name), absolute, relative);
        }
    }
    return cases;
}

const fs::path recorded = ATTN_SOURCE_DIR "/tests/data/compute";

}  // namespace

TEST_CASE("the self-attention module matches PyTorch on every recorded case", "[compute][pytorch][lesson04]") {
    // batch3, causal, cross (T != S), causal cross with T < S and T > S, B = 1 and T = 1, T = 1 cross, float64;
    // the bottom-right alignment: a KV cache (T < S), T > S (queries with no key), T = S
    CHECK(check_cases_with_options("self-attention") >= 11);
}

TEST_CASE("the mha module matches torch.nn.MultiheadAttention on every recorded case", "[compute][pytorch][lesson05]") {
    // self and cross with and without W_o, padding masks, causal (also with T != S and with left
    // padding), an empty sentence, B = 1 and T = 1, float64
    // and the bottom-right causal alignment over a KV cache with padding
    CHECK(check_cases_with_options("mha") >= 14);
}

TEST_CASE("the encoder-layer module matches torch.nn.TransformerEncoderLayer on every recorded case",
          "[compute][pytorch][lesson06]") {
    // post-norm and pre-norm, relu and gelu, B = 1, T = 1, a padding mask, another eps, float64.
    // Two layer norms and a feed-forward network in float32 leave PyTorch a few 1e-6 off.
    CHECK(check_cases_with_options("encoder-layer", 2e-5, 1e-4) >= 9);
}

TEST_CASE("mha gives a query whose keys are all masked weights of zero and output b_o", "[compute][mask][lesson05]") {
    const ComputeModule& mha = find_compute_module("mha");
    SECTION("an empty sentence without W_o: weights and output exactly zero") {
        const fs::path case_dir = recorded / "mha-empty-sentence-no-wo";
        const NamedTensors out = run_compute_module(mha, load_inputs(mha, case_dir), read_options(case_dir));
        const attn::DynamicTensor weights = xt::view(out.at("weights"), 1);  // sentence 1: every key padding
        const attn::DynamicTensor output = xt::view(out.at("output"), 1);
        CHECK(xt::all(xt::equal(weights, 0.0)));
        CHECK(xt::all(xt::equal(output, 0.0)));
        CHECK_FALSE(xt::any(xt::isnan(out.at("weights"))));
    }
    SECTION("left padding with the causal mask: the output of such a query is b_o") {
        const fs::path case_dir = recorded / "mha-causal-left-padding";
        const NamedTensors inputs = load_inputs(mha, case_dir);
        const NamedTensors out = run_compute_module(mha, inputs, read_options(case_dir));
        // Sentence 1 is padded on its first two keys: its queries 0 and 1 see nothing.
        for (std::size_t t : {0, 1}) {
            const attn::DynamicTensor row = xt::view(out.at("output"), 1, t);
            CHECK_TENSOR_CLOSE(inputs.at("b_o"), row, 0.0, 0.0);
            const attn::DynamicTensor weights = xt::view(out.at("weights"), 1, xt::all(), t);
            CHECK(xt::all(xt::equal(weights, 0.0)));
        }
        const attn::DynamicTensor seen = xt::view(out.at("weights"), 1, xt::all(), 2);
        CHECK(xt::sum(seen)() == Approx(2.0).margin(1e-12));  // two heads, each row sums to 1
    }
}

TEST_CASE("compute options are refused by modules that do not use them and required by mha", "[compute][errors][lesson05]") {
    ComputeOptions heads;
    heads.heads = 2;
    ComputeOptions causal;
    causal.causal = true;
    CHECK_THROWS_WITH(check_compute_options(find_compute_module("dot"), heads), Catch::Contains("dot has no heads"));
    CHECK_THROWS_WITH(check_compute_options(find_compute_module("self-attention"), heads),
                      Catch::Contains("self-attention has no heads") && Catch::Contains("--heads is for mha"));
    CHECK_THROWS_WITH(check_compute_options(find_compute_module("dot"), causal), Catch::Contains("dot has no causal mask"));
    CHECK_THROWS_WITH(check_compute_options(find_compute_module("mha"), causal),
                      Catch::Contains("mha needs the number of heads: add --heads h"));
    CHECK_NOTHROW(check_compute_options(find_compute_module("self-attention"), causal));
    heads.causal = true;
    CHECK_NOTHROW(check_compute_options(find_compute_module("mha"), heads));

    // --causal-alignment: only with --causal, only top-left or bottom-right.
    ComputeOptions aligned = causal;
    aligned.causal_alignment = "bottom-right";
    CHECK_NOTHROW(check_compute_options(find_compute_module("self-attention"), aligned));
    CHECK_THROWS_WITH(check_compute_options(find_compute_module("dot"), aligned), Catch::Contains("dot has no causal mask"));
    aligned.causal = false;
    CHECK_THROWS_WITH(check_compute_options(find_compute_module("self-attention"), aligned),
                      Catch::Contains("--causal-alignment bottom-right") && Catch::Contains("add --causal"));
    aligned.causal = true;
    aligned.causal_alignment = "diagonal";
    CHECK_THROWS_WITH(check_compute_options(find_compute_module("self-attention"), aligned),
                      Catch::Contains("unknown causal alignment 'diagonal'"));
}

TEST_CASE("mha inputs with wrong shapes or mask values are refused naming the tensors", "[compute][errors][lesson05]") {
    const ComputeModule& mha = find_compute_module("mha");
    const fs::path case_dir = recorded / "mha-padding";  // B = 3, T = S = 5, D = 8, heads = 2
    const NamedTensors good = load_inputs(mha, case_dir);
    ComputeOptions options = read_options(case_dir);
    REQUIRE_NOTHROW(run_compute_module(mha, good, options));

    NamedTensors inputs = good;
    options.heads = 3;
    CHECK_THROWS_WITH(run_compute_module(mha, inputs, options),
                      Catch::Contains("d_model D = 8") && Catch::Contains("query (3, 5, 8)") &&
                          Catch::Contains("not a multiple of the number of heads h = 3"));
    options.heads = 2;

    inputs["attention_mask"] = xt::ones<double>({3, 4});
    CHECK_THROWS_WITH(run_compute_module(mha, inputs, options),
                      Catch::Contains("key (3, 5, 8) (B, S, D) has S = 5") && Catch::Contains("attention_mask (3, 4) (B, S) has S = 4"));
    inputs["attention_mask"] = xt::ones<double>({3, 5});
    inputs["attention_mask"](1, 2) = 0.5;
    CHECK_THROWS_WITH(run_compute_module(mha, inputs, options),
                      Catch::Contains("attention_mask (3, 5) holds 0.5 at [1, 2]") &&
                          Catch::Contains("Hugging Face convention: 1 = attend to this key, 0 = padding") &&
                          Catch::Contains("holds only 0 and 1"));
    inputs = good;

    inputs["w_q"] = xt::zeros<double>({8, 6});
    CHECK_THROWS_WITH(run_compute_module(mha, inputs, options),
                      Catch::Contains("query (3, 5, 8) (B, T, D) has D = 8") && Catch::Contains("w_q (8, 6) (D, D) has D = 6"));
    inputs = good;
    inputs.erase("w_o");
    CHECK_THROWS_WITH(run_compute_module(mha, inputs, options),
                      Catch::Contains("missing weight 'w_o' (PyTorch's out_proj.weight), while b_o is given"));
    inputs.erase("b_o");
    CHECK_THROWS_WITH(run_compute_module(mha, inputs, options), Catch::Contains("or --no-output-projection"));
    options.no_output_projection = true;
    CHECK_NOTHROW(run_compute_module(mha, inputs, options));
}
