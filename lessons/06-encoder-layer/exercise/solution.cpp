// Exercise 6, solved: nn.LayerNorm and one Transformer encoder layer, written out as
// lessons/06-encoder-layer/README.md computes them. A reference, not a shortcut: the layer norm is
// written out, and the layer calls the library only for its two sub-layers, as the exercise asks —
// attn::multi_head_attention (lesson 5) and attn::feed_forward. `attn exercise 6 --file
// lessons/06-encoder-layer/exercise/solution.cpp` passes every case.
//
// Shapes: N rows · B batch · T positions · D model width · F feed-forward width.
#include <algorithm>
#include <cmath>

#include "exercise.hpp"

namespace {

// (B, T, D) → (B·T, D) and back: each position one row, the same numbers in the same order.
attn::Matrix as_rows(const attn::Tensor3& x) {
    attn::Matrix rows = attn::Matrix::from_shape({x.shape(0) * x.shape(1), x.shape(2)});
    std::copy(x.begin(), x.end(), rows.begin());
    return rows;
}

attn::Tensor3 as_tensor(const attn::Matrix& rows, std::size_t B, std::size_t T) {
    attn::Tensor3 x = attn::Tensor3::from_shape({B, T, rows.shape(1)});
    std::copy(rows.begin(), rows.end(), x.begin());
    return x;
}

}  // namespace

namespace exercise {

attn::LayerNormStep layer_norm(const attn::Matrix& x, const attn::Vector& weight, const attn::Vector& bias, double eps) {
    const std::size_t N = x.shape(0), D = x.shape(1);
    attn::LayerNormStep step;
    step.mean = attn::Vector::from_shape({N});
    step.variance = attn::Vector::from_shape({N});
    step.normalized = attn::Matrix::from_shape({N, D});
    step.output = attn::Matrix::from_shape({N, D});
    // Each row — one position's D features — is normalised on its own.
    for (std::size_t n = 0; n < N; ++n) {
        double sum = 0.0;
        for (std::size_t d = 0; d < D; ++d) sum += x(n, d);
        step.mean(n) = sum / double(D);
        // The biased variance: the squared deviations divided by D (not D − 1, as torch.var would).
        double squares = 0.0;
        for (std::size_t d = 0; d < D; ++d) squares += (x(n, d) - step.mean(n)) * (x(n, d) - step.mean(n));
        step.variance(n) = squares / double(D);
        // eps inside the square root, then the learned per-feature scale and shift.
        const double scale = std::sqrt(step.variance(n) + eps);
        for (std::size_t d = 0; d < D; ++d) {
            step.normalized(n, d) = (x(n, d) - step.mean(n)) / scale;
            step.output(n, d) = step.normalized(n, d) * weight(d) + bias(d);
        }
    }
    return step;
}

attn::EncoderLayerStep transformer_encoder_layer(const attn::Tensor3& x, const attn::EncoderLayerWeights& weights,
                                                 const attn::EncoderLayerOptions& options) {
    const std::size_t B = x.shape(0), T = x.shape(1);
    auto norm = [&](const attn::Tensor3& y, const attn::Vector& weight, const attn::Vector& bias) {
        return as_tensor(layer_norm(as_rows(y), weight, bias, options.eps).output, B, T);
    };
    auto norm1 = [&](const attn::Tensor3& y) { return norm(y, weights.norm1_weight, weights.norm1_bias); };
    auto norm2 = [&](const attn::Tensor3& y) { return norm(y, weights.norm2_weight, weights.norm2_bias); };
    attn::EncoderLayerStep step;

    // Sub-layer 1: self-attention, its residual connection and norm1. Post-norm normalises after
    // the addition, y = norm1(x + attention(x)); pre-norm before the sub-layer, y = x + attention(norm1(x)).
    step.attention_input = options.norm_first ? norm1(x) : x;
    attn::AttentionOptions attention_options;
    attention_options.attention_mask = options.attention_mask;
    step.attention = attn::multi_head_attention(step.attention_input, step.attention_input, step.attention_input,
                                                weights.attention, options.heads, attention_options);
    step.attention_residual = x + step.attention.output;  // the output after W_o, not the heads' context
    step.after_attention = options.norm_first ? step.attention_residual : norm1(step.attention_residual);

    // Sub-layer 2: the position-wise feed-forward network, wrapped the same way with norm2.
    step.ffn_input = options.norm_first ? norm2(step.after_attention) : step.after_attention;
    const attn::FeedForwardStep ffn = attn::feed_forward(as_rows(step.ffn_input), weights.linear1_weight, weights.linear1_bias,
                                                         weights.linear2_weight, weights.linear2_bias, options.activation);
    step.ffn_hidden = as_tensor(ffn.hidden, B, T);
    step.ffn_output = as_tensor(ffn.output, B, T);
    step.ffn_residual = step.after_attention + step.ffn_output;
    step.output = options.norm_first ? step.ffn_residual : norm2(step.ffn_residual);
    return step;
}

}  // namespace exercise
