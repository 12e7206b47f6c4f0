// Tests for attn/encoder_layer.hpp: the two orders of norm and residual, by hand on a layer whose
// sub-layers are easy to predict, and against torch.nn.TransformerEncoderLayer on recorded cases
// (tests/data/compute/encoder-layer-*, made by tools/make_compute_fixtures.py).
#include <catch2/catch.hpp>
#include <cmath>

#include "attn/encoder_layer.hpp"
#include "attn/error.hpp"
#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"
#include "tutor/named_weights.hpp"

namespace {

using namespace attn;

// A layer whose attention and feed-forward sub-layers both output zero (all weights and biases
// zero): the layer is then only its residual connections and norms.
EncoderLayerWeights silent_layer(std::size_t D, std::size_t F) {
    EncoderLayerWeights w;
    w.attention.w_q = w.attention.w_k = w.attention.w_v = xt::zeros<double>({D, D});
    w.attention.b_q = w.attention.b_k = w.attention.b_v = xt::zeros<double>({D});
    w.attention.w_o = Matrix(xt::zeros<double>({D, D}));
    w.attention.b_o = Vector(xt::zeros<double>({D}));
    w.norm1_weight = w.norm2_weight = xt::ones<double>({D});
    w.norm1_bias = w.norm2_bias = xt::zeros<double>({D});
    w.linear1_weight = xt::zeros<double>({F, D});
    w.linear1_bias = xt::zeros<double>({F});
    w.linear2_weight = xt::zeros<double>({D, F});
    w.linear2_bias = xt::zeros<double>({D});
    return w;
}

// A recorded case's weights: every in/<name>.npy, by name.
EncoderLayerWeights load_weights(const std::filesystem::path& in) {
    tutor::NamedTensors files;
    for (const auto& entry : std::filesystem::directory_iterator(in)) files[entry.path().stem().string()] = testing::load_tensor(entry.path());
    return tutor::encoder_layer_weights_from(files);
}

}  // namespace

