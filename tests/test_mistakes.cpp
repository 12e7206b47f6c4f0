// Tests for attn/mistakes.hpp: each mistake computes what its name says, and differs from the
// correct result on its lesson's worked example (a mistake that gives the right numbers could not
// be diagnosed).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <optional>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/mistakes.hpp"
#include "support/tensor_match.hpp"
#include "tutor/named_weights.hpp"
#include "tutor/lesson_document.hpp"

namespace {
// Lesson 1's worked example.
const attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
const attn::Matrix b = {{7, 8, 9}, {2, 1, 1}};
}  // namespace

TEST_CASE("softmax over the batch axis normalises columns and differs on lesson 1", "[mistakes]") {
    const auto wrong = attn::mistakes::dot_attention_softmax_over_batch(A, b);
    // Column 0 holds scores 50 and 19: softmax over the batch gives 1/(1 + e^-31) and e^-31/(1 + e^-31).
    const double top = 1.0 / (1.0 + std::exp(-31.0)), top2 = 1.0 / (1.0 + std::exp(-38.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{top, top2}, {1 - top, 1 - top2}}), wrong.weights, 1e-15, 1e-12);
    const auto right = attn::dot_attention(A, b);
    CHECK_FALSE(attn::tutor::compare(right.weights, wrong.weights, {1e-3, 1e-3}).passed);
    CHECK_FALSE(attn::tutor::compare(right.context, wrong.context, {1e-3, 1e-3}).passed);
}

TEST_CASE("attention without the softmax uses the raw scores as weights and differs on lesson 1", "[mistakes]") {
    const auto wrong = attn::mistakes::dot_attention_without_softmax(A, b);
    CHECK_TENSOR_CLOSE(attn::Matrix({{50, 57}, {19, 19}}), wrong.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{50 + 114, 100 + 114, 150 + 171}, {152, 190, 228}}), wrong.context, 1e-12, 1e-12);
    CHECK_FALSE(attn::tutor::compare(attn::dot_attention(A, b).context, wrong.context, {1e-3, 1e-3}).passed);
}

// ---------------------------------------------------------------------------------------------
// Lessons 2 to 4: Luong, Bahdanau, causal self-attention, on each lesson's worked example.

namespace {

// Lesson 2's W_a: the third feature becomes third minus first.
const attn::Matrix luong_W = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 1}};

// Lesson 3's additive layers.
const attn::Matrix bahdanau_W1 = {{0.5, 0, 0, -0.1, 0, 0},  {0, 0.2, 0, 0, -0.1, 0}, {0, 0, 0.1, 0, 0, -0.1},
                                  {-0.3, 0, 0, 0.1, 0, 0},  {0, 0.1, 0, 0, 0.1, 0},  {0, 0, -0.2, 0, 0, 0.1}};
const attn::Vector bahdanau_b1 = {0.1, 0, -0.1, 0.2, 0, 0};
const attn::Matrix bahdanau_w2 = {{1, -1, 0.5, 1, 0.5, -0.5}};
const attn::Vector bahdanau_b2 = {0.3};

// Lesson 4's seed 002 queries, keys and values (B = 1, T = S = 4, d_k = d_v = 3).
const attn::Tensor3 Q4 = {{{0.0, 0.0, 0.0}, {1, 1, 1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}}};
const attn::Tensor3 K4 = {{{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}, {0.4, 0.4, 0.4}}};
const attn::Tensor3 V4 = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}}};
const double inf = std::numeric_limits<double>::infinity();

// Two results that a tolerance of 1e-3 cannot confuse.
bool differ(const attn::DynamicTensor& right, const attn::DynamicTensor& wrong) {
    return !attn::tutor::compare(right, wrong, {1e-3, 1e-3}).passed;
}

attn::ScaledDotProductAttentionResult causal_lesson4() {
    attn::AttentionOptions options;
    options.causal = true;
    return attn::scaled_dot_product_attention(Q4, K4, V4, options);
}

}  // namespace

