// Tests for attn/bahdanau_attention.hpp: lessons/03-bahdanau's numbers by hand, the split
// (textbook) form against the concatenation, a direct loop on random inputs, b2 cancelling, B = 1
// and S = 1, and the errors that name the arguments.
#include <catch2/catch.hpp>
#include <cmath>
#include <xtensor/xrandom.hpp>
#include <xtensor/xview.hpp>

#include "attn/bahdanau_attention.hpp"
#include "attn/error.hpp"
#include "support/tensor_match.hpp"

namespace {

// Seed 001's A and b, with lessons/03-bahdanau's weights.
const attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
const attn::Matrix b = {{7, 8, 9}, {2, 1, 1}};
const attn::Matrix W1 = {{0.5, 0, 0, -0.1, 0, 0},  {0, 0.2, 0, 0, -0.1, 0}, {0, 0, 0.1, 0, 0, -0.1},
                         {-0.3, 0, 0, 0.1, 0, 0}, {0, 0.1, 0, 0, 0.1, 0},  {0, 0, -0.2, 0, 0, 0.1}};
const attn::Vector b1 = {0.1, 0, -0.1, 0.2, 0, 0};
const attn::Matrix w2 = {{1, -1, 0.5, 1, 0.5, -0.5}};
const attn::Vector b2 = {0.3};

// score[i, s] = w2 · tanh(W1 [keys[i, s] ; query[i]] + b1) + b2, by loops.
attn::Matrix loop_scores(const attn::Tensor3& keys, const attn::Matrix& query, const attn::Matrix& weight1,
                         const attn::Vector& bias1, const attn::Matrix& weight2, const attn::Vector& bias2) {
    const std::size_t B = keys.shape(0), S = keys.shape(1), H = keys.shape(2);
    attn::Matrix scores = xt::zeros<double>({B, S});
    for (std::size_t i = 0; i < B; ++i) {
        for (std::size_t s = 0; s < S; ++s) {
            scores(i, s) = bias2(0);
            for (std::size_t u = 0; u < 2 * H; ++u) {
                double pre = bias1(u);
                for (std::size_t j = 0; j < H; ++j) pre += weight1(u, j) * keys(i, s, j) + weight1(u, H + j) * query(i, j);
                scores(i, s) += weight2(0, u) * std::tanh(pre);
            }
        }
    }
    return scores;
}

}  // namespace

TEST_CASE("bahdanau_attention reproduces lesson 3 step by step", "[bahdanau_attention][lesson03]") {
    const auto r = attn::bahdanau_attention(A, b, W1, b1, w2, b2);
    // Encoder output first, then the decoder state.
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{1, 2, 3, 7, 8, 9}, {2, 2, 3, 7, 8, 9}}, {{4, 5, 6, 2, 1, 1}, {4, 5, 6, 2, 1, 1}}}),
                       r.concatenated, 0.0, 0.0);
    // lessons/03-bahdanau, step 3, by hand (one-decimal arithmetic, so only float rounding
    // separates them).
    const attn::Tensor3 pre = {{{-0.1, -0.4, -0.7, 0.6, 1.0, 0.3}, {0.4, -0.4, -0.7, 0.3, 1.0, 0.3}},
                               {{1.9, 0.9, 0.4, -0.8, 0.6, -1.1}, {1.9, 0.9, 0.4, -0.8, 0.6, -1.1}}};
    CHECK_TENSOR_CLOSE(pre, r.preactivation, 1e-15, 1e-14);
    const attn::Tensor3 hidden = xt::tanh(pre);
    CHECK_TENSOR_CLOSE(hidden, r.hidden, 1e-15, 1e-14);
    // Step 4: the gap between the two positions comes from units 1 and 4 only.
    const double gap = (std::tanh(0.4) - std::tanh(-0.1)) + (std::tanh(0.3) - std::tanh(0.6));
    CHECK(r.scores(0, 1) - r.scores(0, 0) == Approx(gap).margin(1e-14));
    CHECK(r.scores(0, 0) == Approx(1.0503).margin(5e-5));
    CHECK(r.scores(1, 0) == r.scores(1, 1));
    const double w = 1.0 / (1.0 + std::exp(gap));
    CHECK_TENSOR_CLOSE(attn::Matrix({{w, 1 - w}, {0.5, 0.5}}), r.weights, 1e-14, 1e-13);
    CHECK_TENSOR_CLOSE(attn::Matrix({{2 - w, 2, 3}, {4, 5, 6}}), r.context, 1e-14, 1e-13);
    CHECK(std::round(r.context(0, 0) * 1e4) / 1e4 == Approx(1.5582).margin(1e-12));
}

TEST_CASE("bahdanau_attention matches a direct loop on random inputs", "[bahdanau_attention][property][lesson03]") {
    xt::random::seed(21);
    const attn::Tensor3 keys = xt::random::randn<double>({3, 5, 4});
    const attn::Matrix query = xt::random::randn<double>({3, 4});
    const attn::Matrix weight1 = xt::random::randn<double>({8, 8}) * 0.5;
    const attn::Vector bias1 = xt::random::randn<double>({8});
    const attn::Matrix weight2 = xt::random::randn<double>({1, 8});
    const attn::Vector bias2 = {-0.7};
    const auto r = attn::bahdanau_attention(keys, query, weight1, bias1, weight2, bias2);
    CHECK_TENSOR_CLOSE(loop_scores(keys, query, weight1, bias1, weight2, bias2), r.scores, 1e-13, 1e-13);
    const attn::Vector sums = xt::sum(r.weights, {1});
    CHECK_TENSOR_CLOSE(xt::ones<double>({3}), sums, 1e-14, 0.0);
}

