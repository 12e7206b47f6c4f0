#include "attn/mistakes.hpp"

#include <cblas.h>

#include <cmath>
#include <limits>
#include <string>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>

#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/masks.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"

namespace attn::mistakes {

namespace {

// context[b] = weights[b] · encoder_outputs[b], whatever the weights are.
Matrix weighted_sum(const Matrix& weights, const Tensor3& encoder_outputs) {
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    Matrix context = Matrix::from_shape({B, H});
    for (std::size_t b = 0; b < B; ++b) {
        cblas_dgemv(CblasRowMajor, CblasTrans, int(S), int(H), 1.0, encoder_outputs.data() + b * S * H, int(H),
                    weights.data() + b * S, 1, 0.0, context.data() + b * H, 1);
    }
    return context;
}

}  // namespace

AttentionStep dot_attention_softmax_over_batch(const Tensor3& encoder_outputs, const Matrix& decoder_output) {
    AttentionStep step = dot_attention(encoder_outputs, decoder_output);
    // The mistake: softmax down each column (over b) instead of along each row (over s).
    const Matrix transposed = xt::transpose(step.scores);
    const Matrix column_softmax = softmax_last_axis(transposed);
    step.weights = xt::transpose(column_softmax);
    step.context = weighted_sum(step.weights, encoder_outputs);
    return step;
}

AttentionStep dot_attention_without_softmax(const Tensor3& encoder_outputs, const Matrix& decoder_output) {
    AttentionStep step = dot_attention(encoder_outputs, decoder_output);
    step.weights = step.scores;
    step.context = weighted_sum(step.weights, encoder_outputs);
    return step;
}

// ---------------------------------------------------------------------------------------------
// Lessons 2 to 4: Luong, Bahdanau, causal self-attention

namespace {

// Softmax down each column of a (B, S) grid (over the batch axis), as `softmax(scores, dim=0)`.
Matrix softmax_down_columns(const Matrix& scores) {
    const Matrix transposed = xt::transpose(scores);
    const Matrix column_softmax = softmax_last_axis(transposed);
    return xt::transpose(column_softmax);
}

// The score layer of additive attention applied to `rows` (B, S, 2H), whatever they hold, then
// lesson 1's softmax and weighted sum of the encoder outputs. Fills every step after `concatenated`.
void score_bahdanau_rows(BahdanauStep& step, const Tensor3& rows, const Tensor3& encoder_outputs, const Matrix& W1,
                         const Vector& b1, const Matrix& w2, const Vector& b2) {
    step.preactivation = linear(rows, W1, b1, "W1");
    step.hidden = xt::tanh(step.preactivation);
    const Tensor3 scores = linear(step.hidden, w2, b2, "w2");  // (B, S, 1)
    Matrix flat = Matrix::from_shape({scores.shape(0), scores.shape(1)});
    std::copy(scores.begin(), scores.end(), flat.begin());
    AttentionStep attended = attend_with_scores(std::move(flat), encoder_outputs);
    step.scores = std::move(attended.scores);
    step.weights = std::move(attended.weights);
    step.context = std::move(attended.context);
}

// output[b] = weights[b] (T × S) · V[b] (S × d_v), whatever the weights are.
Tensor3 weighted_values(const Tensor3& weights, const Tensor3& V) {
    const std::size_t B = weights.shape(0), T = weights.shape(1), S = weights.shape(2), dv = V.shape(2);
    Tensor3 output = Tensor3::from_shape({B, T, dv});
    for (std::size_t b = 0; b < B; ++b) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(T), int(dv), int(S), 1.0, weights.data() + b * T * S,
                    int(S), V.data() + b * S * dv, int(dv), 0.0, output.data() + b * T * dv, int(dv));
    }
    return output;
}

// Attention without any mask: the right scores, and the starting point of every mask mistake.
ScaledDotProductAttentionResult unmasked_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V) {
    return scaled_dot_product_attention(Q, K, V, AttentionOptions{});
}

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

}  // namespace

LuongGeneralStep luong_general_attention_weight_transposed(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                           const Matrix& W_a) {
    luong_general_attention(encoder_outputs, decoder_output, W_a);  // the shape checks, naming W_a as given
    // The mistake: encoder_outputs @ W_a = encoder_outputs (W_aᵀ)ᵀ, i.e. nn.Linear holding W_aᵀ.
    const Matrix W_transposed = xt::transpose(W_a);
    return luong_general_attention(encoder_outputs, decoder_output, W_transposed);
}

