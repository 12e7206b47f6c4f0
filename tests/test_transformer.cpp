// Tests for attn/transformer.hpp: nn.Transformer (2 encoder and 2 decoder layers, encoder.norm and
// decoder.norm) on recorded float64 cases (tests/data/decoder/transformer-*, made by
// tools/make_decoder_fixtures.py), and its own checks.
#include <catch2/catch.hpp>
#include <cmath>
#include <tuple>

#include "attn/error.hpp"
#include "attn/transformer.hpp"
#include "support/state_dict.hpp"
#include "support/tensor_match.hpp"

namespace {

using namespace attn;

TransformerWeights transformer_weights_at(const testing::StateDict& tensors, std::size_t encoder_layers,
                                          std::size_t decoder_layers) {
    TransformerWeights w;
    for (std::size_t n = 0; n < encoder_layers; ++n) {
        w.encoder_layers.push_back(testing::encoder_layer_weights_at(tensors, "encoder.layers." + std::to_string(n) + "."));
    }
    for (std::size_t n = 0; n < decoder_layers; ++n) {
        w.decoder_layers.push_back(testing::decoder_layer_weights_at(tensors, "decoder.layers." + std::to_string(n) + "."));
    }
    w.encoder_norm = testing::layer_norm_at(tensors, "encoder.norm.");
    w.decoder_norm = testing::layer_norm_at(tensors, "decoder.norm.");
    return w;
}

// The recorded case's settings and masks: the decoder's as decoder_options_of reads them, and the
// encoder's src_mask and src_attention_mask.
TransformerOptions transformer_options_of(const std::string& name, const testing::StateDict& tensors) {
    const DecoderLayerOptions decoder = testing::decoder_options_of(name, tensors);
    TransformerOptions options(decoder.heads);
    std::tie(options.norm_first, options.eps, options.activation, options.causal) =
        std::make_tuple(decoder.norm_first, decoder.eps, decoder.activation, decoder.causal);
    std::tie(options.tgt_mask, options.tgt_attention_mask, options.memory_mask, options.memory_attention_mask) =
        std::make_tuple(decoder.tgt_mask, decoder.tgt_attention_mask, decoder.memory_mask, decoder.memory_attention_mask);
    options.src_mask = Tensor3(tensors.at("src_mask"));
    options.src_attention_mask = Matrix(tensors.at("src_attention_mask"));
    return options;
}

}  // namespace

TEST_CASE("the transformer matches torch.nn.Transformer on every recorded case", "[transformer][pytorch][lesson09]") {
    const auto cases = testing::decoder_cases("transformer-");
    REQUIRE(cases.size() == 2);
    for (const auto& name : cases) {
        DYNAMIC_SECTION(name) {
            const auto tensors = testing::read_state_dict(name);
            const auto weights = transformer_weights_at(tensors, 2, 2);
            auto options = transformer_options_of(name, tensors);
            const Tensor3 src(tensors.at("src")), tgt(tensors.at("tgt"));
            const auto result = transformer(src, tgt, weights, options);
            CHECK_TENSOR_CLOSE(tensors.at("expected_memory"), result.memory, 1e-12, 1e-10);
            CHECK_TENSOR_CLOSE(tensors.at("expected_output"), result.output, 1e-12, 1e-10);
            // The source's padding reaches the decoder only through memory_attention_mask, as in
            // PyTorch: without it the memory is the same and the output is not.
            options.memory_attention_mask.reset();
            const auto unmasked = transformer(src, tgt, weights, options);
            CHECK_TENSOR_CLOSE(result.memory, unmasked.memory, 0.0, 0.0);
            CHECK_FALSE(testing::match_tensors(tensors.at("expected_output"), unmasked.output, 1e-6, 1e-6).passed);
        }
    }
}

TEST_CASE("a transformer of zero layers is its two final norms", "[transformer][lesson09]") {
    TransformerWeights w;
    w.encoder_norm = {Vector{1, 2, 3, 4}, Vector{0, 0, 1, 1}};
    w.decoder_norm = {Vector{2, 2, 2, 2}, Vector{1, 0, 0, 0}};
    const Tensor3 src = {{{3, 1, 4, 1}, {0, 0, 0, 4}}}, tgt = {{{1, 0, 0, 0}}};
    TransformerOptions options(2);
    options.final_norm_eps = 0.3125;
    const auto r = transformer(src, tgt, w, options);
    // [3, 1, 4, 1]: mean 2.25, biased variance 1.6875; eps 0.3125 makes it 2, so entry 0 is 0.75 / √2.
    CHECK(r.memory(0, 0, 0) == Approx(0.75 / std::sqrt(2.0)).epsilon(1e-14));
    // [1, 0, 0, 0]: mean 0.25, variance 0.1875 + 0.3125 = 0.5: entry 0 is 2 · 0.75 / √0.5 + 1.
    CHECK(r.output(0, 0, 0) == Approx(2 * 0.75 / std::sqrt(0.5) + 1).epsilon(1e-14));
}

TEST_CASE("transformer errors name src and tgt", "[transformer][errors][lesson09]") {
    const TransformerWeights none;
    const TransformerOptions options(2);
    const Tensor3 src = xt::zeros<double>({2, 5, 4});
    CHECK_THROWS_WITH(transformer(src, xt::zeros<double>({3, 2, 4}), none, options),
                      Catch::Contains("src (2, 5, 4) (B, S, D) has B = 2 but tgt (3, 2, 4) (B, T, D) has B = 3"));
    CHECK_THROWS_WITH(transformer(src, xt::zeros<double>({2, 2, 6}), none, options),
                      Catch::Contains("src (2, 5, 4) (B, S, D) has D = 4 but tgt (2, 2, 6) (B, T, D) has D = 6"));
    CHECK_THROWS_WITH(transformer(src, xt::zeros<double>({2, 0, 4}), none, options),
                      Catch::Contains("transformer: tgt has shape (2, 0, 4): dimension T is 0"));
    CHECK_THROWS_WITH(transformer(xt::zeros<double>({2, 0, 4}), xt::zeros<double>({2, 2, 4}), none, options),
                      Catch::Contains("transformer: src has shape (2, 0, 4): dimension S is 0"));
    CHECK_THROWS_WITH(transformer(src, xt::zeros<double>({2, 2, 4}), none, TransformerOptions()),
                      Catch::Contains("transformer: the number of heads is not set"));
}