TEST_CASE("W where its transpose was meant computes the seed's first LuAttention and differs on lesson 2", "[mistakes]") {
    const auto wrong = attn::mistakes::luong_general_attention_weight_transposed(A, b, luong_W);
    // encoder_outputs @ W: [1, 2, 3] W = [-2, 2, 3], as lesson 2 step 7 works out by hand.
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{-2, 2, 3}, {-1, 2, 3}}, {{-2, 5, 6}, {-2, 5, 6}}}), wrong.projected, 1e-12, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{29, 36}, {7, 7}}), wrong.scores, 1e-12, 0.0);
    const auto right = attn::luong_general_attention(A, b, luong_W);
    CHECK(differ(right.scores, wrong.scores));
    CHECK(differ(right.context, wrong.context));
    // A symmetric W_a hides the mistake: the identity gives lesson 1 both ways.
    const attn::Matrix identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    CHECK_TENSOR_CLOSE(attn::luong_general_attention(A, b, identity).scores,
                       attn::mistakes::luong_general_attention_weight_transposed(A, b, identity).scores, 1e-12, 0.0);
}

TEST_CASE("Luong attention with the softmax over the batch normalises columns and differs on lesson 2", "[mistakes]") {
    const auto wrong = attn::mistakes::luong_general_attention_softmax_over_batch(A, b, luong_W);
    const auto right = attn::luong_general_attention(A, b, luong_W);
    CHECK_TENSOR_CLOSE(right.scores, wrong.scores, 0.0, 0.0);
    // Columns hold scores 41 and 15, then 39 and 15.
    const double first = 1.0 / (1.0 + std::exp(-26.0)), second = 1.0 / (1.0 + std::exp(-24.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{first, second}, {1 - first, 1 - second}}), wrong.weights, 1e-15, 1e-12);
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.context, wrong.context));
}

TEST_CASE("Luong attention averaging the projected outputs gets a wrong context on lesson 2", "[mistakes]") {
    const auto wrong = attn::mistakes::luong_general_attention_context_of_projected(A, b, luong_W);
    const auto right = attn::luong_general_attention(A, b, luong_W);
    CHECK_TENSOR_CLOSE(right.weights, wrong.weights, 0.0, 0.0);
    // w [1, 2, 2] + (1 − w) [2, 2, 1] with w = 1 / (1 + e^−2); the second sentence projects to [4, 5, 2].
    const double w = 1.0 / (1.0 + std::exp(-2.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{2 - w, 2, 1 + w}, {4, 5, 2}}), wrong.context, 1e-12, 1e-12);
    CHECK(differ(right.context, wrong.context));
}

TEST_CASE("Bahdanau attention with the concatenation swapped feeds h_t first and differs on lesson 3", "[mistakes]") {
    const auto wrong = attn::mistakes::bahdanau_attention_concatenation_swapped(A, b, bahdanau_W1, bahdanau_b1,
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

TEST_CASE("Bahdanau attention through a reshape instead of a transpose gives lesson 3 step 8's weights", "[mistakes]") {
    const auto wrong = attn::mistakes::bahdanau_attention_reshape_not_transpose(A, b, bahdanau_W1, bahdanau_b1,
                                                                                 bahdanau_w2, bahdanau_b2);
    const auto right = attn::bahdanau_attention(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2);
    CHECK_TENSOR_CLOSE(right.concatenated, wrong.concatenated, 0.0, 0.0);
    // The values lesson 3 prints from the seed's own reshape code (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.5184, 0.4816}, {0.4948, 0.5052}}), wrong.weights, 5e-5, 0.0);
    CHECK(differ(right.preactivation, wrong.preactivation));
    CHECK(differ(right.weights, wrong.weights));
    // With S = 1 a reshape is a transpose: the mistake cannot be seen.
    const attn::Tensor3 one_position = {{{1, 2, 3}}};
    const attn::Matrix one_state = {{7, 8, 9}};
    CHECK_TENSOR_CLOSE(attn::bahdanau_attention(one_position, one_state, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2).scores,
                       attn::mistakes::bahdanau_attention_reshape_not_transpose(one_position, one_state, bahdanau_W1, bahdanau_b1,
                                                                                bahdanau_w2, bahdanau_b2).scores,
                       1e-12, 1e-12);
}

TEST_CASE("Bahdanau attention with the softmax over the batch normalises columns and differs on lesson 3", "[mistakes]") {
    const auto wrong = attn::mistakes::bahdanau_attention_softmax_over_batch(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2,
                                                                             bahdanau_b2);
    const auto right = attn::bahdanau_attention(A, b, bahdanau_W1, bahdanau_b1, bahdanau_w2, bahdanau_b2);
    CHECK_TENSOR_CLOSE(right.scores, wrong.scores, 0.0, 0.0);
    for (std::size_t s = 0; s < 2; ++s) CHECK(wrong.weights(0, s) + wrong.weights(1, s) == Approx(1.0).margin(1e-12));
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.context, wrong.context));
}

