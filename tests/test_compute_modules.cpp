// Tests for tutor/compute_modules.hpp: the shape legend rules shared by every module, and the
// dot module against values PyTorch computed (tests/data/compute/*, made by
// tools/make_compute_fixtures.py), including B = 1 and S = 1.
#include <catch2/catch.hpp>
#include <filesystem>

#include "attn/npy.hpp"
#include "support/tensor_match.hpp"
#include "tutor/compute_modules.hpp"

namespace {

using namespace attn::tutor;
namespace fs = std::filesystem;

attn::DynamicTensor load(const fs::path& path) {
    const attn::NpyArray array = attn::read_npy(path.string());
    attn::DynamicTensor tensor = attn::DynamicTensor::from_shape(array.shape);
    std::copy(array.values.begin(), array.values.end(), tensor.begin());
    return tensor;
}

}  // namespace

TEST_CASE("the dot module matches PyTorch on every recorded case", "[compute][pytorch]") {
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
                      Catch::Contains("decoder_output holds a non-finite value") && Catch::Contains("flat index 6"));
    CHECK_THROWS_WITH(find_compute_module("dott"), Catch::Contains("unknown module 'dott'") && Catch::Contains("dot"));
}

TEST_CASE("a result that overflows is refused rather than written as NaN", "[compute][errors]") {
    const ComputeModule& dot = find_compute_module("dot");
    const attn::DynamicTensor huge = xt::ones<double>({1, 2, 2}) * 1e200;
    const attn::DynamicTensor query = xt::ones<double>({1, 2}) * 1e200;
    CHECK_THROWS_WITH(run_compute_module(dot, {{"encoder_outputs", huge}, {"decoder_output", query}}, {}),
                      Catch::Contains("not finite"));
}