LuongGeneralStep luong_general_attention_softmax_over_batch(const Tensor3& encoder_outputs,
                                                            const Matrix& decoder_output, const Matrix& W_a) {
    LuongGeneralStep step = luong_general_attention(encoder_outputs, decoder_output, W_a);
    step.weights = softmax_down_columns(step.scores);
    step.context = weighted_sum(step.weights, encoder_outputs);
    return step;
}

LuongGeneralStep luong_general_attention_context_of_projected(const Tensor3& encoder_outputs,
                                                              const Matrix& decoder_output, const Matrix& W_a) {
    LuongGeneralStep step = luong_general_attention(encoder_outputs, decoder_output, W_a);
    step.context = weighted_sum(step.weights, step.projected);
    return step;
}

BahdanauStep bahdanau_attention_concatenation_swapped(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                      const Matrix& W1, const Vector& b1, const Matrix& w2,
                                                      const Vector& b2) {
    BahdanauStep step = bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2);  // checks the shapes
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t s = 0; s < S; ++s) {
            double* row = step.concatenated.data() + (b * S + s) * 2 * H;
            const double* query = decoder_output.data() + b * H;
            const double* key = encoder_outputs.data() + (b * S + s) * H;
            std::copy(query, query + H, row);    // the mistake: h_t first …
            std::copy(key, key + H, row + H);    // … then h̄_s
        }
    }
    score_bahdanau_rows(step, step.concatenated, encoder_outputs, W1, b1, w2, b2);
    return step;
}

BahdanauStep bahdanau_attention_reshape_not_transpose(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                      const Matrix& W1, const Vector& b1, const Matrix& w2,
                                                      const Vector& b2) {
    BahdanauStep step = bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2);
    const std::size_t B = encoder_outputs.shape(0), S = encoder_outputs.shape(1), H = encoder_outputs.shape(2);
    // h[b] reshaped to (2H, S) keeps memory order: element (j, s) is flat number j·S + s of h[b].
    // Column s, the vector W1 meets, becomes row s here.
    Tensor3 columns = Tensor3::from_shape({B, S, 2 * H});
    for (std::size_t b = 0; b < B; ++b) {
        const double* flat = step.concatenated.data() + b * S * 2 * H;
        for (std::size_t s = 0; s < S; ++s)
            for (std::size_t j = 0; j < 2 * H; ++j) columns(b, s, j) = flat[j * S + s];
    }
    score_bahdanau_rows(step, columns, encoder_outputs, W1, b1, w2, b2);
    return step;
}

BahdanauStep bahdanau_attention_softmax_over_batch(const Tensor3& encoder_outputs, const Matrix& decoder_output,
                                                   const Matrix& W1, const Vector& b1, const Matrix& w2,
                                                   const Vector& b2) {
    BahdanauStep step = bahdanau_attention(encoder_outputs, decoder_output, W1, b1, w2, b2);
    step.weights = softmax_down_columns(step.scores);
    step.context = weighted_sum(step.weights, encoder_outputs);
    return step;
}

ScaledDotProductAttentionResult scaled_dot_product_attention_unscaled(const Tensor3& Q, const Tensor3& K,
                                                                      const Tensor3& V, bool causal) {
    AttentionOptions options;
    options.causal = causal;
    options.scale = 1.0;  // the mistake: no division by √d_k
    return scaled_dot_product_attention(Q, K, V, options);
}

ScaledDotProductAttentionResult causal_attention_mask_on_wrong_triangle(const Tensor3& Q, const Tensor3& K,
                                                                        const Tensor3& V) {
    ScaledDotProductAttentionResult r = unmasked_attention(Q, K, V);
    for (std::size_t b = 0; b < r.scores.shape(0); ++b)
        for (std::size_t t = 0; t < r.scores.shape(1); ++t)
            for (std::size_t s = 0; s < r.scores.shape(2); ++s)
                if (s < t) r.masked_scores(b, t, s) = minus_infinity;  // the mistake: the past hidden, not the future
    r.weights = softmax_last_axis(r.masked_scores);
    r.output = weighted_values(r.weights, V);
    return r;
}