TEST_CASE("causal attention without the scale uses the raw dot products and differs on lesson 4", "[mistakes]") {
    const auto wrong = attn::mistakes::scaled_dot_product_attention_unscaled(Q4, K4, V4, true);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0, -inf, -inf, -inf}, {0.3, 0.6, -inf, -inf}, {0.06, 0.12, 0.18, -inf},
                                       {0.09, 0.18, 0.27, 0.36}}}),
                       wrong.masked_scores, 1e-12, 1e-12);
    const auto right = causal_lesson4();
    CHECK(differ(right.scores, wrong.scores));
    CHECK(differ(right.weights, wrong.weights));
    CHECK(differ(right.output, wrong.output));
}

TEST_CASE("a causal mask on the wrong triangle hides the past and differs on lesson 4", "[mistakes]") {
    const auto wrong = attn::mistakes::causal_attention_mask_on_wrong_triangle(Q4, K4, V4);
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

TEST_CASE("causal attention with the softmax over the queries normalises columns and differs on lesson 4", "[mistakes]") {
    const auto wrong = attn::mistakes::scaled_dot_product_attention_softmax_over_queries(Q4, K4, V4, true);
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
    // Two queries over four keys (lesson 4 step 11): keys 2 and 3 are hidden from both, and their
    // columns become NaN, as torch.softmax(masked, dim=1) gives them; so does every output.
    const attn::Tensor3 two_queries = {{{1, 1, 1}, {0.3, 0.3, 0.3}}};
    const auto cross = attn::mistakes::scaled_dot_product_attention_softmax_over_queries(two_queries, K4, V4, true);
    CHECK(cross.weights(0, 0, 0) + cross.weights(0, 1, 0) == Approx(1.0).margin(1e-12));
    CHECK(std::isnan(cross.weights(0, 0, 2)));
    CHECK(std::isnan(cross.weights(0, 1, 3)));
    CHECK(std::isnan(cross.output(0, 0, 0)));
}

TEST_CASE("a causal mask applied after the softmax leaves rows that do not sum to 1 on lesson 4", "[mistakes]") {
    const auto wrong = attn::mistakes::causal_attention_mask_after_softmax(Q4, K4, V4);
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

TEST_CASE("causal scores multiplied by the 0/1 mask give lesson 4 step 9's weights", "[mistakes]") {
    const auto wrong = attn::mistakes::causal_attention_scores_multiplied_by_mask(Q4, K4, V4);
    const auto right = causal_lesson4();
    CHECK(wrong.masked_scores(0, 1, 2) == 0.0);
    // The values lesson 4 prints as multiplied_weights (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{0.2500, 0.2500, 0.2500, 0.2500}, {0.2583, 0.3072, 0.2172, 0.2172},
                                       {0.2455, 0.2542, 0.2631, 0.2372}, {0.2309, 0.2432, 0.2561, 0.2698}}}),
                       wrong.weights, 5e-5, 0.0);
    CHECK(differ(right.masked_scores, wrong.masked_scores));
    CHECK(differ(right.weights, wrong.weights));
}

// ---------------------------------------------------------------------------------------------
// Lessons 5 and 6: multi-head attention and the encoder layer, on each lesson's worked example.

namespace lessons56 {

// Lesson 5's worked example: "the cat sat", D = 4, h = 2 (lessons/05-multi-head-attention/README.md, step 1).
const attn::Tensor3 x5 = {{{1, 0, 1, 0}, {0, 2, 0, 1}, {1, 1, 0, 2}}};
// Step 9's padded batch and its attention_mask.
const attn::Tensor3 batch5 = {{{1, 0, 1, 0}, {0, 2, 0, 1}, {1, 1, 0, 2}}, {{0, 1, 1, 0}, {2, 0, 0, 1}, {0, 0, 0, 0}}};
const attn::Matrix mask5 = {{1, 1, 1}, {1, 1, 0}};

attn::MultiHeadAttentionWeights lesson5_weights() {
    attn::MultiHeadAttentionWeights w;
    w.w_q = {{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, -1}};
    w.b_q = {0, 0, 1, 0};
    w.w_k = {{1, 0, 1, 0}, {0, 1, 0, 1}, {0, 1, 1, 0}, {1, 0, 0, -1}};
    w.b_k = {0, 1, 0, 0};
    w.w_v = {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 1}, {0, 0, 0, 1}};
    w.b_v = {0, 0, 0, 0.5};
    w.w_o = attn::Matrix({{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 0}, {0, 0, 0, 1}});
    w.b_o = attn::Vector({1, 0, 0, -1});
    return w;
}

