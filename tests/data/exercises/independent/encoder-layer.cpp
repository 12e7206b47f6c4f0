// Exercise 6, a second correct implementation written from lessons/06-encoder-layer/README.md
// alone: the mean and variance by Welford's running update, and the layer as one "sub-layer with
// its residual and norm" function used twice. The two sub-layers are the library's, as the
// exercise asks.
#include <algorithm>
#include <cmath>
#include <functional>

#include "exercise.hpp"

namespace exercise {

attn::LayerNormStep layer_norm(const attn::Matrix& x, const attn::Vector& weight, const attn::Vector& bias, double eps) {
    const std::size_t N = x.shape(0), D = x.shape(1);
    attn::LayerNormStep out;
    out.mean = attn::Vector::from_shape({N});
    out.variance = attn::Vector::from_shape({N});
    out.normalized = attn::Matrix::from_shape({N, D});
    out.output = attn::Matrix::from_shape({N, D});
#ifdef PLANTED_WHOLE_TENSOR
    // One mean and one variance over every value: nn.LayerNorm(x.shape).
    double mean = 0.0, m2 = 0.0;
    for (std::size_t k = 0; k < N * D; ++k) {
        const double delta = x.data()[k] - mean;
        mean += delta / double(k + 1);
        m2 += delta * (x.data()[k] - mean);
    }
    for (std::size_t n = 0; n < N; ++n) {
        out.mean(n) = mean;
        out.variance(n) = m2 / double(N * D);
    }
#else
    for (std::size_t n = 0; n < N; ++n) {
        double mean = 0.0, m2 = 0.0;
        for (std::size_t d = 0; d < D; ++d) {
            const double delta = x(n, d) - mean;
            mean += delta / double(d + 1);
            m2 += delta * (x(n, d) - mean);
        }
        out.mean(n) = mean;
        out.variance(n) = m2 / double(D);
    }
#endif
    for (std::size_t n = 0; n < N; ++n) {
        const double inverse = 1.0 / std::sqrt(out.variance(n) + eps);
        for (std::size_t d = 0; d < D; ++d) {
            out.normalized(n, d) = (x(n, d) - out.mean(n)) * inverse;
            out.output(n, d) = weight(d) * out.normalized(n, d) + bias(d);
        }
    }
    return out;
}

attn::EncoderLayerStep transformer_encoder_layer(const attn::Tensor3& x, const attn::EncoderLayerWeights& weights,
                                                 const attn::EncoderLayerOptions& options) {
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    auto rows = [&](const attn::Tensor3& y) {
        attn::Matrix m = attn::Matrix::from_shape({B * T, y.shape(2)});
        std::copy(y.begin(), y.end(), m.begin());
        return m;
    };
    auto tensor = [&](const attn::Matrix& m) {
        attn::Tensor3 y = attn::Tensor3::from_shape({B, T, m.shape(1)});
        std::copy(m.begin(), m.end(), y.begin());
        return y;
    };
    auto norm = [&](const attn::Tensor3& y, const attn::Vector& w, const attn::Vector& b) {
        return tensor(layer_norm(rows(y), w, b, options.eps).output);
    };
    attn::EncoderLayerStep step;
    // The wrapping both sub-layers share: returns (input of the sub-layer, residual sum, result).
    auto wrapped = [&](const attn::Tensor3& input, const attn::Vector& w, const attn::Vector& b,
                       const std::function<attn::Tensor3(const attn::Tensor3&)>& sublayer, attn::Tensor3& fed,
                       attn::Tensor3& residual) {
        fed = options.norm_first ? norm(input, w, b) : input;
        residual = input + sublayer(fed);
        return options.norm_first ? residual : norm(residual, w, b);
    };
    step.after_attention = wrapped(x, weights.norm1_weight, weights.norm1_bias, [&](const attn::Tensor3& y) {
        attn::AttentionOptions attention_options;
        attention_options.attention_mask = options.attention_mask;
        step.attention = attn::multi_head_attention(y, y, y, weights.attention, options.heads, attention_options);
        return step.attention.output;
    }, step.attention_input, step.attention_residual);
    step.output = wrapped(step.after_attention, weights.norm2_weight, weights.norm2_bias, [&](const attn::Tensor3& y) {
        const attn::FeedForwardStep ffn = attn::feed_forward(rows(y), weights.linear1_weight, weights.linear1_bias,
                                                             weights.linear2_weight, weights.linear2_bias, options.activation);
        step.ffn_hidden = tensor(ffn.hidden);
        step.ffn_output = tensor(ffn.output);
        return step.ffn_output;
    }, step.ffn_input, step.ffn_residual);
    (void)D;
    return step;
}

}  // namespace exercise
