// Tests for attn/luong_attention.hpp: lessons/02-luong's numbers by hand, W_a = I giving
// lessons/01-dot-product back, the transpose relation between the two weight layouts, the concat
// score by hand, B = 1 and S = 1, and the errors that name the arguments.
#include <catch2/catch.hpp>
#include <cmath>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xrandom.hpp>

#include "attn/dot_attention.hpp"
#include "attn/error.hpp"
#include "attn/luong_attention.hpp"
#include "support/tensor_match.hpp"

namespace {

// Seed 001's A and b, with lessons/02-luong's W_a.
const attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
const attn::Matrix b = {{7, 8, 9}, {2, 1, 1}};
const attn::Matrix W = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 1}};

// h̄_sᵀ W h_t by three loops, the way the seed's first LuAttention (matmul(encoder_outputs, W)) scores.
attn::Matrix row_vector_scores(const attn::Tensor3& keys, const attn::Matrix& query, const attn::Matrix& weight) {
    attn::Matrix scores = xt::zeros<double>({keys.shape(0), keys.shape(1)});
    for (std::size_t i = 0; i < keys.shape(0); ++i)
        for (std::size_t s = 0; s < keys.shape(1); ++s)
            for (std::size_t j = 0; j < keys.shape(2); ++j)
                for (std::size_t k = 0; k < keys.shape(2); ++k) scores(i, s) += keys(i, s, j) * weight(j, k) * query(i, k);
    return scores;
}

}  // namespace

TEST_CASE("luong_general_attention reproduces lesson 2 step by step", "[luong_attention][lesson02]") {
    const auto r = attn::luong_general_attention(A, b, W);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{1, 2, 2}, {2, 2, 1}}, {{4, 5, 2}, {4, 5, 2}}}), r.projected, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{41, 39}, {15, 15}}), r.scores, 0.0, 0.0);
    const double w = 1.0 / (1.0 + std::exp(-2.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{w, 1 - w}, {0.5, 0.5}}), r.weights, 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(attn::Matrix({{2.0 - w, 2, 3}, {4, 5, 6}}), r.context, 1e-14, 1e-14);
}

TEST_CASE("luong_general_attention with the identity is dot_attention", "[luong_attention][lesson02]") {
    const attn::Matrix identity = xt::eye<double>(3);
    const auto general = attn::luong_general_attention(A, b, identity);
    const auto dot = attn::dot_attention(A, b);
    CHECK_TENSOR_CLOSE(dot.scores, general.scores, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(dot.weights, general.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(dot.context, general.context, 0.0, 0.0);
    CHECK(std::round(general.context(0, 0) * 1e4) / 1e4 == Approx(1.9991).margin(1e-12));
}

TEST_CASE("the matmul layout of the seed is the nn.Linear layout with W transposed", "[luong_attention][property][lesson02]") {
    xt::random::seed(5);
    const attn::Tensor3 keys = xt::random::randn<double>({3, 4, 5});
    const attn::Matrix query = xt::random::randn<double>({3, 5});
    const attn::Matrix weight = xt::random::randn<double>({5, 5});
    const attn::Matrix transposed = xt::transpose(weight);
    CHECK_TENSOR_CLOSE(row_vector_scores(keys, query, weight), attn::luong_general_attention(keys, query, transposed).scores,
                       1e-12, 1e-12);
    CHECK_TENSOR_CLOSE(row_vector_scores(keys, query, transposed), attn::luong_general_attention(keys, query, weight).scores,
                       1e-12, 1e-12);
    // With lessons/02-luong's numbers: the seed's first version scores 29 and 36, 7 and 7.
    CHECK_TENSOR_CLOSE(attn::Matrix({{29, 36}, {7, 7}}), row_vector_scores(A, b, W), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{29, 36}, {7, 7}}), attn::luong_general_attention(A, b, xt::transpose(W)).scores, 0.0, 0.0);
}

TEST_CASE("identical encoder outputs give equal weights and that output for any W_a", "[luong_attention][property][lesson02]") {
    xt::random::seed(8);
    for (int trial = 0; trial < 5; ++trial) {
        const attn::Matrix weight = xt::random::randn<double>({3, 3}) * 2.0;
        const attn::Matrix query = xt::random::randn<double>({1, 3});
        const auto r = attn::luong_general_attention(attn::Tensor3({{{4, 5, 6}, {4, 5, 6}, {4, 5, 6}}}), query, weight);
        CHECK_TENSOR_CLOSE(attn::Matrix({{1.0 / 3, 1.0 / 3, 1.0 / 3}}), r.weights, 1e-15, 1e-14);
        CHECK_TENSOR_CLOSE(attn::Matrix({{4, 5, 6}}), r.context, 1e-14, 1e-14);
    }
}

