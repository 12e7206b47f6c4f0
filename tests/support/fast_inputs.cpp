#include "support/fast_inputs.hpp"

namespace attn::testing {

fast::AttentionParameters random_fast_parameters(std::mt19937& generator, std::size_t D, bool output_projection) {
    const float scale = 1.0f / std::sqrt(float(D));
    fast::AttentionParameters p;
    p.w_q = random_float<2>(generator, {D, D}, scale);
    p.w_k = random_float<2>(generator, {D, D}, scale);
    p.w_v = random_float<2>(generator, {D, D}, scale);
    p.b_q = random_float<1>(generator, {D}, scale);
    p.b_k = random_float<1>(generator, {D}, scale);
    p.b_v = random_float<1>(generator, {D}, scale);
    if (output_projection) {
        p.w_o = random_float<2>(generator, {D, D}, scale);
        p.b_o = random_float<1>(generator, {D}, scale);
    }
    p.no_output_projection = !output_projection;
    return p;
}

fast::EncoderLayerParameters random_fast_layer(std::mt19937& generator, std::size_t D, std::size_t F) {
    fast::EncoderLayerParameters p;
    p.attention = random_fast_parameters(generator, D, true);
    p.norm1_weight = random_float<1>(generator, {D});
    p.norm1_bias = random_float<1>(generator, {D});
    p.norm2_weight = random_float<1>(generator, {D});
    p.norm2_bias = random_float<1>(generator, {D});
    p.linear1_weight = random_float<2>(generator, {F, D}, 1.0f / std::sqrt(float(D)));
    p.linear1_bias = random_float<1>(generator, {F});
    p.linear2_weight = random_float<2>(generator, {D, F}, 1.0f / std::sqrt(float(F)));
    p.linear2_bias = random_float<1>(generator, {D});
    return p;
}

namespace {

Vector widen_or_zeros(const std::optional<fast::Vector>& bias, std::size_t size) {
    return bias ? Vector(widen(*bias)) : Vector(xt::zeros<double>({size}));
}

}  // namespace

MultiHeadAttentionWeights lesson_weights(const fast::AttentionParameters& fast) {
    const std::size_t D = fast.w_q.shape(0);
    MultiHeadAttentionWeights lesson;
    lesson.w_q = widen(fast.w_q);
    lesson.w_k = widen(fast.w_k);
    lesson.w_v = widen(fast.w_v);
    lesson.b_q = widen_or_zeros(fast.b_q, D);
    lesson.b_k = widen_or_zeros(fast.b_k, D);
    lesson.b_v = widen_or_zeros(fast.b_v, D);
    lesson.no_output_projection = fast.no_output_projection;
    if (fast.w_o) lesson.w_o = Matrix(widen(*fast.w_o));
    if (fast.b_o) lesson.b_o = Vector(widen(*fast.b_o));
    return lesson;
}

EncoderLayerWeights lesson_weights(const fast::EncoderLayerParameters& fast) {
    EncoderLayerWeights lesson;
    lesson.attention = lesson_weights(fast.attention);
    if (!lesson.attention.b_o) lesson.attention.b_o = Vector(xt::zeros<double>({fast.norm1_weight.size()}));
    lesson.norm1_weight = widen(fast.norm1_weight);
    lesson.norm1_bias = widen(fast.norm1_bias);
    lesson.norm2_weight = widen(fast.norm2_weight);
    lesson.norm2_bias = widen(fast.norm2_bias);
    lesson.linear1_weight = widen(fast.linear1_weight);
    lesson.linear1_bias = widen_or_zeros(fast.linear1_bias, fast.linear1_weight.shape(0));
    lesson.linear2_weight = widen(fast.linear2_weight);
    lesson.linear2_bias = widen_or_zeros(fast.linear2_bias, fast.linear2_weight.shape(0));
    return lesson;
}

}  // namespace attn::testing
