#include "06-encoder-layer/exercise/mistakes.hpp"

#include <cmath>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn::mistakes {

namespace {

enum class Divisor { biased, unbiased };
enum class Epsilon { inside_sqrt, outside_sqrt };
enum class Over { each_row, whole_tensor };

// (x − mean) / scale · weight + bias, with the variance, eps and the rows pooled as asked.
LayerNormStep normalize(const Matrix& x, const Vector& weight, const Vector& bias, double eps, Divisor divisor,
                        Epsilon epsilon, Over over) {
    const std::size_t N = x.shape(0), D = x.shape(1);
    const std::size_t group = over == Over::whole_tensor ? N * D : D;  // values sharing one mean
    if (divisor == Divisor::unbiased && group < 2) {
        throw ShapeError("layer_norm_unbiased_variance: x has shape " + shape_string(x.shape()) +
                         "; the unbiased variance needs D ≥ 2");
    }
    LayerNormStep step;
    step.mean = Vector::from_shape({N});
    step.variance = Vector::from_shape({N});
    step.normalized = Matrix::from_shape({N, D});
    step.output = Matrix::from_shape({N, D});
    for (std::size_t first = 0; first < N * D; first += group) {
        const double* values = x.data() + first;
        double sum = 0.0;
        for (std::size_t i = 0; i < group; ++i) sum += values[i];
        const double mean = sum / double(group);
        double squares = 0.0;
        for (std::size_t i = 0; i < group; ++i) squares += (values[i] - mean) * (values[i] - mean);
        const double variance = squares / double(divisor == Divisor::unbiased ? group - 1 : group);
        const double scale = epsilon == Epsilon::inside_sqrt ? std::sqrt(variance + eps) : std::sqrt(variance) + eps;
        for (std::size_t i = first; i < first + group; ++i) {
            const std::size_t n = i / D, d = i % D;
            step.mean(n) = mean;
            step.variance(n) = variance;
            step.normalized(n, d) = (x.data()[i] - mean) / scale;
            step.output(n, d) = step.normalized(n, d) * weight(d) + bias(d);
        }
    }
    return step;
}

// A row norm over the last axis of (B, T, D): (B·T, D) in row-major memory.
Tensor3 norm_positions(RowNorm norm, const Tensor3& x, const Vector& weight, const Vector& bias, double eps) {
    return positions_of(norm(rows_of(x), weight, bias, eps).output, x.shape(0), x.shape(1));
}

LayerNormStep pytorch_norm(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return layer_norm(x, weight, bias, eps);
}

// The layer from the attention sub-layer's output on (step.attention set): the residuals, the
// norms and the feed-forward network, with `norm` as the layer norm.
EncoderLayerStep rest_of_layer(EncoderLayerStep step, const Tensor3& x, const EncoderLayerWeights& w,
                               const EncoderLayerOptions& options, RowNorm norm) {
    auto norm1 = [&](const Tensor3& y) { return norm_positions(norm, y, w.norm1_weight, w.norm1_bias, options.eps); };
    auto norm2 = [&](const Tensor3& y) { return norm_positions(norm, y, w.norm2_weight, w.norm2_bias, options.eps); };
    step.attention_residual = x + step.attention.output;
    step.after_attention = options.norm_first ? step.attention_residual : norm1(step.attention_residual);
    step.ffn_input = options.norm_first ? norm2(step.after_attention) : step.after_attention;
    const FeedForwardStep ffn = feed_forward(rows_of(step.ffn_input), w.linear1_weight, w.linear1_bias, w.linear2_weight,
                                             w.linear2_bias, options.activation);
    step.ffn_hidden = positions_of(ffn.hidden, x.shape(0), x.shape(1));
    step.ffn_output = positions_of(ffn.output, x.shape(0), x.shape(1));
    step.ffn_residual = step.after_attention + step.ffn_output;
    step.output = options.norm_first ? step.ffn_residual : norm2(step.ffn_residual);
    return step;
}

}  // namespace

LayerNormStep layer_norm_unbiased_variance(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return normalize(x, weight, bias, eps, Divisor::unbiased, Epsilon::inside_sqrt, Over::each_row);
}

LayerNormStep layer_norm_eps_outside_sqrt(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return normalize(x, weight, bias, eps, Divisor::biased, Epsilon::outside_sqrt, Over::each_row);
}

LayerNormStep layer_norm_annotated_transformer(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return normalize(x, weight, bias, eps, Divisor::unbiased, Epsilon::outside_sqrt, Over::each_row);
}

LayerNormStep layer_norm_whole_tensor(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return normalize(x, weight, bias, eps, Divisor::biased, Epsilon::inside_sqrt, Over::whole_tensor);
}

EncoderLayerStep layer_with_norm(const EncoderLayerStep& right, const Tensor3& x, const EncoderLayerWeights& weights,
                                 const EncoderLayerOptions& options, RowNorm norm) {
    EncoderLayerStep step = right;  // post-norm: the attention reads x, and is unchanged
    if (options.norm_first) {
        step.attention_input = norm_positions(norm, x, weights.norm1_weight, weights.norm1_bias, options.eps);
        AttentionOptions attention_options;
        attention_options.attention_mask = options.attention_mask;
        step.attention = multi_head_attention(step.attention_input, step.attention_input, step.attention_input,
                                              weights.attention, options.heads, attention_options);
    }
    return rest_of_layer(step, x, weights, options, norm);
}

EncoderLayerStep norms_swapped(const Tensor3& x, const EncoderLayerWeights& weights, const EncoderLayerOptions& options) {
    EncoderLayerOptions swapped = options;
    swapped.norm_first = !options.norm_first;
    return transformer_encoder_layer(x, weights, swapped);
}

EncoderLayerStep layer_without_output_projection(const EncoderLayerStep& right, const Tensor3& x,
                                                 const EncoderLayerWeights& weights, const EncoderLayerOptions& options) {
    EncoderLayerStep step = right;
    step.attention.output = right.attention.context;
    return rest_of_layer(step, x, weights, options, pytorch_norm);
}

}  // namespace attn::mistakes