TEST_CASE("with silent sub-layers post-norm is two layer norms and pre-norm is the identity", "[encoder_layer][lesson06]") {
    const Tensor3 x = {{{1, 0, 0, 0}, {2, 4, 6, 8}}};
    EncoderLayerOptions options;
    options.heads = 2;
    const auto post = transformer_encoder_layer(x, silent_layer(4, 3), options);
    // norm(norm(x)) = norm(x) up to eps: the first row is lessons/06-encoder-layer's [1.732,
    // −0.577, −0.577, −0.577].
    const Tensor3 once = layer_norm(x, xt::ones<double>({4}), xt::zeros<double>({4}));
    CHECK_TENSOR_CLOSE(once, post.after_attention, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(once, post.output, 1e-4, 1e-4);
    CHECK(post.output(0, 0, 0) == Approx(1.7320).margin(1e-3));
    options.norm_first = true;
    const auto pre = transformer_encoder_layer(x, silent_layer(4, 3), options);
    CHECK_TENSOR_CLOSE(x, pre.output, 0.0, 0.0);  // x + 0 + 0: the residual path carries x untouched
    CHECK_TENSOR_CLOSE(once, pre.attention_input, 0.0, 0.0);
}

TEST_CASE("the encoder layer matches torch.nn.TransformerEncoderLayer on every recorded case",
          "[encoder_layer][pytorch][lesson06]") {
    const auto cases = testing::fixture_cases("encoder-layer");
    REQUIRE(cases.size() >= 6);
    for (const auto& dir : cases) {
        DYNAMIC_SECTION(dir.filename().string()) {
            const auto settings = testing::read_key_values(dir / "options.txt");
            EncoderLayerOptions options;
            options.heads = std::stoul(settings.at("heads"));
            options.norm_first = settings.at("norm_first") == "1";
            options.activation = parse_activation(settings.at("activation"));
            options.eps = std::stod(settings.at("eps"));
            if (std::filesystem::exists(dir / "in" / "attention_mask.npy")) {
                options.attention_mask = Matrix(testing::load_tensor(dir / "in" / "attention_mask.npy"));
            }
            const Tensor3 x = testing::load_tensor(dir / "in" / "x.npy");
            const auto step = transformer_encoder_layer(x, load_weights(dir / "in"), options);
            // PyTorch computed in the file's dtype (mostly float32); the library in float64.
            CHECK_TENSOR_CLOSE(testing::load_tensor(dir / "expected" / "output.npy"), step.output, 2e-5, 1e-4);
        }
    }
}

TEST_CASE("a stack of zero layers with a final norm is that norm", "[encoder_layer][lesson06]") {
    const Tensor3 x = {{{3, 1, 4, 1}}};
    const Vector weight = {1, 2, 3, 4}, bias = {0, 0, 1, 1};
    EncoderLayerOptions options;
    CHECK_TENSOR_CLOSE(layer_norm(x, weight, bias), transformer_encoder(x, {}, options, std::make_pair(weight, bias)), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(x, transformer_encoder(x, {}, options), 0.0, 0.0);
    // The final norm's own eps: on [3, 1, 4, 1] (mean 2.25, biased variance 1.6875) eps = 0.3125
    // makes the variance 2, so the first entry is 0.75 / √2 · 1 + 0.
    const Tensor3 wide_eps = transformer_encoder(x, {}, options, std::make_pair(weight, bias), 0.3125);
    CHECK(wide_eps(0, 0, 0) == Approx(0.75 / std::sqrt(2.0)).epsilon(1e-14));
    CHECK_TENSOR_CLOSE(layer_norm(x, weight, bias, 0.3125), wide_eps, 0.0, 0.0);
    CHECK_THROWS_WITH(transformer_encoder(x, {}, options, std::make_pair(weight, bias), 0.0),
                      Catch::Contains("final_norm_eps must be a positive number"));
}

TEST_CASE("the number of heads must be given, as nn.TransformerEncoderLayer's nhead", "[encoder_layer][errors][lesson06]") {
    const Tensor3 x = {{{1, 0, 0, 0}, {2, 4, 6, 8}}};
    EncoderLayerOptions forgotten;
    CHECK_THROWS_WITH(transformer_encoder_layer(x, silent_layer(4, 3), forgotten),
                      Catch::Contains("transformer_encoder_layer: the number of heads is not set"));
    CHECK_THROWS_WITH(transformer_encoder(x, {silent_layer(4, 3)}, forgotten), Catch::Contains("the number of heads is not set"));
    const EncoderLayerOptions two(2);
    CHECK(two.heads == 2);
    CHECK_NOTHROW(transformer_encoder_layer(x, silent_layer(4, 3), two));
}

TEST_CASE("encoder layer errors name the tensor and refuse eps of zero", "[encoder_layer][errors][lesson06]") {
    const Tensor3 x = xt::zeros<double>({1, 2, 4});
    EncoderLayerOptions options;
    options.heads = 2;
    EncoderLayerWeights w = silent_layer(4, 3);
    w.norm2_bias = xt::zeros<double>({3});
    CHECK_THROWS_WITH(transformer_encoder_layer(x, w, options), Catch::Contains("x (1, 2, 4) (B, T, D) has D = 4 but norm2_bias (3) (D) has D = 3"));
    options.eps = 0.0;
    CHECK_THROWS_WITH(transformer_encoder_layer(x, silent_layer(4, 3), options), Catch::Contains("eps must be a positive number"));
    options.eps = 1e-5;
    options.heads = 3;
    CHECK_THROWS_AS(transformer_encoder_layer(x, silent_layer(4, 3), options), ShapeError);
    w = silent_layer(4, 3);
    w.linear2_weight = xt::zeros<double>({4, 5});
    options.heads = 2;
    CHECK_THROWS_WITH(transformer_encoder_layer(x, w, options), Catch::Contains("linear1_weight (3, 4) (F, D) has F = 3 but linear2_weight (4, 5) (D, F) has F = 5"));
}

TEST_CASE("an encoder layer whose scores overflow is an error naming them", "[encoder_layer][errors][lesson06]") {
    // Identity projections: the scores are x · x / √d_k, which overflows float64 at 1e160.
    EncoderLayerWeights w = silent_layer(4, 3);
    w.attention.w_q = w.attention.w_k = w.attention.w_v = xt::eye<double>(4);
    EncoderLayerOptions options;
    options.heads = 2;
    const Tensor3 x = xt::ones<double>({1, 2, 4}) * 1e160;
    CHECK_THROWS_WITH(transformer_encoder_layer(x, w, options),
                      Catch::StartsWith("multi_head_attention: scores[0, 0, 0, 0] is inf, not a finite number"));
}