attn::MultiHeadAttentionResult right5(const attn::Tensor3& x, const std::optional<attn::Matrix>& mask = std::nullopt) {
    attn::AttentionOptions options;
    options.attention_mask = mask;
    return attn::multi_head_attention(x, x, x, lesson5_weights(), 2, options);
}

// Lesson 6's worked layer (lessons/06-encoder-layer/README.md, step 3), read from the document.
struct WorkedLayer {
    attn::Tensor3 x;
    attn::EncoderLayerWeights weights;
};

WorkedLayer lesson6_layer() {
    const auto inputs = attn::tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/06-encoder-layer/README.md").inputs("main");
    WorkedLayer layer;
    layer.x = inputs.at("x");
    layer.weights = attn::tutor::encoder_layer_weights_from(inputs);
    return layer;
}

attn::EncoderLayerOptions lesson6_options(bool norm_first) {
    attn::EncoderLayerOptions options;
    options.heads = 2;
    options.norm_first = norm_first;
    return options;
}

// Lesson 6 step 1's rows, weight 1 and bias 0.
const attn::Matrix rows6 = {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}};
const attn::Vector ones5 = {1, 1, 1, 1, 1}, zeros5 = {0, 0, 0, 0, 0};

// Two results that differ beyond `tolerance` somewhere.
bool distinct(const attn::DynamicTensor& right, const attn::DynamicTensor& wrong, double tolerance = 1e-3) {
    return !attn::tutor::compare(right, wrong, {tolerance, tolerance}).passed;
}

}  // namespace lessons56

TEST_CASE("heads split by a reshape get whole positions and differ on lesson 5", "[mistakes]") {
    using namespace lessons56;
    const auto right = right5(x5);
    // q = [[1, 1, 2, 1], [1, 2, 3, -1], [3, 1, 3, -2]] in memory order, cut into rows of d_k = 2.
    const attn::Tensor4 reshaped = attn::mistakes::split_heads_by_reshape(right.q, 2);
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{1, 1}, {2, 1}, {1, 2}}, {{3, -1}, {3, 1}, {3, -2}}}}), reshaped, 0.0, 0.0);
    CHECK(distinct(right.q_heads, reshaped));
    // merge_heads_by_reshape undoes split_heads_by_reshape, and not split_heads.
    CHECK_TENSOR_CLOSE(right.q, attn::mistakes::merge_heads_by_reshape(reshaped), 0.0, 0.0);
    CHECK(distinct(right.q, attn::mistakes::merge_heads_by_reshape(right.q_heads)));
    // A single position: a reshape is a transpose, the mistake cannot be seen.
    const attn::Tensor3 one_position = {{{1, 2, 3, 4}}};
    CHECK_TENSOR_CLOSE(attn::split_heads(one_position, 2), attn::mistakes::split_heads_by_reshape(one_position, 2), 0.0, 0.0);

    const auto split = attn::mistakes::multi_head_attention_split_by_reshape(x5, x5, x5, lesson5_weights(), 2);
    CHECK_TENSOR_CLOSE(right.q, split.q, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(reshaped, split.q_heads, 0.0, 0.0);
    CHECK(distinct(right.weights, split.weights));
    CHECK(distinct(right.output, split.output));
    const auto merge = attn::mistakes::multi_head_attention_merge_by_reshape(x5, x5, x5, lesson5_weights(), 2);
    CHECK_TENSOR_CLOSE(right.context_heads, merge.context_heads, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::mistakes::merge_heads_by_reshape(right.context_heads), merge.context, 0.0, 0.0);
    CHECK(distinct(right.output, merge.output));
    const auto both = attn::mistakes::multi_head_attention_split_and_merge_by_reshape(x5, x5, x5, lesson5_weights(), 2);
    CHECK_TENSOR_CLOSE(split.context_heads, both.context_heads, 0.0, 0.0);
    CHECK(distinct(split.context, both.context));
    CHECK(distinct(right.output, both.output));
}

