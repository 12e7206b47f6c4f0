// Tests for the classic mistakes of lessons/01-dot-product to lessons/04-causal-self-attention
// (lessons/NN-slug/exercise/mistakes.hpp): each computes what its name says, and differs from the
// correct result on its lesson's worked example (a mistake that gives the right numbers could not
// be diagnosed).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xview.hpp>

#include "01-dot-product/exercise/mistakes.hpp"
#include "02-luong/exercise/mistakes.hpp"
#include "03-bahdanau/exercise/mistakes.hpp"
#include "04-causal-self-attention/exercise/mistakes.hpp"
#include "attn/softmax.hpp"
#include "support/tensor_match.hpp"
#include "tutor/lesson/check.hpp"

namespace {
// lessons/01-dot-product's worked example.
const attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
const attn::Matrix b = {{7, 8, 9}, {2, 1, 1}};
const double inf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("softmax over the batch axis normalises columns and differs on lesson 1", "[mistakes][lesson01]") {
    const auto wrong = attn::mistakes::softmax_over_batch(attn::dot_attention(A, b), A);
    // Column 0 holds scores 50 and 19: softmax over the batch gives 1/(1 + e^-31) and e^-31/(1 + e^-31).
    const double top = 1.0 / (1.0 + std::exp(-31.0)), top2 = 1.0 / (1.0 + std::exp(-38.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{top, top2}, {1 - top, 1 - top2}}), wrong.weights, 1e-15, 1e-12);
    const auto right = attn::dot_attention(A, b);
    CHECK_FALSE(attn::tutor::compare(right.weights, wrong.weights, {1e-3, 1e-3}).passed);
    CHECK_FALSE(attn::tutor::compare(right.context, wrong.context, {1e-3, 1e-3}).passed);
}

TEST_CASE("attention without the softmax uses the raw scores as weights and differs on lesson 1", "[mistakes][lesson01]") {
    const auto wrong = attn::mistakes::without_softmax(attn::dot_attention(A, b), A);
    CHECK_TENSOR_CLOSE(attn::Matrix({{50, 57}, {19, 19}}), wrong.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{50 + 114, 100 + 114, 150 + 171}, {152, 190, 228}}), wrong.context, 1e-12, 1e-12);
    CHECK_FALSE(attn::tutor::compare(attn::dot_attention(A, b).context, wrong.context, {1e-3, 1e-3}).passed);
}

TEST_CASE("every weight 1, lesson 1's squeeze trap, sums the encoder outputs", "[mistakes][lesson01]") {
    const auto wrong = attn::mistakes::weights_all_one(attn::dot_attention(A, b), A);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 1}, {1, 1}}), wrong.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{3, 4, 6}, {8, 10, 12}}), wrong.context, 0.0, 0.0);
    // With B = 1 the softmax over the batch axis makes every weight 1 too: the two coincide there.
    const attn::Tensor3 one = {{{1, 2, 3}, {2, 2, 3}}};
    const attn::Matrix one_state = {{7, 8, 9}};
    const auto right_one = attn::dot_attention(one, one_state);
    CHECK_TENSOR_CLOSE(attn::mistakes::weights_all_one(right_one, one).weights,
                       attn::mistakes::softmax_over_batch(right_one, one).weights, 0.0, 0.0);
}

TEST_CASE("a softmax without the maximum subtracted is right for small scores and NaN in the hundreds", "[mistakes][lesson01]") {
    const attn::Matrix small = {{1, 2, 3}};
    CHECK_TENSOR_CLOSE(attn::softmax_last_axis(small), attn::mistakes::softmax_without_max_subtraction(small), 1e-15, 1e-15);
    const attn::Matrix large = {{800, 750, -20}, {-800, -900, -760}};
    const attn::Matrix wrong = attn::mistakes::softmax_without_max_subtraction(large);
    CHECK(std::isnan(wrong(0, 0)));  // e^800 = ∞, and ∞ / ∞
    CHECK(wrong(0, 2) == 0.0);       // a finite e^x over ∞
    CHECK(std::isnan(wrong(1, 0)));  // every e^x underflows to 0: 0 / 0
    const attn::Tensor3 hidden = {{{-inf, -inf}}};
    CHECK(std::isnan(attn::mistakes::softmax_without_max_subtraction(hidden)(0, 0, 0)));
    // Through lessons/01-dot-product's steps: the context is NaN where the weights are.
    const attn::Tensor3 big = A * 20.0;  // scores 1000 and 1140
    const auto right = attn::dot_attention(big, b);
    const auto unshifted = attn::mistakes::unshifted_softmax(right, big);
    CHECK(std::isnan(unshifted.weights(0, 1)));
    CHECK(std::isnan(unshifted.context(0, 0)));
}