TEST_CASE("the split form W_enc h plus W_dec q equals the concatenation form", "[bahdanau_attention][property][lesson03]") {
    const auto split = attn::bahdanau_split_scores(A, b, W1, b1, w2, b2);
    const auto whole = attn::bahdanau_attention(A, b, W1, b1, w2, b2);
    // lessons/03-bahdanau, step 7, by hand: W_enc [1, 2, 3] and W_dec [7, 8, 9].
    CHECK_TENSOR_CLOSE(attn::Vector({0.5, 0.4, 0.3, -0.3, 0.2, -0.6}), xt::view(split.encoder_projection, 0, 0, xt::all()),
                       1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(attn::Vector({-0.7, -0.8, -0.9, 0.7, 0.8, 0.9}), xt::view(split.decoder_projection, 0, xt::all()),
                       1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(whole.preactivation, split.preactivation, 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(whole.scores, split.scores, 1e-14, 1e-14);

    xt::random::seed(34);
    const attn::Tensor3 keys = xt::random::randn<double>({2, 7, 3});
    const attn::Matrix query = xt::random::randn<double>({2, 3});
    const attn::Matrix weight1 = xt::random::randn<double>({6, 6});
    const attn::Vector bias1 = xt::random::randn<double>({6});
    const attn::Matrix weight2 = xt::random::randn<double>({1, 6});
    const attn::Vector bias2 = {0.25};
    CHECK_TENSOR_CLOSE(attn::bahdanau_attention(keys, query, weight1, bias1, weight2, bias2).scores,
                       attn::bahdanau_split_scores(keys, query, weight1, bias1, weight2, bias2).scores, 1e-13, 1e-13);
}

TEST_CASE("b2 shifts every score and leaves the weights alone", "[bahdanau_attention][property][lesson03]") {
    const auto with_b2 = attn::bahdanau_attention(A, b, W1, b1, w2, b2);
    const auto without = attn::bahdanau_attention(A, b, W1, b1, w2, attn::Vector{0.0});
    CHECK_TENSOR_CLOSE(without.scores + 0.3, with_b2.scores, 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(without.weights, with_b2.weights, 1e-15, 1e-14);
}

TEST_CASE("bahdanau attention keeps every axis with B = 1 and S = 1", "[bahdanau_attention][shapes][lesson03]") {
    // H = 1: h = [h̄_s ; h_t], W1 = I, w2 = [1, -1]: score_s = tanh(h̄_s) − tanh(h_t).
    const attn::Matrix identity = xt::eye<double>(2);
    const auto one_sentence = attn::bahdanau_attention(attn::Tensor3({{{1}, {2}}}), attn::Matrix({{1}}), identity,
                                                       attn::Vector{0, 0}, attn::Matrix({{1, -1}}), attn::Vector{0});
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, std::tanh(2.0) - std::tanh(1.0)}}), one_sentence.scores, 1e-15, 1e-14);
    CHECK(one_sentence.context.shape(0) == 1);

    const attn::Tensor3 one_position = {{{1, 2}}, {{3, 4}}};
    const auto r = attn::bahdanau_attention(one_position, attn::Matrix({{5, 6}, {7, 8}}), xt::eye<double>(4),
                                            attn::Vector{0, 0, 0, 0}, attn::Matrix({{1, 1, 1, 1}}), attn::Vector{0});
    CHECK(r.scores.shape(0) == 2);
    CHECK(r.scores.shape(1) == 1);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1}, {1}}), r.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2}, {3, 4}}), r.context, 0.0, 0.0);
}

TEST_CASE("bahdanau attention names the argument and both shapes when they disagree", "[bahdanau_attention][errors][lesson03]") {
    CHECK_THROWS_WITH(attn::bahdanau_attention(A, b, xt::zeros<double>({6, 5}), b1, w2, b2),
                      Catch::Contains("W1 (6, 5) (2H, 2H) has 2H = 5 (2H must be 6)") && Catch::Contains("encoder_outputs (2, 2, 3) (B, S, H) has H = 3") &&
                          Catch::Contains("(2H, 2H) = (6, 6)"));
    CHECK_THROWS_WITH(attn::bahdanau_attention(A, b, W1, attn::Vector{1, 2, 3, 4, 5, 6, 7}, w2, b2),
                      Catch::Contains("b1 (7) (2H) has 2H = 7 (2H must be 6)"));
    CHECK_THROWS_WITH(attn::bahdanau_attention(A, b, W1, b1, attn::Matrix({{1, 2, 3}}), b2),
                      Catch::Contains("w2 (1, 3) (1, 2H) has 2H = 3") && Catch::Contains("(1, 2H) = (1, 6)"));
    CHECK_THROWS_WITH(attn::bahdanau_attention(A, b, W1, b1, w2, attn::Vector{1, 2}),
                      Catch::Contains("b2 (2) (1): dimension 0 must be 1, it is 2"));
    CHECK_THROWS_WITH(attn::bahdanau_split_scores(A, attn::Matrix({{1, 2, 3}}), W1, b1, w2, b2),
                      Catch::Contains("decoder_output (1, 3) (B, H) has B = 1") && Catch::Contains("(B, H) = (2, 3)"));
    CHECK_THROWS_AS(attn::bahdanau_attention(xt::zeros<double>({0, 2, 3}), attn::Matrix(xt::zeros<double>({0, 3})), W1, b1,
                                             w2, b2),
                    attn::ShapeError);
}