ScaledDotProductAttentionResult scaled_dot_product_attention_softmax_over_queries(const Tensor3& Q, const Tensor3& K,
                                                                                  const Tensor3& V, bool causal) {
    AttentionOptions options;
    options.causal = causal;
    ScaledDotProductAttentionResult r = scaled_dot_product_attention(Q, K, V, options);
    // The mistake: (B, T, S) → (B, S, T), a softmax along the last axis (over t), and back.
    const Tensor3 columns = xt::transpose(r.masked_scores, {0, 2, 1});
    Tensor3 column_softmax = softmax_last_axis(columns);
    // A column of −∞ only: NaN, as a softmax without the library's all-hidden policy gives it.
    const std::size_t T = columns.shape(2);
    for (std::size_t b = 0; b < columns.shape(0); ++b) {
        for (std::size_t s = 0; s < columns.shape(1); ++s) {
            bool all_hidden = true;
            for (std::size_t t = 0; t < T && all_hidden; ++t) all_hidden = columns(b, s, t) == minus_infinity;
            if (!all_hidden) continue;
            for (std::size_t t = 0; t < T; ++t) column_softmax(b, s, t) = std::numeric_limits<double>::quiet_NaN();
        }
    }
    r.weights = xt::transpose(column_softmax, {0, 2, 1});
    r.output = weighted_values(r.weights, V);
    return r;
}

ScaledDotProductAttentionResult causal_attention_mask_after_softmax(const Tensor3& Q, const Tensor3& K,
                                                                    const Tensor3& V) {
    ScaledDotProductAttentionResult r = unmasked_attention(Q, K, V);  // masked_scores = scores: nothing hidden
    for (std::size_t b = 0; b < r.weights.shape(0); ++b)
        for (std::size_t t = 0; t < r.weights.shape(1); ++t)
            for (std::size_t s = 0; s < r.weights.shape(2); ++s)
                if (is_future_key(t, s)) r.weights(b, t, s) = 0.0;  // the mistake: weights × mask, not renormalised
    r.output = weighted_values(r.weights, V);
    return r;
}

ScaledDotProductAttentionResult causal_attention_scores_multiplied_by_mask(const Tensor3& Q, const Tensor3& K,
                                                                           const Tensor3& V) {
    ScaledDotProductAttentionResult r = unmasked_attention(Q, K, V);
    for (std::size_t b = 0; b < r.scores.shape(0); ++b)
        for (std::size_t t = 0; t < r.scores.shape(1); ++t)
            for (std::size_t s = 0; s < r.scores.shape(2); ++s)
                if (is_future_key(t, s)) r.masked_scores(b, t, s) = 0.0;  // the mistake: score × 0, not + (−∞)
    r.weights = softmax_last_axis(r.masked_scores);
    r.output = weighted_values(r.weights, V);
    return r;
}

// ---------------------------------------------------------------------------------------------
// Lesson 5 — multi-head attention

namespace {
namespace lesson5 {

MultiHeadAttentionResult right_result(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                      const MultiHeadAttentionWeights& weights, std::size_t heads,
                                      const std::optional<Matrix>& attention_mask, std::optional<double> scale = std::nullopt) {
    AttentionOptions options;
    options.attention_mask = attention_mask;
    options.scale = scale;
    return multi_head_attention(query, key, value, weights, heads, options);
}

// context (B, T, D) → output: context W_oᵀ + b_o, or the context itself without W_o.
Tensor3 project_output(const Tensor3& context, const MultiHeadAttentionWeights& weights) {
    if (!weights.w_o) return context;
    return weights.b_o ? linear(context, *weights.w_o, *weights.b_o, "w_o") : linear(context, *weights.w_o, "w_o");
}

// Fills scores, weights and context_heads from r.q_heads, r.k_heads, r.v_heads, whatever they
// hold: scaled dot-product attention on every (batch, head) block, each batch item's padding mask
// shared by its heads. (B, h, T, d_k) in row-major memory is (B·h, T, d_k).
void attend_heads(MultiHeadAttentionResult& r, const std::optional<Matrix>& attention_mask) {
    const std::size_t B = r.q_heads.shape(0), heads = r.q_heads.shape(1), T = r.q_heads.shape(2),
                      S = r.k_heads.shape(2), dk = r.q_heads.shape(3);
    auto blocks = [&](const Tensor4& x) {
        Tensor3 out = Tensor3::from_shape({B * heads, x.shape(2), x.shape(3)});
        std::copy(x.begin(), x.end(), out.begin());
        return out;
    };
    AttentionOptions options;
    if (attention_mask) {
        Matrix per_block = Matrix::from_shape({B * heads, S});
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t j = 0; j < heads; ++j)
                for (std::size_t s = 0; s < S; ++s) per_block(b * heads + j, s) = (*attention_mask)(b, s);
        options.attention_mask = per_block;
    }
    const ScaledDotProductAttentionResult attended =
        scaled_dot_product_attention(blocks(r.q_heads), blocks(r.k_heads), blocks(r.v_heads), options);
    r.scores = Tensor4::from_shape({B, heads, T, S});
    r.weights = Tensor4::from_shape({B, heads, T, S});
    r.context_heads = Tensor4::from_shape({B, heads, T, dk});
    std::copy(attended.scores.begin(), attended.scores.end(), r.scores.begin());
    std::copy(attended.weights.begin(), attended.weights.end(), r.weights.begin());
    std::copy(attended.output.begin(), attended.output.end(), r.context_heads.begin());
}

// context_heads[b, j] = weights[b, j] (T × S) · v_heads[b, j] (S × d_k), whatever the weights are.
Tensor4 weighted_heads(const Tensor4& weights, const Tensor4& v_heads) {
    const std::size_t B = weights.shape(0), heads = weights.shape(1), T = weights.shape(2), S = weights.shape(3),
                      dk = v_heads.shape(3);
    Tensor4 context_heads = Tensor4::from_shape({B, heads, T, dk});
    for (std::size_t block = 0; block < B * heads; ++block) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(T), int(dk), int(S), 1.0, weights.data() + block * T * S,
                    int(S), v_heads.data() + block * S * dk, int(dk), 0.0, context_heads.data() + block * T * dk, int(dk));
    }
    return context_heads;
}