// ---------------------------------------------------------------------------------------------
// lessons/02-luong to lessons/04-causal-self-attention: Luong, Bahdanau, causal self-attention, on
// each lesson's worked example.

namespace {

// lessons/02-luong's W_a: the third feature becomes third minus first.
const attn::Matrix luong_W = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 1}};

// lessons/03-bahdanau's additive layers.
const attn::Matrix bahdanau_W1 = {{0.5, 0, 0, -0.1, 0, 0},  {0, 0.2, 0, 0, -0.1, 0}, {0, 0, 0.1, 0, 0, -0.1},
                                  {-0.3, 0, 0, 0.1, 0, 0},  {0, 0.1, 0, 0, 0.1, 0},  {0, 0, -0.2, 0, 0, 0.1}};
const attn::Vector bahdanau_b1 = {0.1, 0, -0.1, 0.2, 0, 0};
const attn::Matrix bahdanau_w2 = {{1, -1, 0.5, 1, 0.5, -0.5}};
const attn::Vector bahdanau_b2 = {0.3};

// Seed 002's queries, keys and values (B = 1, T = S = 4, d_k = d_v = 3), from
// lessons/04-causal-self-attention.
const attn::Tensor3 Q4 = {{{0.0, 0.0, 0.0}, {1, 1, 1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}}};
const attn::Tensor3 K4 = {{{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}, {0.4, 0.4, 0.4}}};
const attn::Tensor3 V4 = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}}};

// Two results that a tolerance of 1e-3 cannot confuse.
bool differ(const attn::DynamicTensor& right, const attn::DynamicTensor& wrong) {
    return !attn::tutor::compare(right, wrong, {1e-3, 1e-3}).passed;
}

attn::ScaledDotProductAttentionResult causal(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V) {
    attn::AttentionOptions options;
    options.causal = true;
    return attn::scaled_dot_product_attention(Q, K, V, options);
}

attn::ScaledDotProductAttentionResult causal_lesson4() { return causal(Q4, K4, V4); }

}  // namespace

TEST_CASE("W where its transpose was meant computes the seed's first LuAttention and differs on lesson 2",
          "[mistakes][lesson02]") {
    const auto wrong = attn::mistakes::luong_weight_transposed(A, b, luong_W);
    // encoder_outputs @ W: [1, 2, 3] W = [-2, 2, 3], as lessons/02-luong step 7 works out by hand.
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{-2, 2, 3}, {-1, 2, 3}}, {{-2, 5, 6}, {-2, 5, 6}}}), wrong.projected, 1e-12, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{29, 36}, {7, 7}}), wrong.scores, 1e-12, 0.0);
    const auto right = attn::luong_general_attention(A, b, luong_W);
    CHECK(differ(right.scores, wrong.scores));
    CHECK(differ(right.context, wrong.context));
    // A symmetric W_a hides the mistake: the identity gives lessons/01-dot-product both ways.
    const attn::Matrix identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    CHECK_TENSOR_CLOSE(attn::luong_general_attention(A, b, identity).scores,
                       attn::mistakes::luong_weight_transposed(A, b, identity).scores, 1e-12, 0.0);
}

TEST_CASE("Luong attention with the softmax over the batch normalises columns and differs on lesson 2", "[mistakes][lesson02]") {
    const auto wrong = attn::mistakes::softmax_over_batch(attn::luong_general_attention(A, b, luong_W), A);
    const auto right = attn::luong_general_attention(A, b, luong_W);
    CHECK_TENSOR_CLOSE(right.scores, wrong.scores, 0.0, 0.0);
    // Columns hold scores 41 and 15, then 39 and 15.
    const double first = 1.0 / (1.0 + std::exp(-26.0)), second = 1.0 / (1.0 + std::exp(-24.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{first, second}, {1 - first, 1 - second}}), wrong.weights, 1e-15, 1e-12);
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.context, wrong.context));
}

