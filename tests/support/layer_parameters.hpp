// tests/support/layer_parameters.hpp — every parameter of an encoder layer, a decoder layer and
// nn.Transformer by name, and small seeded layers, for the backward tests that go through them all.
//
// The names are those of tests/data/backward (tools/make_backward_fixtures.py): w_q … b_o,
// norm1_weight …, linear2_bias; a decoder layer's attentions as self_attention_w_q …,
// cross_attention_w_q …; in nn.Transformer each layer's names after encoder0_ …, decoder1_ …, and
// encoder_norm_weight … for the final norms. The output projection w_o, b_o must be present.
//
//   attn::testing::each_decoder_parameter(weights, [](const std::string& name, auto& tensor) { … });
#pragma once

#include <cstdint>
#include <string>

#include "attn/transformer.hpp"
#include "support/gradient_check.hpp"

namespace attn::testing {

template <class Attention, class Visit>
void each_attention_parameter(Attention& a, const std::string& prefix, Visit visit) {
    visit(prefix + "w_q", a.w_q), visit(prefix + "w_k", a.w_k), visit(prefix + "w_v", a.w_v);
    visit(prefix + "b_q", a.b_q), visit(prefix + "b_k", a.b_k), visit(prefix + "b_v", a.b_v);
    visit(prefix + "w_o", *a.w_o), visit(prefix + "b_o", *a.b_o);
}

// The feed-forward network's parameters, which both layers name alike.
template <class Weights, class Visit>
void each_feed_forward_parameter(Weights& w, const std::string& prefix, Visit visit) {
    visit(prefix + "linear1_weight", w.linear1_weight), visit(prefix + "linear1_bias", w.linear1_bias);
    visit(prefix + "linear2_weight", w.linear2_weight), visit(prefix + "linear2_bias", w.linear2_bias);
}

template <class Weights, class Visit>  // Weights: (const) EncoderLayerWeights
void each_encoder_parameter(Weights& w, Visit visit, const std::string& prefix = "") {
    each_attention_parameter(w.attention, prefix, visit);
    visit(prefix + "norm1_weight", w.norm1_weight), visit(prefix + "norm1_bias", w.norm1_bias);
    visit(prefix + "norm2_weight", w.norm2_weight), visit(prefix + "norm2_bias", w.norm2_bias);
    each_feed_forward_parameter(w, prefix, visit);
}

template <class Weights, class Visit>  // Weights: (const) DecoderLayerWeights
void each_decoder_parameter(Weights& w, Visit visit, const std::string& prefix = "") {
    each_attention_parameter(w.self_attention, prefix + "self_attention_", visit);
    each_attention_parameter(w.cross_attention, prefix + "cross_attention_", visit);
    visit(prefix + "norm1_weight", w.norm1_weight), visit(prefix + "norm1_bias", w.norm1_bias);
    visit(prefix + "norm2_weight", w.norm2_weight), visit(prefix + "norm2_bias", w.norm2_bias);
    visit(prefix + "norm3_weight", w.norm3_weight), visit(prefix + "norm3_bias", w.norm3_bias);
    each_feed_forward_parameter(w, prefix, visit);
}

template <class Weights, class Visit>  // Weights: (const) TransformerWeights
void each_transformer_parameter(Weights& w, Visit visit) {
    for (std::size_t i = 0; i < w.encoder_layers.size(); ++i) {
        each_encoder_parameter(w.encoder_layers[i], visit, "encoder" + std::to_string(i) + "_");
    }
    visit("encoder_norm_weight", w.encoder_norm.first), visit("encoder_norm_bias", w.encoder_norm.second);
    for (std::size_t j = 0; j < w.decoder_layers.size(); ++j) {
        each_decoder_parameter(w.decoder_layers[j], visit, "decoder" + std::to_string(j) + "_");
    }
    visit("decoder_norm_weight", w.decoder_norm.first), visit("decoder_norm_bias", w.decoder_norm.second);
}

/// A layer's or a model's options as a tests/data/backward case gives them: heads, norm_first,
/// activation, eps.
template <class Options>  // EncoderLayerOptions, DecoderLayerOptions, TransformerOptions
Options layer_options_of(const BackwardCase& fixture) {
    Options options(std::stoul(fixture.options.at("heads")));
    options.norm_first = fixture.option("norm_first");
    options.activation = parse_activation(fixture.options.at("activation"));
    options.eps = std::stod(fixture.options.at("eps"));
    return options;
}

/// Weights with w_o and b_o present and empty, for a visitor to fill.
EncoderLayerWeights empty_encoder_layer();
DecoderLayerWeights empty_decoder_layer();

/// Values in [−1, 1) from a linear congruential generator: the same for the same seed everywhere.
class SeededValues {
public:
    explicit SeededValues(std::uint32_t seed) : state_(seed) {}
    double next();

private:
    std::uint32_t state_;
};

/// Small layers of width D and feed-forward width F from `values`: attention weights in
/// ±0.5, biases in ±0.1, norm weights 1 ± 0.3, linear1 ±0.5, linear2 ±0.4.
EncoderLayerWeights seeded_encoder_layer(SeededValues& values, std::size_t D, std::size_t F);
DecoderLayerWeights seeded_decoder_layer(SeededValues& values, std::size_t D, std::size_t F);

}  // namespace attn::testing
