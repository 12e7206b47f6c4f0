// Training's dropout factors for the float32 encoder-decoder model (seq2seq_model.hpp): the masks
// of the double path (attn/dropout.hpp, src/lib/seq2seq_transformer.cpp), drawn from the same
// generator in the same order, as float factors 0 or 1/(1 − p) that the passes multiply by.
#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "attn/dropout.hpp"
#include "seq2seq_model.hpp"

namespace attn::fast::detail {

namespace {

// `count` factors, each value kept when its draw u < 1 − p (one draw per value, row-major); p = 1
// draws nothing.
void draw(std::size_t count, const Dropout& dropout, std::vector<float>& factors) {
    factors.resize(count);
    if (dropout.p() >= 1.0) {
        std::fill(factors.begin(), factors.end(), 0.0f);
        return;
    }
    const double keep = 1.0 - dropout.p();
    const float scale = static_cast<float>(1.0 / keep);
    for (float& factor : factors) factor = dropout.next_unit() < keep ? scale : 0.0f;
}

}  // namespace

void draw_dropout(const ModelLayout& layout, std::size_t B, std::size_t S, std::size_t T, double p,
                  std::mt19937& generator, DropoutFactors& factors) {
    factors.active = p > 0.0;
    if (!factors.active) return;
    const Dropout dropout(p, generator);
    const std::size_t D = layout.D, F = layout.F, h = layout.heads;
    draw(B * S * D, dropout, factors.src_embedding);
    draw(B * T * D, dropout, factors.tgt_embedding);
    factors.encoder.resize(layout.encoder.size());
    for (EncoderLayerDropout& layer : factors.encoder) {
        draw(B * h * S * S, dropout, layer.weights);
        draw(B * S * D, dropout, layer.attention);
        draw(B * S * F, dropout, layer.hidden);
        draw(B * S * D, dropout, layer.output);
    }
    factors.decoder.resize(layout.decoder.size());
    for (DecoderLayerDropout& layer : factors.decoder) {
        draw(B * h * T * T, dropout, layer.self_weights);
        draw(B * T * D, dropout, layer.self_attention);
        draw(B * h * T * S, dropout, layer.cross_weights);
        draw(B * T * D, dropout, layer.cross_attention);
        draw(B * T * F, dropout, layer.hidden);
        draw(B * T * D, dropout, layer.output);
    }
}

}  // namespace attn::fast::detail