TEST_CASE("Luong attention averaging the projected outputs gets a wrong context on lesson 2", "[mistakes][lesson02]") {
    const auto wrong = attn::mistakes::luong_context_of_projected(attn::luong_general_attention(A, b, luong_W));
    const auto right = attn::luong_general_attention(A, b, luong_W);
    CHECK_TENSOR_CLOSE(right.weights, wrong.weights, 0.0, 0.0);
    // w [1, 2, 2] + (1 − w) [2, 2, 1] with w = 1 / (1 + e^−2); the second sentence projects to [4, 5, 2].
    const double w = 1.0 / (1.0 + std::exp(-2.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{2 - w, 2, 1 + w}, {4, 5, 2}}), wrong.context, 1e-12, 1e-12);
    CHECK(differ(right.context, wrong.context));
}

TEST_CASE("Bahdanau attention with the concatenation swapped feeds h_t first and differs on lesson 3", "[mistakes][lesson03]") {
    const auto wrong = attn::mistakes::bahdanau_concatenation_swapped(A, b, bahdanau_W1, bahdanau_b1,
                                                                                 bahdanau_w2, bahdanau_b2);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{7, 8, 9, 1, 2, 3}, {7, 8, 9, 2, 2, 3}}, {{2, 1, 1, 4, 5, 6}, {2, 1, 1, 4, 5, 6}}}),
                       wrong.concatenated, 0.0, 0.0);
    // Unit 1 now reads 0.5·h_t[1] − 0.1·h̄_s[1] + 0.1 = 3.5 for the first position, and so on.
    const attn::Tensor3 first_row = xt::view(wrong.preactivation, xt::range(0, 1), xt::range(0, 1), xt::all());
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{3.5, 1.4, 0.5, -1.8, 1.0, -1.5}}}), first_row, 1e-12, 1e-12);
    const auto right = attn::bahdanau_attention(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2);
    CHECK(differ(right.scores, wrong.scores));
    CHECK(differ(right.weights, wrong.weights));
}

TEST_CASE("Bahdanau attention through a reshape instead of a transpose gives lesson 3 step 8's weights", "[mistakes][lesson03]") {
    const auto wrong = attn::mistakes::bahdanau_reshape_not_transpose(
        attn::bahdanau_attention(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2), A, bahdanau_W1, bahdanau_b1,
        bahdanau_w2, bahdanau_b2);
    const auto right = attn::bahdanau_attention(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2);
    CHECK_TENSOR_CLOSE(right.concatenated, wrong.concatenated, 0.0, 0.0);
    // The values lessons/03-bahdanau prints from the seed's own reshape code (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.5184, 0.4816}, {0.4948, 0.5052}}), wrong.weights, 5e-5, 0.0);
    CHECK(differ(right.preactivation, wrong.preactivation));
    CHECK(differ(right.weights, wrong.weights));
    // With S = 1 a reshape is a transpose: the mistake cannot be seen.
    const attn::Tensor3 one_position = {{{1, 2, 3}}};
    const attn::Matrix one_state = {{7, 8, 9}};
    CHECK_TENSOR_CLOSE(attn::bahdanau_attention(one_position, one_state, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2).scores,
                       attn::mistakes::bahdanau_reshape_not_transpose(
                           attn::bahdanau_attention(one_position, one_state, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2),
                           one_position, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2).scores,
                       1e-12, 1e-12);
}

TEST_CASE("Bahdanau attention with the softmax over the batch normalises columns and differs on lesson 3",
          "[mistakes][lesson03]") {
    const auto wrong = attn::mistakes::softmax_over_batch(
        attn::bahdanau_attention(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2), A);
    const auto right = attn::bahdanau_attention(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2);
    CHECK_TENSOR_CLOSE(right.scores, wrong.scores, 0.0, 0.0);
    for (std::size_t s = 0; s < 2; ++s) CHECK(wrong.weights(0, s) + wrong.weights(1, s) == Approx(1.0).margin(1e-12));
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.context, wrong.context));
}

TEST_CASE("causal attention without the scale uses the raw dot products and differs on lesson 4", "[mistakes][lesson04]") {
    const auto wrong = attn::mistakes::attention_unscaled(Q4, K4, V4, true);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0, -inf, -inf, -inf}, {0.3, 0.6, -inf, -inf}, {0.06, 0.12, 0.18, -inf},
                                       {0.09, 0.18, 0.27, 0.36}}}),
                       wrong.masked_scores, 1e-12, 1e-12);
    const auto right = causal_lesson4();
    CHECK(differ(right.scores, wrong.scores));
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.output, wrong.output));
}

