#include "05-multi-head-attention/exercise/mistakes.hpp"

#include <cmath>
#include <limits>

#include "01-dot-product/exercise/mistakes.hpp"
#include "attn/matmul.hpp"
#include "attn/softmax.hpp"

namespace attn::mistakes {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// Which mask row hides keys from head j of sentence b: row b normally, row j in seed 000's broadcast.
using MaskRow = std::size_t (*)(std::size_t b, std::size_t j);
std::size_t row_of_sentence(std::size_t b, std::size_t) { return b; }
std::size_t row_of_head(std::size_t, std::size_t j) { return j; }

// The scores with −∞ for every key a mask hides ((B, S), 1 = attend), mask row chosen by `row`.
Tensor4 masked(Tensor4 scores, const std::optional<Matrix>& attention_mask, MaskRow row = row_of_sentence) {
    if (!attention_mask) return scores;
    for (std::size_t b = 0; b < scores.shape(0); ++b)
        for (std::size_t j = 0; j < scores.shape(1); ++j)
            for (std::size_t t = 0; t < scores.shape(2); ++t)
                for (std::size_t s = 0; s < scores.shape(3); ++s)
                    if ((*attention_mask)(row(b, j), s) == 0.0) scores(b, j, t, s) = minus_infinity;
    return scores;
}

// `r` with other weights, and every step they lead to: context_heads, context, output.
MultiHeadAttentionResult from_weights(MultiHeadAttentionResult r, Tensor4 weights, const MultiHeadAttentionWeights& w,
                                      bool merge_by_reshape = false) {
    r.weights = std::move(weights);
    r.context_heads = matmul(r.weights, r.v_heads);
    r.context = merge_by_reshape ? merge_heads_by_reshape(r.context_heads) : merge_heads(r.context_heads);
    r.output = output_projection(r.context, w);
    return r;
}

// `r` with its scores recomputed from q_heads and k_heads times `scale`, then every later step.
MultiHeadAttentionResult from_heads(MultiHeadAttentionResult r, const MultiHeadAttentionWeights& w,
                                    const std::optional<Matrix>& attention_mask, double scale, bool merge_by_reshape = false) {
    r.scores = scale * matmul_transposed(r.q_heads, r.k_heads);
    return from_weights(r, softmax_last_axis(masked(r.scores, attention_mask)), w, merge_by_reshape);
}

double right_scale(const MultiHeadAttentionResult& r) { return 1.0 / std::sqrt(double(r.q_heads.shape(3))); }

MultiHeadAttentionResult split_by_reshape(MultiHeadAttentionResult r, const MultiHeadAttentionWeights& w,
                                          const std::optional<Matrix>& attention_mask, bool merge_by_reshape) {
    const std::size_t heads = r.q_heads.shape(1);
    const double scale = right_scale(r);
    r.q_heads = split_heads_by_reshape(r.q, heads);
    r.k_heads = split_heads_by_reshape(r.k, heads);
    r.v_heads = split_heads_by_reshape(r.v, heads);
    return from_heads(r, w, attention_mask, scale, merge_by_reshape);
}

}  // namespace

Tensor4 split_heads_by_reshape(const Tensor3& x, std::size_t heads) {
    Tensor4 out = Tensor4::from_shape({x.shape(0), heads, x.shape(1), x.shape(2) / heads});
    std::copy(x.begin(), x.end(), out.begin());  // the mistake: memory order kept, no transpose(1, 2)
    return out;
}

Tensor3 merge_heads_by_reshape(const Tensor4& x) {
    Tensor3 out = Tensor3::from_shape({x.shape(0), x.shape(2), x.shape(1) * x.shape(3)});
    std::copy(x.begin(), x.end(), out.begin());  // the mistake: no transpose(1, 2) before the view
    return out;
}

MultiHeadAttentionResult heads_split_by_reshape(const MultiHeadAttentionResult& right,
                                                const MultiHeadAttentionWeights& weights,
                                                const std::optional<Matrix>& attention_mask) {
    return split_by_reshape(right, weights, attention_mask, false);
}

MultiHeadAttentionResult heads_merged_by_reshape(const MultiHeadAttentionResult& right,
                                                 const MultiHeadAttentionWeights& weights) {
    MultiHeadAttentionResult wrong = right;
    wrong.context = merge_heads_by_reshape(right.context_heads);
    wrong.output = output_projection(wrong.context, weights);
    return wrong;
}

MultiHeadAttentionResult heads_split_and_merged_by_reshape(const MultiHeadAttentionResult& right,
                                                           const MultiHeadAttentionWeights& weights,
                                                           const std::optional<Matrix>& attention_mask) {
    return split_by_reshape(right, weights, attention_mask, true);
}

MultiHeadAttentionResult heads_scaled_by(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                         const std::optional<Matrix>& attention_mask, double scale) {
    return from_heads(right, weights, attention_mask, scale);
}

MultiHeadAttentionResult mask_inverted(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                       const Matrix& attention_mask) {
    const Matrix inverted = 1.0 - attention_mask;
    return from_weights(right, softmax_last_axis(masked(right.scores, inverted)), weights);
}

MultiHeadAttentionResult mask_after_softmax(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                            const Matrix& attention_mask) {
    Tensor4 after = softmax_last_axis(right.scores);
    for (std::size_t b = 0; b < after.shape(0); ++b)
        for (std::size_t j = 0; j < after.shape(1); ++j)
            for (std::size_t t = 0; t < after.shape(2); ++t)
                for (std::size_t s = 0; s < after.shape(3); ++s) after(b, j, t, s) *= attention_mask(b, s);
    return from_weights(right, std::move(after), weights);
}

MultiHeadAttentionResult mask_on_heads_axis(const MultiHeadAttentionResult& right, const MultiHeadAttentionWeights& weights,
                                            const Matrix& attention_mask) {
    return from_weights(right, softmax_last_axis(masked(right.scores, attention_mask, row_of_head)), weights);
}

MultiHeadAttentionResult nan_for_fully_masked_query(const MultiHeadAttentionResult& right,
                                                    const MultiHeadAttentionWeights& weights,
                                                    const std::optional<Matrix>& attention_mask) {
    const Tensor4 hidden = masked(right.scores, attention_mask);
    Tensor4 nan_rows = right.weights;
    const std::size_t S = hidden.shape(3);
    for (std::size_t row = 0; row < hidden.size() / S; ++row) {
        bool all_hidden = true;
        for (std::size_t s = 0; s < S && all_hidden; ++s) all_hidden = hidden.data()[row * S + s] == minus_infinity;
        if (!all_hidden) continue;
        for (std::size_t s = 0; s < S; ++s) nan_rows.data()[row * S + s] = std::numeric_limits<double>::quiet_NaN();
    }
    return from_weights(right, std::move(nan_rows), weights);
}

MultiHeadAttentionResult heads_unshifted_softmax(const MultiHeadAttentionResult& right,
                                                 const MultiHeadAttentionWeights& weights,
                                                 const std::optional<Matrix>& attention_mask) {
    return from_weights(right, softmax_without_max_subtraction(masked(right.scores, attention_mask)), weights);
}

MultiHeadAttentionResult without_output_projection(const MultiHeadAttentionResult& right) {
    MultiHeadAttentionResult wrong = right;
    wrong.output = right.context;
    return wrong;
}

}  // namespace attn::mistakes