MultiHeadAttentionResult heads_by_reshape(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                          const MultiHeadAttentionWeights& weights, std::size_t heads,
                                          const std::optional<Matrix>& attention_mask, bool split_reshaped,
                                          bool merge_reshaped) {
    MultiHeadAttentionResult r = right_result(query, key, value, weights, heads, attention_mask);
    if (split_reshaped) {
        r.q_heads = split_heads_by_reshape(r.q, heads);
        r.k_heads = split_heads_by_reshape(r.k, heads);
        r.v_heads = split_heads_by_reshape(r.v, heads);
        attend_heads(r, attention_mask);
    }
    r.context = merge_reshaped ? merge_heads_by_reshape(r.context_heads) : merge_heads(r.context_heads);
    r.output = project_output(r.context, weights);
    return r;
}

}  // namespace lesson5
}  // namespace

Tensor4 split_heads_by_reshape(const Tensor3& x, std::size_t heads) {
    Tensor4 out = split_heads(x, heads);         // the shape checks, and the right shape (B, h, T, d_k)
    std::copy(x.begin(), x.end(), out.begin());  // the mistake: memory order kept
    return out;
}

Tensor3 merge_heads_by_reshape(const Tensor4& x) {
    Tensor3 out = Tensor3::from_shape({x.shape(0), x.shape(2), x.shape(1) * x.shape(3)});
    std::copy(x.begin(), x.end(), out.begin());  // the mistake: no transpose(1, 2) before the view
    return out;
}

MultiHeadAttentionResult multi_head_attention_split_by_reshape(const Tensor3& query, const Tensor3& key,
                                                               const Tensor3& value,
                                                               const MultiHeadAttentionWeights& weights,
                                                               std::size_t heads,
                                                               const std::optional<Matrix>& attention_mask) {
    return lesson5::heads_by_reshape(query, key, value, weights, heads, attention_mask, true, false);
}

MultiHeadAttentionResult multi_head_attention_merge_by_reshape(const Tensor3& query, const Tensor3& key,
                                                               const Tensor3& value,
                                                               const MultiHeadAttentionWeights& weights,
                                                               std::size_t heads,
                                                               const std::optional<Matrix>& attention_mask) {
    return lesson5::heads_by_reshape(query, key, value, weights, heads, attention_mask, false, true);
}

MultiHeadAttentionResult multi_head_attention_split_and_merge_by_reshape(
    const Tensor3& query, const Tensor3& key, const Tensor3& value, const MultiHeadAttentionWeights& weights,
    std::size_t heads, const std::optional<Matrix>& attention_mask) {
    return lesson5::heads_by_reshape(query, key, value, weights, heads, attention_mask, true, true);
}

MultiHeadAttentionResult multi_head_attention_unscaled(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                       const MultiHeadAttentionWeights& weights, std::size_t heads,
                                                       const std::optional<Matrix>& attention_mask) {
    return lesson5::right_result(query, key, value, weights, heads, attention_mask, 1.0);
}