TEST_CASE("luong_concat_attention reproduces lesson 2 step 9 by hand", "[luong_attention][lesson02]") {
    const attn::Matrix W_a = {{0.1, 0, 0, -0.5, 0, 0}, {0, 0, 0.1, 0, 0, -0.2}, {0, 0.1, 0, 0, -0.1, 0}};
    const attn::Matrix v_a = {{2, 1, -1}};
    const auto r = attn::luong_concat_attention(A, b, W_a, v_a);
    // The decoder state first, then the encoder output.
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{7, 8, 9, 1, 2, 3}, {7, 8, 9, 2, 2, 3}}, {{2, 1, 1, 4, 5, 6}, {2, 1, 1, 4, 5, 6}}}),
                       r.concatenated, 0.0, 0.0);
    const attn::Tensor3 hidden = {{{std::tanh(0.2), std::tanh(0.3), std::tanh(0.6)}, {std::tanh(-0.3), std::tanh(0.3), std::tanh(0.6)}},
                                  {{std::tanh(-1.8), std::tanh(-1.1), std::tanh(-0.4)},
                                   {std::tanh(-1.8), std::tanh(-1.1), std::tanh(-0.4)}}};
    CHECK_TENSOR_CLOSE(hidden, r.hidden, 1e-15, 1e-14);
    const double first = 2 * std::tanh(0.2) + std::tanh(0.3) - std::tanh(0.6);
    const double second = 2 * std::tanh(-0.3) + std::tanh(0.3) - std::tanh(0.6);
    const double third = 2 * std::tanh(-1.8) + std::tanh(-1.1) - std::tanh(-0.4);
    CHECK_TENSOR_CLOSE(attn::Matrix({{first, second}, {third, third}}), r.scores, 1e-14, 1e-14);
    const double w = 1.0 / (1.0 + std::exp(second - first));
    CHECK_TENSOR_CLOSE(attn::Matrix({{w, 1 - w}, {0.5, 0.5}}), r.weights, 1e-14, 1e-14);
    CHECK_TENSOR_CLOSE(attn::Matrix({{2 - w, 2, 3}, {4, 5, 6}}), r.context, 1e-14, 1e-14);
}

TEST_CASE("luong_concat_attention accepts a hidden width other than H", "[luong_attention][shapes][lesson02]") {
    // A = 1: the score is v · tanh(w · [h_t ; h̄_s]) with a single hidden unit.
    const attn::Matrix W_a = {{1, 0, 0, 0, 0, 1}};  // reads h_t[1] and h̄_s[3]
    const auto r = attn::luong_concat_attention(A, b, W_a, attn::Matrix({{3}}));
    CHECK_TENSOR_CLOSE(attn::Matrix({{3 * std::tanh(10.0), 3 * std::tanh(10.0)}, {3 * std::tanh(8.0), 3 * std::tanh(8.0)}}),
                       r.scores, 1e-14, 1e-14);
    CHECK(r.hidden.shape(2) == 1);
}

TEST_CASE("luong attention keeps every axis with B = 1 and S = 1", "[luong_attention][shapes][lesson02]") {
    const auto one_sentence = attn::luong_general_attention(attn::Tensor3({{{1, 2, 3}, {2, 2, 3}}}), attn::Matrix({{7, 8, 9}}), W);
    CHECK_TENSOR_CLOSE(attn::Matrix({{41, 39}}), one_sentence.scores, 0.0, 0.0);
    CHECK(one_sentence.context.shape(0) == 1);
    CHECK(one_sentence.context.shape(1) == 3);

    const attn::Tensor3 one_position = {{{1, 2}}, {{3, 4}}};
    const attn::Matrix query = {{5, 6}, {7, 8}};
    const auto general = attn::luong_general_attention(one_position, query, attn::Matrix({{0, 1}, {1, 0}}));
    CHECK_TENSOR_CLOSE(attn::Matrix({{16}, {52}}), general.scores, 0.0, 0.0);  // [2, 1]·[5, 6], [4, 3]·[7, 8]
    CHECK_TENSOR_CLOSE(attn::Matrix({{1}, {1}}), general.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2}, {3, 4}}), general.context, 0.0, 0.0);
    const auto concat = attn::luong_concat_attention(one_position, query, attn::Matrix({{0, 0, 0, 0}}), attn::Matrix({{1}}));
    CHECK_TENSOR_CLOSE(attn::Matrix({{1}, {1}}), concat.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2}, {3, 4}}), concat.context, 0.0, 0.0);
}

TEST_CASE("luong attention names the argument and both shapes when they disagree", "[luong_attention][errors][lesson02]") {
    CHECK_THROWS_WITH(attn::luong_general_attention(A, b, xt::zeros<double>({4, 4})),
                      Catch::Contains("W_a (4, 4) (H, H) has H = 4") && Catch::Contains("encoder_outputs (2, 2, 3) (B, S, H) has H = 3") &&
                          Catch::Contains("(H, H) = (3, 3)"));
    CHECK_THROWS_WITH(attn::luong_general_attention(A, b, xt::zeros<double>({3, 4})), Catch::Contains("W_a (3, 4) (H, H) has H = 4"));
    CHECK_THROWS_WITH(attn::luong_general_attention(A, attn::Matrix({{1, 2, 3, 4}, {1, 2, 3, 4}}), W),
                      Catch::Contains("decoder_output (2, 4) (B, H) has H = 4") && Catch::Contains("encoder_outputs (2, 2, 3) (B, S, H) has H = 3"));
    CHECK_THROWS_AS(attn::luong_general_attention(xt::zeros<double>({2, 0, 3}), b, W), attn::ShapeError);

    const attn::Matrix W_a = xt::zeros<double>({3, 6});
    CHECK_THROWS_WITH(attn::luong_concat_attention(A, b, xt::zeros<double>({3, 5}), attn::Matrix({{1, 1, 1}})),
                      Catch::Contains("W_a (3, 5) (A, 2H) has 2H = 5 (2H must be 6)") && Catch::Contains("(A, 2H) = (3, 6)"));
    CHECK_THROWS_WITH(attn::luong_concat_attention(A, b, W_a, attn::Matrix({{1, 1}})),
                      Catch::Contains("v_a (1, 2) (1, A) has A = 2") && Catch::Contains("W_a (3, 6) (A, 2H) has A = 3") &&
                          Catch::Contains("(1, A) = (1, 3)"));
    CHECK_THROWS_AS(attn::luong_concat_attention(A, b, W_a, attn::Matrix({{1, 1, 1}, {1, 1, 1}})), attn::ShapeError);
}
