// Tests for the classic mistakes of lessons/05-multi-head-attention and lessons/06-encoder-layer
// (lessons/NN-slug/exercise/mistakes.hpp): each computes what its name says, and differs from the
// correct result on its lesson's worked example.
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <xtensor/xview.hpp>

#include "05-multi-head-attention/exercise/mistakes.hpp"
#include "06-encoder-layer/exercise/mistakes.hpp"
#include "attn/error.hpp"
#include "support/tensor_match.hpp"
#include "tutor/lesson/check.hpp"
#include "tutor/document/lesson_document.hpp"
#include "tutor/named_weights.hpp"

namespace lessons56 {

// lessons/05-multi-head-attention's worked example: "the cat sat", D = 4, h = 2
// (lessons/05-multi-head-attention/README.md, step 1).
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

// lessons/06-encoder-layer's worked layer (lessons/06-encoder-layer/README.md, step 3), read from
// the document.
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

// lessons/06-encoder-layer step 1's rows, weight 1 and bias 0.
const attn::Matrix rows6 = {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}};
const attn::Vector ones5 = {1, 1, 1, 1, 1}, zeros5 = {0, 0, 0, 0, 0};

// Two results that differ beyond `tolerance` somewhere.
bool distinct(const attn::DynamicTensor& right, const attn::DynamicTensor& wrong, double tolerance = 1e-3) {
    return !attn::tutor::compare(right, wrong, {tolerance, tolerance}).passed;
}

}  // namespace lessons56

TEST_CASE("heads split by a reshape get whole positions and differ on lesson 5", "[mistakes][lesson05]") {
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

    const auto split = attn::mistakes::heads_split_by_reshape(right, lesson5_weights(), std::nullopt);
    CHECK_TENSOR_CLOSE(right.q, split.q, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(reshaped, split.q_heads, 0.0, 0.0);
    CHECK(distinct(right.weights, split.weights));
    CHECK(distinct(right.output, split.output));
    const auto merge = attn::mistakes::heads_merged_by_reshape(right, lesson5_weights());
    CHECK_TENSOR_CLOSE(right.context_heads, merge.context_heads, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::mistakes::merge_heads_by_reshape(right.context_heads), merge.context, 0.0, 0.0);
    CHECK(distinct(right.output, merge.output));
    const auto both = attn::mistakes::heads_split_and_merged_by_reshape(right, lesson5_weights(), std::nullopt);
    CHECK_TENSOR_CLOSE(split.context_heads, both.context_heads, 0.0, 0.0);
    CHECK(distinct(split.context, both.context));
    CHECK(distinct(right.output, both.output));
}

TEST_CASE("multi-head attention without the scale gives lesson 5 step 8's unscaled numbers", "[mistakes][lesson05]") {
    using namespace lessons56;
    const auto right = right5(x5);
    const auto wrong = attn::mistakes::heads_scaled_by(right, lesson5_weights(), std::nullopt, 1.0);
    CHECK_TENSOR_CLOSE(right.scores * std::sqrt(2.0), wrong.scores, 1e-12, 1e-12);
    // The values lessons/05-multi-head-attention prints as output_unscaled (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{3.2181, 1.8503, 1.1547, 0.0951}, {3.3098, 2.2731, 1.2627, 0.5407},
                                       {2.5838, 2.5222, 0.5364, 0.5465}}}),
                       wrong.output, 5e-5, 0.0);
    CHECK(distinct(right.weights, wrong.weights));
    CHECK(distinct(right.output, wrong.output));
}

TEST_CASE("multi-head attention scaled by the model width divides by the square root of D and differs on lesson 5",
          "[mistakes][lesson05]") {
    using namespace lessons56;
    const auto right = right5(x5);
    const auto wrong = attn::mistakes::heads_scaled_by(right, lesson5_weights(), std::nullopt, 0.5);  // 1/√D, D = 4
    // √d_k / √D = 1/√h: every score √2 times smaller.
    CHECK_TENSOR_CLOSE(right.scores / std::sqrt(2.0), wrong.scores, 1e-12, 1e-12);
    CHECK(distinct(right.weights, wrong.weights));
    CHECK(distinct(right.output, wrong.output));
    CHECK(distinct(attn::mistakes::heads_scaled_by(right, lesson5_weights(), std::nullopt, 1.0).output, wrong.output));
}

TEST_CASE("an inverted padding mask attends to the padding only on lesson 5's padded batch", "[mistakes][lesson05]") {
    using namespace lessons56;
    const auto right = right5(batch5, mask5);
    const auto wrong = attn::mistakes::mask_inverted(right, lesson5_weights(), mask5);
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
}