TEST_CASE("multi-head attention without the scale gives lesson 5 step 8's unscaled numbers", "[mistakes]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::multi_head_attention_unscaled(x5, x5, x5, lesson5_weights(), 2);
    const auto right = right5(x5);
    CHECK_TENSOR_CLOSE(right.scores * std::sqrt(2.0), wrong.scores, 1e-12, 1e-12);
    // The values lesson 5 prints as output_unscaled (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{3.2181, 1.8503, 1.1547, 0.0951}, {3.3098, 2.2731, 1.2627, 0.5407},
                                       {2.5838, 2.5222, 0.5364, 0.5465}}}),
                       wrong.output, 5e-5, 0.0);
    CHECK(distinct(right.weights, wrong.weights));
    CHECK(distinct(right.output, wrong.output));
}

TEST_CASE("multi-head attention scaled by the model width divides by the square root of D and differs on lesson 5",
          "[mistakes]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::multi_head_attention_scaled_by_model_width(x5, x5, x5, lesson5_weights(), 2);
    const auto right = right5(x5);
    // √d_k / √D = 1/√h: every score √2 times smaller.
    CHECK_TENSOR_CLOSE(right.scores / std::sqrt(2.0), wrong.scores, 1e-12, 1e-12);
    CHECK(distinct(right.weights, wrong.weights));
    CHECK(distinct(right.output, wrong.output));
    CHECK(distinct(attn::mistakes::multi_head_attention_unscaled(x5, x5, x5, lesson5_weights(), 2).output, wrong.output));
}

TEST_CASE("an inverted padding mask attends to the padding only on lesson 5's padded batch", "[mistakes]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::multi_head_attention_mask_inverted(batch5, batch5, batch5, lesson5_weights(), 2, mask5);
    const auto right = right5(batch5, mask5);
    CHECK_TENSOR_CLOSE(right.scores, wrong.scores, 0.0, 0.0);
    // Sentence 0 has no padding: every key hidden, weights of zero, output b_o. Sentence 1 sees its padding only.
    attn::Tensor4 expected_weights = xt::zeros<double>({2, 2, 3, 3});
    for (std::size_t j = 0; j < 2; ++j)
        for (std::size_t t = 0; t < 3; ++t) expected_weights(1, j, t, 2) = 1.0;
    CHECK_TENSOR_CLOSE(expected_weights, wrong.weights, 0.0, 0.0);
    const attn::Tensor3 first_output = xt::view(wrong.output, xt::range(0, 1), xt::all(), xt::all());
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{1, 0, 0, -1}, {1, 0, 0, -1}, {1, 0, 0, -1}}}), first_output, 0.0, 0.0);
    CHECK(distinct(right.weights, wrong.weights));
    CHECK(distinct(right.output, wrong.output));
    CHECK_THROWS_AS(attn::mistakes::multi_head_attention_mask_inverted(batch5, batch5, batch5, lesson5_weights(), 2,
                                                                       attn::Matrix({{1, 1, 1}})),
                    attn::ShapeError);
}

TEST_CASE("a padding mask applied after the softmax leaves rows below 1 on lesson 5's padded batch", "[mistakes]") {
    using namespace lessons56;
    const auto wrong =
        attn::mistakes::multi_head_attention_mask_after_softmax(batch5, batch5, batch5, lesson5_weights(), 2, mask5);
    const auto right = right5(batch5, mask5);
    const auto unmasked = right5(batch5);
    CHECK_TENSOR_CLOSE(right.scores, wrong.scores, 0.0, 0.0);
    // Sentence 0 has no padding: right. Sentence 1: its unmasked weights with the padding's share dropped.
    const attn::Tensor4 first = xt::view(wrong.weights, xt::range(0, 1), xt::all(), xt::all(), xt::all());
    const attn::Tensor4 right_first = xt::view(right.weights, xt::range(0, 1), xt::all(), xt::all(), xt::all());
    CHECK_TENSOR_CLOSE(right_first, first, 1e-15, 1e-12);
    for (std::size_t j = 0; j < 2; ++j) {
        for (std::size_t t = 0; t < 3; ++t) {
            CHECK(wrong.weights(1, j, t, 2) == 0.0);
            CHECK(wrong.weights(1, j, t, 0) == Approx(unmasked.weights(1, j, t, 0)).epsilon(1e-12));
            CHECK(wrong.weights(1, j, t, 0) + wrong.weights(1, j, t, 1) == Approx(1.0 - unmasked.weights(1, j, t, 2)).epsilon(1e-12));
        }
    }
    CHECK(distinct(right.weights, wrong.weights));
    CHECK(distinct(right.output, wrong.output));
}

