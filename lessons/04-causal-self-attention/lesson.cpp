// Lesson 4 — causal scaled dot-product self-attention (lessons/04-causal-self-attention/README.md).
//
// Computes, for each example of the document, depending on its inputs:
//   Q, K, V (B, ·, d)          given, or projected from x with w_q, w_k, w_v (nn.Linear, no bias)
//   scores, masked_scores, weights (B, T, S), output (B, T, d_v)   attn::scaled_dot_product_attention, causal
//   masked_fill_weights        the same mask written as masked_fill: −∞ where tril(ones(T, S)) == 0
//   multiplied_weights         the mistake of multiplying the scores by the 0/1 mask instead
// In example "kv_cache" (new queries over cached keys) each of those under both alignments of the
// triangle, named NAME_top_left and NAME_bottom_right.
// and two experiments on why the scores are divided by √d_k:
//   widths (n) → dot_std, scaled_dot_std (n)   the spread of q·k over seeded random pairs
//   q (1, 1, d_k), k (1, S, d_k) → raw_scores, weights_unscaled, weights, slope_unscaled, slope
#include <cmath>
#include <limits>
#include <random>

#include "04-causal-self-attention/exercise/mistakes.hpp"
#include "attn/linear.hpp"
#include "attn/masks.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/softmax.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

// The standard deviation of q·k over `pairs` random pairs of d-dimensional vectors whose entries
// are independent N(0, 1), drawn from std::mt19937 with a fixed seed: the measurement behind
// "the spread of q·k is √d". Scaled by 1/√d it should be 1 for every d.
NamedTensors measure_spread(const Vector& widths) {
    // 5 000 pairs estimate a standard deviation to about 1 % for wide vectors (1/√(2·5000)) and
    // 2 % at d = 1, where q·k, a product of two normals, has kurtosis 9 (√(8 / (4·5000))): inside
    // the document's 5 % tolerance, and five times faster than 20 000, which made `attn check` slow.
    constexpr std::size_t pairs = 5000;
    std::mt19937 generator(4);
    std::normal_distribution<double> normal(0.0, 1.0);
    Vector dot_std = Vector::from_shape({widths.size()}), scaled = Vector::from_shape({widths.size()});
    for (std::size_t i = 0; i < widths.size(); ++i) {
        const std::size_t d = static_cast<std::size_t>(widths(i));
        double sum = 0.0, sum_of_squares = 0.0;
        for (std::size_t n = 0; n < pairs; ++n) {
            double dot = 0.0;
            for (std::size_t j = 0; j < d; ++j) dot += normal(generator) * normal(generator);
            sum += dot;
            sum_of_squares += dot * dot;
        }
        const double mean = sum / pairs;
        // Sample standard deviation (n − 1), as torch.std computes it.
        dot_std(i) = std::sqrt((sum_of_squares - pairs * mean * mean) / (pairs - 1));
        scaled(i) = dot_std(i) / std::sqrt(double(d));
    }
    return {{"dot_std", dot_std}, {"scaled_dot_std", scaled}};
}

// The diagonal of the softmax's Jacobian, ∂w_i/∂z_i = w_i (1 − w_i): how much a weight still moves
// when its own score moves. Near 0 for a saturated softmax.
Tensor3 softmax_slope(const Tensor3& weights) {
    Tensor3 slope = weights;
    for (auto& w : slope) w = w * (1.0 - w);
    return slope;
}

NamedTensors saturation(const Tensor3& q, const Tensor3& k) {
    // The raw dot products, as if the division by √d_k were forgotten. The values do not matter
    // here (only the weights are shown); the keys stand in for them.
    const auto raw = mistakes::attention_unscaled(q, k, k, false);
    const auto scaled = scaled_dot_product_attention(q, k, k);
    return {{"raw_scores", raw.scores},
            {"weights_unscaled", raw.weights},
            {"weights", scaled.weights},
            {"slope_unscaled", softmax_slope(raw.weights)},
            {"slope", softmax_slope(scaled.weights)}};
}

// softmax over the last axis of `scores` after the causal mask or the mistaken product.
Tensor3 masked_fill_weights(const Tensor3& scores, CausalAlignment alignment) {
    Tensor3 filled = scores;
    const Matrix causal = causal_mask(scores.shape(1), scores.shape(2), alignment);
    for (std::size_t b = 0; b < filled.shape(0); ++b)
        for (std::size_t t = 0; t < filled.shape(1); ++t)
            for (std::size_t s = 0; s < filled.shape(2); ++s)
                if (std::isinf(causal(t, s))) filled(b, t, s) = -std::numeric_limits<double>::infinity();
    return softmax_last_axis(filled);
}

// Every tensor of steps 2 to 5 and 9 for one alignment of the causal triangle.
NamedTensors causal_attention(const Tensor3& Q, const Tensor3& K, const Tensor3& V, CausalAlignment alignment) {
    AttentionOptions options;
    options.causal = true;
    options.causal_alignment = alignment;
    const ScaledDotProductAttentionResult r = scaled_dot_product_attention(Q, K, V, options);
    return {{"scores", r.scores},
            {"masked_scores", r.masked_scores},
            {"weights", r.weights},
            {"output", r.output},
            {"masked_fill_weights", masked_fill_weights(r.scores, alignment)},
            // The mistake of multiplying the scores by the 0/1 mask: a hidden key's score becomes 0, and e^0 = 1 is not 0.
            {"multiplied_weights", mistakes::causal_scores_multiplied_by_mask(r, V, alignment).weights}};
}

NamedTensors compute(const std::string& example, const LessonInputs& inputs) {
    if (inputs.has("widths")) return measure_spread(inputs.get_counts("widths", 1, "(n)", 1, 4096, 8192));
    if (inputs.has("q")) return saturation(inputs.get("q", 3, "(1, 1, d_k)"), inputs.get("k", 3, "(1, S, d_k)"));

    NamedTensors out;
    Tensor3 Q, K, V;
    if (inputs.has("x")) {
        // Self-attention proper: the queries, keys and values are three projections of one x.
        const Tensor3 x = inputs.get("x", 3, "(B, T, d_in)");
        Q = linear(x, Matrix(inputs.get("w_q", 2, "(d_k, d_in)")), "w_q");
        K = linear(x, Matrix(inputs.get("w_k", 2, "(d_k, d_in)")), "w_k");
        V = linear(x, Matrix(inputs.get("w_v", 2, "(d_v, d_in)")), "w_v");
        out = {{"Q", Q}, {"K", K}, {"V", V}};
    } else {
        Q = inputs.get("Q", 3, "(B, T, d_k)");
        K = inputs.get("K", 3, "(B, S, d_k)");
        V = inputs.get("V", 3, "(B, S, d_v)");
    }
    if (example == "kv_cache") {
        // Step 11: decoding with a KV cache, the T new queries are the last T of the S positions.
        // The same inputs under both alignments, PyTorch's default (wrong here) and the cache's.
        for (const auto& [alignment, suffix] : {std::pair{CausalAlignment::top_left, "_top_left"},
                                                std::pair{CausalAlignment::bottom_right, "_bottom_right"}})
            for (auto& [name, tensor] : causal_attention(Q, K, V, alignment)) out[name + suffix] = std::move(tensor);
        return out;
    }
    for (auto& [name, tensor] : causal_attention(Q, K, V, CausalAlignment::top_left)) out[name] = std::move(tensor);
    return out;
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