TEST_CASE("a padding mask applied after the softmax leaves rows below 1 on lesson 5's padded batch", "[mistakes][lesson05]") {
    using namespace lessons56;
    const auto right = right5(batch5, mask5);
    const auto wrong = attn::mistakes::mask_after_softmax(right, lesson5_weights(), mask5);
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

TEST_CASE("multi-head attention without W_o outputs the context and differs on lesson 5", "[mistakes][lesson05]") {
    using namespace lessons56;
    const auto right = right5(x5);
    const auto wrong = attn::mistakes::without_output_projection(right);
    CHECK_TENSOR_CLOSE(right.context, wrong.output, 0.0, 0.0);
    CHECK(distinct(right.output, wrong.output));
    // Without a W_o to forget it is the right answer.
    attn::MultiHeadAttentionWeights no_w_o = lesson5_weights();
    no_w_o.w_o.reset();
    no_w_o.b_o.reset();
    no_w_o.no_output_projection = true;
    const auto right_without = attn::multi_head_attention(x5, x5, x5, no_w_o, 2);
    CHECK_TENSOR_CLOSE(right_without.output, attn::mistakes::without_output_projection(right_without).output, 0.0, 0.0);
}

TEST_CASE("a query whose keys are all padding gets NaN instead of weights of zero", "[mistakes][lesson05]") {
    using namespace lessons56;
    const attn::Matrix all_padding = {{1, 1, 1}, {0, 0, 0}};
    const auto right = right5(batch5, all_padding);
    const auto wrong = attn::mistakes::nan_for_fully_masked_query(right, lesson5_weights(), all_padding);
    // Sentence 0 is untouched; every weight, context and output of sentence 1 is NaN.
    const attn::Tensor4 first = xt::view(wrong.weights, xt::range(0, 1), xt::all(), xt::all(), xt::all());
    const attn::Tensor4 right_first = xt::view(right.weights, xt::range(0, 1), xt::all(), xt::all(), xt::all());
    CHECK_TENSOR_CLOSE(right_first, first, 0.0, 0.0);
    for (double w : xt::view(wrong.weights, 1, xt::all(), xt::all(), xt::all())) CHECK(std::isnan(w));
    for (double o : xt::view(wrong.output, 1, xt::all(), xt::all())) CHECK(std::isnan(o));
    CHECK(right.weights(1, 0, 0, 0) == 0.0);  // the library's policy
    // Without a fully padded sentence it is the right answer.
    const auto padded = right5(batch5, mask5);
    CHECK_TENSOR_CLOSE(padded.output, attn::mistakes::nan_for_fully_masked_query(padded, lesson5_weights(), mask5).output, 1e-12, 1e-12);
}

TEST_CASE("the mask on the heads axis gives head j sentence j's mask", "[mistakes][lesson05]") {
    using namespace lessons56;
    const auto right = right5(batch5, mask5);
    const auto wrong = attn::mistakes::mask_on_heads_axis(right, lesson5_weights(), mask5);
    // Head 1 of sentence 0 gets sentence 1's mask (key 2 hidden); head 0 of sentence 1 sees its padding.
    for (std::size_t t = 0; t < 3; ++t) {
        CHECK(wrong.weights(0, 1, t, 2) == 0.0);
        CHECK(wrong.weights(1, 0, t, 2) > 0.0);
        CHECK(wrong.weights(0, 0, t, 2) == Approx(right.weights(0, 0, t, 2)).epsilon(1e-12));
    }
    CHECK(distinct(right.output, wrong.output));
}

TEST_CASE("layer norm over the whole tensor pools every row and is right on a single row", "[mistakes][lesson06]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::layer_norm_whole_tensor(rows6, ones5, zeros5, 1e-5);
    // The ten values 0 … 9: mean 4.5, variance 8.25, one for both rows.
    CHECK_TENSOR_CLOSE(attn::Vector({4.5, 4.5}), wrong.mean, 1e-12, 0.0);
    CHECK_TENSOR_CLOSE(attn::Vector({8.25, 8.25}), wrong.variance, 1e-12, 0.0);
    CHECK(wrong.output(0, 0) == Approx(-4.5 / std::sqrt(8.25 + 1e-5)).epsilon(1e-12));
    const attn::Matrix row = {{0, 1, 2, 3, 4}};
    CHECK_TENSOR_CLOSE(attn::layer_norm(row, ones5, zeros5).output,
                       attn::mistakes::layer_norm_whole_tensor(row, ones5, zeros5, 1e-5).output, 1e-15, 0.0);
}

TEST_CASE("layer norm with the unbiased variance shrinks lesson 6's rows", "[mistakes][lesson06]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::layer_norm_unbiased_variance(rows6, ones5, zeros5, 1e-5);
    const auto right = attn::layer_norm(rows6, ones5, zeros5);
    CHECK_TENSOR_CLOSE(attn::Vector({2.5, 2.5}), wrong.variance, 1e-12, 0.0);
    CHECK_TENSOR_CLOSE(right.mean, wrong.mean, 0.0, 0.0);
    const double s = std::sqrt(2.5 + 1e-5);
    CHECK_TENSOR_CLOSE(attn::Matrix({{-2 / s, -1 / s, 0, 1 / s, 2 / s}, {-2 / s, -1 / s, 0, 1 / s, 2 / s}}), wrong.output, 1e-12, 1e-12);
    CHECK(distinct(right.output, wrong.output));
    // lessons/06-encoder-layer step 2's row: 0.75 / √(1/4 + eps), about 1.5 instead of 1.732.
    const attn::Matrix one_hot = {{1, 0, 0, 0}};
    const attn::Vector ones4 = {1, 1, 1, 1}, zeros4 = {0, 0, 0, 0};
    CHECK(attn::mistakes::layer_norm_unbiased_variance(one_hot, ones4, zeros4, 1e-5).output(0, 0) ==
          Approx(0.75 / std::sqrt(0.25 + 1e-5)).epsilon(1e-12));
    CHECK_THROWS_AS(attn::mistakes::layer_norm_unbiased_variance(attn::Matrix({{1}}), attn::Vector({1}), attn::Vector({0}), 1e-5),
                    attn::ShapeError);
}

TEST_CASE("layer norm with eps outside the square root differs slightly on lesson 6 and much on a narrow row",
          "[mistakes][lesson06]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::layer_norm_eps_outside_sqrt(rows6, ones5, zeros5, 1e-5);
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
    const auto narrow_wrong = attn::mistakes::layer_norm_eps_outside_sqrt(narrow, ones4, zeros4, 1e-5);
    CHECK(narrow_wrong.output(0, 1) == Approx(0.0015 / (std::sqrt(7.5e-7) + 1e-5)).epsilon(1e-9));
    CHECK(distinct(narrow_right.output, narrow_wrong.output, 0.1));
}

TEST_CASE("the Annotated Transformer's layer norm as a mistake gives lesson 6 step 2's numbers", "[mistakes][lesson06]") {
    using namespace lessons56;
    const auto wrong = attn::mistakes::layer_norm_annotated_transformer(rows6, ones5, zeros5, 1e-5);
    CHECK_TENSOR_CLOSE(attn::annotated_layer_norm(rows6, ones5, zeros5, 1e-5).output, wrong.output, 0.0, 0.0);
    // The values lessons/06-encoder-layer prints as annotated (4 decimals).
    CHECK_TENSOR_CLOSE(attn::Matrix({{-1.2649, -0.6325, 0, 0.6325, 1.2649}, {-1.2649, -0.6325, 0, 0.6325, 1.2649}}), wrong.output,
                       5e-5, 0.0);
    CHECK(distinct(attn::layer_norm(rows6, ones5, zeros5).output, wrong.output));
    CHECK(distinct(attn::mistakes::layer_norm_unbiased_variance(rows6, ones5, zeros5, 1e-5).output, wrong.output, 1e-9));
}

TEST_CASE("encoder layers with a wrong layer norm differ from the right one on lesson 6's worked layer", "[mistakes][lesson06]") {
    using namespace lessons56;
    const auto [x6, weights] = lesson6_layer();
    for (bool norm_first : {false, true}) {
        INFO("norm_first " << norm_first);
        const auto options = lesson6_options(norm_first);
        const auto right = attn::transformer_encoder_layer(x6, weights, options);
        const auto unbiased = attn::mistakes::layer_with_norm(right, x6, weights, options, attn::mistakes::layer_norm_unbiased_variance);
        const auto outside = attn::mistakes::layer_with_norm(right, x6, weights, options, attn::mistakes::layer_norm_eps_outside_sqrt);
        const auto annotated = attn::mistakes::layer_with_norm(right, x6, weights, options, attn::mistakes::layer_norm_annotated_transformer);
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

TEST_CASE("swapped norms give lesson 6's pre-norm output for post-norm and the reverse", "[mistakes][lesson06]") {
    using namespace lessons56;
    const auto [x6, weights] = lesson6_layer();
    const auto wrong = attn::mistakes::norms_swapped(x6, weights, lesson6_options(false));
    // The values lessons/06-encoder-layer prints as prenorm_output (4 decimals), read from the
    // document.
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
    const auto wrong_pre = attn::mistakes::norms_swapped(x6, weights, lesson6_options(true));
    CHECK_TENSOR_CLOSE(right.output, wrong_pre.output, 0.0, 0.0);
}

TEST_CASE("an encoder layer without the output projection adds the heads' context and differs on lesson 6",
          "[mistakes][lesson06]") {
    using namespace lessons56;
    const auto [x6, weights] = lesson6_layer();
    const auto right = attn::transformer_encoder_layer(x6, weights, lesson6_options(false));
    const auto wrong = attn::mistakes::layer_without_output_projection(right, x6, weights, lesson6_options(false));
    CHECK_TENSOR_CLOSE(right.attention.context, wrong.attention.output, 0.0, 0.0);
    const attn::Tensor3 expected_residual = x6 + right.attention.context;
    CHECK_TENSOR_CLOSE(expected_residual, wrong.attention_residual, 1e-15, 0.0);
    CHECK(distinct(right.attention_residual, wrong.attention_residual));
    CHECK(distinct(right.output, wrong.output));
}