TEST_CASE("a causal mask on the wrong triangle hides the past and differs on lesson 4", "[mistakes][lesson04]") {
    const auto wrong = attn::mistakes::causal_mask_on_wrong_triangle(causal_lesson4(), V4);
    const auto right = causal_lesson4();
    CHECK_TENSOR_CLOSE(right.scores, wrong.scores, 0.0, 0.0);
    // Query 0 (all scores 0) sees every key; query 3 sees only key 3.
    const attn::Tensor3 first_and_last = xt::view(wrong.weights, xt::all(), xt::keep(0, 3), xt::all());
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0.25, 0.25, 0.25, 0.25}, {0, 0, 0, 1}}}), first_and_last, 1e-15, 1e-12);
    CHECK(wrong.masked_scores(0, 1, 0) == -inf);
    CHECK(wrong.masked_scores(0, 1, 3) == Approx(1.2 / std::sqrt(3.0)).epsilon(1e-12));
    CHECK(differ(right.masked_scores, wrong.masked_scores));
    CHECK(differ(right.output, wrong.output));
}

TEST_CASE("causal attention with the softmax over the queries normalises columns and differs on lesson 4",
          "[mistakes][lesson04]") {
    const auto wrong = attn::mistakes::softmax_over_queries(causal_lesson4(), V4);
    const auto right = causal_lesson4();
    CHECK_TENSOR_CLOSE(right.masked_scores, wrong.masked_scores, 0.0, 0.0);
    for (std::size_t s = 0; s < 4; ++s) {
        double column = 0.0;
        for (std::size_t t = 0; t < 4; ++t) column += wrong.weights(0, t, s);
        CHECK(column == Approx(1.0).margin(1e-12));
    }
    CHECK(wrong.weights(0, 3, 3) == 1.0);  // key 3 is visible to query 3 alone
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.output, wrong.output));
    // Two queries over four keys (lessons/04-causal-self-attention step 11): keys 2 and 3 are
    // hidden from both, and their columns become NaN, as torch.softmax(masked, dim=1) gives them;
    // so does every output.
    const attn::Tensor3 two_queries = {{{1, 1, 1}, {0.3, 0.3, 0.3}}};
    const auto cross = attn::mistakes::softmax_over_queries(causal(two_queries, K4, V4), V4);
    CHECK(cross.weights(0, 0, 0) + cross.weights(0, 1, 0) == Approx(1.0).margin(1e-12));
    CHECK(std::isnan(cross.weights(0, 0, 2)));
    CHECK(std::isnan(cross.weights(0, 1, 3)));
    CHECK(std::isnan(cross.output(0, 0, 0)));
}

TEST_CASE("a causal mask applied after the softmax leaves rows that do not sum to 1 on lesson 4", "[mistakes][lesson04]") {
    const auto wrong = attn::mistakes::causal_mask_after_softmax(causal_lesson4(), V4);
    const auto right = causal_lesson4();
    CHECK_TENSOR_CLOSE(right.scores, wrong.masked_scores, 0.0, 0.0);  // the softmax saw the scores unmasked
    // Row 1: the share of keys 0 and 1 in a softmax over all four scores 0.3, 0.6, 0.9, 1.2 over √3.
    double total = 0.0;
    for (double dot : {0.3, 0.6, 0.9, 1.2}) total += std::exp(dot / std::sqrt(3.0));
    const double w0 = std::exp(0.3 / std::sqrt(3.0)) / total, w1 = std::exp(0.6 / std::sqrt(3.0)) / total;
    const attn::Tensor3 first_rows = xt::view(wrong.weights, xt::all(), xt::range(0, 2), xt::all());
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0.25, 0, 0, 0}, {w0, w1, 0, 0}}}), first_rows, 1e-15, 1e-12);
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.output, wrong.output));
}

TEST_CASE("causal scores multiplied by the 0/1 mask give lesson 4 step 9's weights", "[mistakes][lesson04]") {
    const auto wrong = attn::mistakes::causal_scores_multiplied_by_mask(causal_lesson4(), V4);
    const auto right = causal_lesson4();
    CHECK(wrong.masked_scores(0, 1, 2) == 0.0);
    // The values lessons/04-causal-self-attention prints as multiplied_weights (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0.2500, 0.2500, 0.2500, 0.2500}, {0.2583, 0.3072, 0.2172, 0.2172},
                                       {0.2455, 0.2542, 0.2631, 0.2372}, {0.2309, 0.2432, 0.2561, 0.2698}}}),
                       wrong.weights, 5e-5, 0.0);
    CHECK(differ(right.masked_scores, wrong.masked_scores));
    CHECK(differ(right.weights, wrong.weights));
}