MultiHeadAttentionResult multi_head_attention_scaled_by_model_width(
    const Tensor3& query, const Tensor3& key, const Tensor3& value, const MultiHeadAttentionWeights& weights,
    std::size_t heads, const std::optional<Matrix>& attention_mask) {
    return lesson5::right_result(query, key, value, weights, heads, attention_mask, 1.0 / std::sqrt(double(query.shape(2))));
}

MultiHeadAttentionResult multi_head_attention_mask_inverted(const Tensor3& query, const Tensor3& key,
                                                            const Tensor3& value,
                                                            const MultiHeadAttentionWeights& weights,
                                                            std::size_t heads, const Matrix& attention_mask) {
    lesson5::right_result(query, key, value, weights, heads, attention_mask);  // the checks, on the mask as given
    const Matrix inverted = 1.0 - attention_mask;
    return lesson5::right_result(query, key, value, weights, heads, inverted);
}

MultiHeadAttentionResult multi_head_attention_mask_after_softmax(const Tensor3& query, const Tensor3& key,
                                                                 const Tensor3& value,
                                                                 const MultiHeadAttentionWeights& weights,
                                                                 std::size_t heads, const Matrix& attention_mask) {
    MultiHeadAttentionResult r = lesson5::right_result(query, key, value, weights, heads, attention_mask);
    // The mistake: the softmax of the unmasked scores, then the weights of padding keys set to 0.
    r.weights = softmax_last_axis(r.scores);
    const std::size_t B = r.weights.shape(0), H = r.weights.shape(1), T = r.weights.shape(2), S = r.weights.shape(3);
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < H; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t s = 0; s < S; ++s) r.weights(b, j, t, s) *= attention_mask(b, s);
    r.context_heads = lesson5::weighted_heads(r.weights, r.v_heads);
    r.context = merge_heads(r.context_heads);
    r.output = lesson5::project_output(r.context, weights);
    return r;
}

MultiHeadAttentionResult multi_head_attention_without_output_projection(
    const Tensor3& query, const Tensor3& key, const Tensor3& value, const MultiHeadAttentionWeights& weights,
    std::size_t heads, const std::optional<Matrix>& attention_mask) {
    MultiHeadAttentionResult r = lesson5::right_result(query, key, value, weights, heads, attention_mask);
    r.output = r.context;
    return r;
}

// ---------------------------------------------------------------------------------------------
// Lesson 6 — the Transformer encoder layer

namespace {
namespace lesson6 {

enum class Divisor { biased, unbiased };
enum class Epsilon { inside_sqrt, outside_sqrt };

// (x − mean) / scale · weight + bias per row, with the variance and eps placed as asked.
LayerNormStep normalize(const char* function, const Matrix& x, const Vector& weight, const Vector& bias, double eps,
                        Divisor divisor, Epsilon epsilon) {
    LayerNormStep step = layer_norm(x, weight, bias, eps);  // the argument checks; the mean and the shapes are right
    const std::size_t N = x.shape(0), D = x.shape(1);
    if (divisor == Divisor::unbiased && D < 2) {
        throw ShapeError(std::string(function) + ": x has shape " + shape_string(x.shape()) +
                         "; the unbiased variance needs D ≥ 2");
    }
    for (std::size_t n = 0; n < N; ++n) {
        double squares = 0.0;
        for (std::size_t d = 0; d < D; ++d) squares += (x(n, d) - step.mean(n)) * (x(n, d) - step.mean(n));
        step.variance(n) = squares / double(divisor == Divisor::unbiased ? D - 1 : D);
        const double scale =
            epsilon == Epsilon::inside_sqrt ? std::sqrt(step.variance(n) + eps) : std::sqrt(step.variance(n)) + eps;
        for (std::size_t d = 0; d < D; ++d) {
            step.normalized(n, d) = (x(n, d) - step.mean(n)) / scale;
            step.output(n, d) = step.normalized(n, d) * weight(d) + bias(d);
        }
    }
    return step;
}

using RowNorm = LayerNormStep (*)(const Matrix&, const Vector&, const Vector&, double);

// A row norm over the last axis of (B, T, D): (B·T, D) in row-major memory.
Tensor3 norm_positions(RowNorm norm, const Tensor3& x, const Vector& weight, const Vector& bias, double eps) {
    Matrix rows = Matrix::from_shape({x.shape(0) * x.shape(1), x.shape(2)});
    std::copy(x.begin(), x.end(), rows.begin());
    const LayerNormStep step = norm(rows, weight, bias, eps);
    Tensor3 out = Tensor3::from_shape(x.shape());
    std::copy(step.output.begin(), step.output.end(), out.begin());
    return out;
}

// attn::transformer_encoder_layer's structure with `norm` in place of nn.LayerNorm.
EncoderLayerStep layer_with_norm(const Tensor3& x, const EncoderLayerWeights& weights, const EncoderLayerOptions& options,
                                 RowNorm norm) {
    EncoderLayerStep step = transformer_encoder_layer(x, weights, options);  // the argument checks, and the shapes
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    auto norm1 = [&](const Tensor3& y) { return norm_positions(norm, y, weights.norm1_weight, weights.norm1_bias, options.eps); };
    auto norm2 = [&](const Tensor3& y) { return norm_positions(norm, y, weights.norm2_weight, weights.norm2_bias, options.eps); };
    AttentionOptions attention_options;
    attention_options.attention_mask = options.attention_mask;
    step.attention_input = options.norm_first ? norm1(x) : x;
    step.attention = multi_head_attention(step.attention_input, step.attention_input, step.attention_input,
                                          weights.attention, options.heads, attention_options);
    step.attention_residual = x + step.attention.output;
    step.after_attention = options.norm_first ? step.attention_residual : norm1(step.attention_residual);
    step.ffn_input = options.norm_first ? norm2(step.after_attention) : step.after_attention;
    Matrix rows = Matrix::from_shape({B * T, D});
    std::copy(step.ffn_input.begin(), step.ffn_input.end(), rows.begin());
    const FeedForwardStep ffn = feed_forward(rows, weights.linear1_weight, weights.linear1_bias, weights.linear2_weight,
                                             weights.linear2_bias, options.activation);
    std::copy(ffn.hidden.begin(), ffn.hidden.end(), step.ffn_hidden.begin());
    std::copy(ffn.output.begin(), ffn.output.end(), step.ffn_output.begin());
    step.ffn_residual = step.after_attention + step.ffn_output;
    step.output = options.norm_first ? step.ffn_residual : norm2(step.ffn_residual);
    return step;
}

}  // namespace lesson6
}  // namespace