TEST_CASE("multi-head attention without W_o outputs the context and differs on lesson 5", "[mistakes]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::multi_head_attention_without_output_projection(x5, x5, x5, lesson5_weights(), 2);
    const auto right = right5(x5);
    CHECK_TENSOR_CLOSE(right.context, wrong.output, 0.0, 0.0);
    CHECK(distinct(right.output, wrong.output));
    // Without a W_o to forget it is the right answer.
    attn::MultiHeadAttentionWeights no_w_o = lesson5_weights();
    no_w_o.w_o.reset();
    no_w_o.b_o.reset();
    CHECK_TENSOR_CLOSE(attn::multi_head_attention(x5, x5, x5, no_w_o, 2).output,
                       attn::mistakes::multi_head_attention_without_output_projection(x5, x5, x5, no_w_o, 2).output, 0.0, 0.0);
}

TEST_CASE("layer norm with the unbiased variance shrinks lesson 6's rows", "[mistakes]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::layer_norm_unbiased_variance(rows6, ones5, zeros5);
    const auto right = attn::layer_norm(rows6, ones5, zeros5);
    CHECK_TENSOR_CLOSE(attn::Vector({2.5, 2.5}), wrong.variance, 1e-12, 0.0);
    CHECK_TENSOR_CLOSE(right.mean, wrong.mean, 0.0, 0.0);
    const double s = std::sqrt(2.5 + 1e-5);
    CHECK_TENSOR_CLOSE(attn::Matrix({{-2 / s, -1 / s, 0, 1 / s, 2 / s}, {-2 / s, -1 / s, 0, 1 / s, 2 / s}}), wrong.output, 1e-12, 1e-12);
    CHECK(distinct(right.output, wrong.output));
    // Lesson 6 step 2's row: 0.75 / √(1/4 + eps), about 1.5 instead of 1.732.
    const attn::Matrix one_hot = {{1, 0, 0, 0}};
    const attn::Vector ones4 = {1, 1, 1, 1}, zeros4 = {0, 0, 0, 0};
    CHECK(attn::mistakes::layer_norm_unbiased_variance(one_hot, ones4, zeros4).output(0, 0) ==
          Approx(0.75 / std::sqrt(0.25 + 1e-5)).epsilon(1e-12));
    CHECK_THROWS_AS(attn::mistakes::layer_norm_unbiased_variance(attn::Matrix({{1}}), attn::Vector({1}), attn::Vector({0})),
                    attn::ShapeError);
}

TEST_CASE("layer norm with eps outside the square root differs slightly on lesson 6 and much on a narrow row",
          "[mistakes]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::layer_norm_eps_outside_sqrt(rows6, ones5, zeros5);
    const auto right = attn::layer_norm(rows6, ones5, zeros5);
    CHECK_TENSOR_CLOSE(right.variance, wrong.variance, 0.0, 0.0);
    CHECK(wrong.output(0, 0) == Approx(-2 / (std::sqrt(2.0) + 1e-5)).epsilon(1e-12));
    // About 6.5e-6 apart: below the lesson's written digits (5e-5), far above a checker's 1e-9.
    CHECK_FALSE(distinct(right.output, wrong.output, 5e-5));
    CHECK(distinct(right.output, wrong.output, 1e-9));
    // A row whose variance (7.5e-7) is below eps: √(v + eps) and √v + eps are far apart.
    const attn::Matrix narrow = {{1, 1.002, 1, 1}};
    const attn::Vector ones4 = {1, 1, 1, 1}, zeros4 = {0, 0, 0, 0};
    const auto narrow_right = attn::layer_norm(narrow, ones4, zeros4);
    const auto narrow_wrong = attn::mistakes::layer_norm_eps_outside_sqrt(narrow, ones4, zeros4);
    CHECK(narrow_wrong.output(0, 1) == Approx(0.0015 / (std::sqrt(7.5e-7) + 1e-5)).epsilon(1e-9));
    CHECK(distinct(narrow_right.output, narrow_wrong.output, 0.1));
}

