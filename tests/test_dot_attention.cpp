// Tests for attn/dot_attention.hpp: lessons/01-dot-product's numbers by hand, properties, shapes
// with B = 1 and S = 1, and the errors that name the arguments.
#include <catch2/catch.hpp>
#include <cmath>
#include <xtensor/xrandom.hpp>

#include "attn/dot_attention.hpp"
#include "attn/error.hpp"
#include "support/tensor_match.hpp"

namespace {

// lessons/01-dot-product's worked example (seed notebook's A and b).
const attn::Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
const attn::Matrix b = {{7, 8, 9}, {2, 1, 1}};

}  // namespace

TEST_CASE("dot_attention reproduces lesson 1 step by step", "[dot_attention][lesson01]") {
    const auto r = attn::dot_attention(A, b);
    CHECK_TENSOR_CLOSE(attn::Matrix({{50, 57}, {19, 19}}), r.scores, 0.0, 0.0);
    const double w = 1.0 / (1.0 + std::exp(7.0));
    CHECK_TENSOR_CLOSE(attn::Matrix({{w, 1 - w}, {0.5, 0.5}}), r.weights, 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(attn::Matrix({{2.0 - w, 2, 3}, {4, 5, 6}}), r.context, 1e-14, 1e-14);
    // The seed notebook prints 1.9991 for the first element.
    CHECK(std::round(r.context(0, 0) * 1e4) / 1e4 == Approx(1.9991).margin(1e-12));
}

TEST_CASE("identical keys give back that key whatever the query", "[dot_attention][property][lesson01]") {
    xt::random::seed(3);
    const attn::Matrix query = xt::random::randn<double>({1, 3}) * 5.0;
    const attn::Tensor3 same = {{{4, 5, 6}, {4, 5, 6}, {4, 5, 6}}};
    CHECK_TENSOR_CLOSE(attn::Matrix({{4, 5, 6}}), attn::dot_attention(same, query).context, 1e-14, 1e-14);
}

TEST_CASE("dot_attention matches a direct loop on random inputs and its weights sum to one",
          "[dot_attention][property][lesson01]") {
    xt::random::seed(11);
    const attn::Tensor3 keys = xt::random::randn<double>({3, 5, 4});
    const attn::Matrix query = xt::random::randn<double>({3, 4});
    const auto r = attn::dot_attention(keys, query);
    attn::Matrix scores = xt::zeros<double>({3, 5});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t s = 0; s < 5; ++s)
            for (std::size_t h = 0; h < 4; ++h) scores(i, s) += keys(i, s, h) * query(i, h);
    CHECK_TENSOR_CLOSE(scores, r.scores, 1e-13, 1e-13);
    const attn::Vector sums = xt::sum(r.weights, {1});
    CHECK_TENSOR_CLOSE(xt::ones<double>({3}), sums, 1e-14, 0.0);
    attn::Matrix context = xt::zeros<double>({3, 4});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t s = 0; s < 5; ++s)
            for (std::size_t h = 0; h < 4; ++h) context(i, h) += r.weights(i, s) * keys(i, s, h);
    CHECK_TENSOR_CLOSE(context, r.context, 1e-13, 1e-13);
}

TEST_CASE("dot_attention keeps every axis with B = 1 and S = 1", "[dot_attention][shapes][lesson01]") {
    const auto one_sentence = attn::dot_attention(attn::Tensor3({{{1, 2, 3}, {2, 2, 3}}}), attn::Matrix({{7, 8, 9}}));
    CHECK(one_sentence.scores.shape(0) == 1);
    CHECK(one_sentence.context.shape(0) == 1);
    CHECK(one_sentence.context.shape(1) == 3);
    CHECK_TENSOR_CLOSE(attn::Matrix({{2.0 - 1.0 / (1.0 + std::exp(7.0)), 2, 3}}), one_sentence.context, 1e-14, 1e-14);

    const auto one_position = attn::dot_attention(attn::Tensor3({{{1, 2}}, {{3, 4}}}), attn::Matrix({{5, 6}, {7, 8}}));
    CHECK_TENSOR_CLOSE(attn::Matrix({{17}, {53}}), one_position.scores, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1}, {1}}), one_position.weights, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1, 2}, {3, 4}}), one_position.context, 0.0, 0.0);
}

TEST_CASE("dot_attention names both arguments and their shapes when they disagree", "[dot_attention][errors][lesson01]") {
    const attn::Matrix wrong_hidden = {{1, 2, 3, 4}, {1, 2, 3, 4}};
    CHECK_THROWS_WITH(attn::dot_attention(A, wrong_hidden),
                      Catch::Contains("encoder_outputs (2, 2, 3) (B, S, H) has H = 3 but decoder_output (2, 4) (B, H) has H = 4") &&
                          Catch::Contains("decoder_output must be (B, H) = (2, 3)"));
    const attn::Matrix wrong_batch = {{1, 2, 3}};
    CHECK_THROWS_AS(attn::dot_attention(A, wrong_batch), attn::ShapeError);
    const attn::Tensor3 empty = xt::zeros<double>({2, 0, 3});
    CHECK_THROWS_WITH(attn::dot_attention(empty, b), Catch::Contains("at least 1"));
}