LayerNormStep layer_norm_unbiased_variance(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return lesson6::normalize("layer_norm_unbiased_variance", x, weight, bias, eps, lesson6::Divisor::unbiased,
                              lesson6::Epsilon::inside_sqrt);
}

LayerNormStep layer_norm_eps_outside_sqrt(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return lesson6::normalize("layer_norm_eps_outside_sqrt", x, weight, bias, eps, lesson6::Divisor::biased,
                              lesson6::Epsilon::outside_sqrt);
}

LayerNormStep layer_norm_annotated_transformer(const Matrix& x, const Vector& weight, const Vector& bias, double eps) {
    return annotated_layer_norm(x, weight, bias, eps);
}

EncoderLayerStep transformer_encoder_layer_unbiased_variance(const Tensor3& x, const EncoderLayerWeights& weights,
                                                             const EncoderLayerOptions& options) {
    return lesson6::layer_with_norm(x, weights, options, layer_norm_unbiased_variance);
}

EncoderLayerStep transformer_encoder_layer_eps_outside_sqrt(const Tensor3& x, const EncoderLayerWeights& weights,
                                                            const EncoderLayerOptions& options) {
    return lesson6::layer_with_norm(x, weights, options, layer_norm_eps_outside_sqrt);
}

EncoderLayerStep transformer_encoder_layer_annotated_layer_norm(const Tensor3& x, const EncoderLayerWeights& weights,
                                                                const EncoderLayerOptions& options) {
    return lesson6::layer_with_norm(x, weights, options, layer_norm_annotated_transformer);
}

EncoderLayerStep transformer_encoder_layer_norms_swapped(const Tensor3& x, const EncoderLayerWeights& weights,
                                                         const EncoderLayerOptions& options) {
    EncoderLayerOptions swapped = options;
    swapped.norm_first = !options.norm_first;
    return transformer_encoder_layer(x, weights, swapped);
}

EncoderLayerStep transformer_encoder_layer_without_output_projection(const Tensor3& x, const EncoderLayerWeights& weights,
                                                                     const EncoderLayerOptions& options) {
    transformer_encoder_layer(x, weights, options);  // the argument checks, with W_o as given
    EncoderLayerWeights without = weights;
    without.attention.w_o.reset();
    without.attention.b_o.reset();
    return transformer_encoder_layer(x, without, options);
}

}  // namespace attn::mistakes