TEST_CASE("the Annotated Transformer's layer norm as a mistake gives lesson 6 step 2's numbers", "[mistakes]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::layer_norm_annotated_transformer(rows6, ones5, zeros5);
    CHECK_TENSOR_CLOSE(attn::annotated_layer_norm(rows6, ones5, zeros5, 1e-5).output, wrong.output, 0.0, 0.0);
    // The values lesson 6 prints as annotated (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Matrix({{-1.2649, -0.6325, 0, 0.6325, 1.2649}, {-1.2649, -0.6325, 0, 0.6325, 1.2649}}), wrong.output,
                       5e-5, 0.0);
    CHECK(distinct(attn::layer_norm(rows6, ones5, zeros5).output, wrong.output));
    CHECK(distinct(attn::mistakes::layer_norm_unbiased_variance(rows6, ones5, zeros5).output, wrong.output, 1e-9));
}

TEST_CASE("encoder layers with a wrong layer norm differ from the right one on lesson 6's worked layer", "[mistakes]") {
    using namespace lessons56;
    const auto [x6, weights] = lesson6_layer();
    for (bool norm_first : {false, true}) {
        INFO("norm_first " << norm_first);
        const auto options = lesson6_options(norm_first);
        const auto right = attn::transformer_encoder_layer(x6, weights, options);
        const auto unbiased = attn::mistakes::transformer_encoder_layer_unbiased_variance(x6, weights, options);
        const auto outside = attn::mistakes::transformer_encoder_layer_eps_outside_sqrt(x6, weights, options);
        const auto annotated = attn::mistakes::transformer_encoder_layer_annotated_layer_norm(x6, weights, options);
        if (!norm_first) {
            // Post-norm: attention reads x itself, so everything up to the first norm is right.
            CHECK_TENSOR_CLOSE(right.attention_residual, unbiased.attention_residual, 0.0, 0.0);
            CHECK_TENSOR_CLOSE(right.attention_residual, outside.attention_residual, 0.0, 0.0);
        }
        CHECK(distinct(right.output, unbiased.output));
        CHECK(distinct(right.output, annotated.output));
        CHECK(distinct(right.output, outside.output, 1e-9));
        CHECK(distinct(unbiased.output, annotated.output, 1e-9));
    }
}

TEST_CASE("swapped norms give lesson 6's pre-norm output for post-norm and the reverse", "[mistakes]") {
    using namespace lessons56;
    const auto [x6, weights] = lesson6_layer();
    const auto wrong = attn::mistakes::transformer_encoder_layer_norms_swapped(x6, weights, lesson6_options(false));
    // The values lesson 6 prints as prenorm_output (4 decimals), read from the document.
    const auto document = attn::tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/06-encoder-layer/README.md");
    attn::DynamicTensor prenorm_output;
    for (const auto& block : document.blocks) {
        if (block.kind == attn::tutor::LessonBlock::Kind::expect && block.name == "prenorm_output") {
            prenorm_output = block.literal.tensor;
        }
    }
    REQUIRE(prenorm_output.dimension() == 3);
    CHECK_TENSOR_CLOSE(attn::Tensor3(prenorm_output), wrong.output, 5e-5, 0.0);
    const auto right = attn::transformer_encoder_layer(x6, weights, lesson6_options(false));
    CHECK(distinct(right.output, wrong.output));
    const auto wrong_pre = attn::mistakes::transformer_encoder_layer_norms_swapped(x6, weights, lesson6_options(true));
    CHECK_TENSOR_CLOSE(right.output, wrong_pre.output, 0.0, 0.0);
}

TEST_CASE("an encoder layer without the output projection adds the heads' context and differs on lesson 6",
          "[mistakes]") {
    using namespace lessons56;
    const auto [x6, weights] = lesson6_layer();
    const auto right = attn::transformer_encoder_layer(x6, weights, lesson6_options(false));
    const auto wrong = attn::mistakes::transformer_encoder_layer_without_output_projection(x6, weights, lesson6_options(false));
    CHECK_TENSOR_CLOSE(right.attention.context, wrong.attention.output, 0.0, 0.0);
    const attn::Tensor3 expected_residual = x6 + right.attention.context;
    CHECK_TENSOR_CLOSE(expected_residual, wrong.attention_residual, 1e-15, 0.0);
    CHECK(distinct(right.attention_residual, wrong.attention_residual));
    CHECK(distinct(right.output, wrong.output));
}
