#include "support/layer_parameters.hpp"

#include <vector>
#include <xtensor/xbuilder.hpp>

namespace attn::testing {
namespace {

template <class Tensor>
void fill(SeededValues& values, Tensor& tensor, std::vector<std::size_t> shape, double scale, double offset) {
    tensor = xt::zeros<double>(shape);
    for (double& value : tensor) value = offset + scale * values.next();
}

void fill_attention(SeededValues& values, MultiHeadAttentionWeights& a, std::size_t D) {
    a.w_o = Matrix(), a.b_o = Vector();
    for (Matrix* m : {&a.w_q, &a.w_k, &a.w_v, &*a.w_o}) fill(values, *m, {D, D}, 0.5, 0.0);
    for (Vector* b : {&a.b_q, &a.b_k, &a.b_v, &*a.b_o}) fill(values, *b, {D}, 0.1, 0.0);
}

template <class Weights>
void fill_feed_forward(SeededValues& values, Weights& w, std::size_t D, std::size_t F) {
    fill(values, w.linear1_weight, {F, D}, 0.5, 0.0), fill(values, w.linear1_bias, {F}, 0.1, 0.0);
    fill(values, w.linear2_weight, {D, F}, 0.4, 0.0), fill(values, w.linear2_bias, {D}, 0.1, 0.0);
}

}  // namespace

double SeededValues::next() {
    state_ = state_ * 1664525u + 1013904223u;
    return double(state_ >> 8) / double(1u << 23) - 1.0;
}

EncoderLayerWeights empty_encoder_layer() {
    EncoderLayerWeights w;
    w.attention.w_o = Matrix(), w.attention.b_o = Vector();
    return w;
}

DecoderLayerWeights empty_decoder_layer() {
    DecoderLayerWeights w;
    w.self_attention.w_o = Matrix(), w.self_attention.b_o = Vector();
    w.cross_attention.w_o = Matrix(), w.cross_attention.b_o = Vector();
    return w;
}

EncoderLayerWeights seeded_encoder_layer(SeededValues& values, std::size_t D, std::size_t F) {
    EncoderLayerWeights w;
    fill_attention(values, w.attention, D);
    fill(values, w.norm1_weight, {D}, 0.3, 1.0), fill(values, w.norm2_weight, {D}, 0.3, 1.0);
    fill(values, w.norm1_bias, {D}, 0.1, 0.0), fill(values, w.norm2_bias, {D}, 0.1, 0.0);
    fill_feed_forward(values, w, D, F);
    return w;
}

DecoderLayerWeights seeded_decoder_layer(SeededValues& values, std::size_t D, std::size_t F) {
    DecoderLayerWeights w;
    fill_attention(values, w.self_attention, D);
    fill_attention(values, w.cross_attention, D);
    for (Vector* weight : {&w.norm1_weight, &w.norm2_weight, &w.norm3_weight}) fill(values, *weight, {D}, 0.3, 1.0);
    for (Vector* bias : {&w.norm1_bias, &w.norm2_bias, &w.norm3_bias}) fill(values, *bias, {D}, 0.1, 0.0);
    fill_feed_forward(values, w, D, F);
    return w;
}

}  // namespace attn::testing
