// Tests for attn/scaled_dot_product_attention_backward.hpp: central differences with every mask,
// PyTorch's autograd, the property ∂Σoutput/∂V[s] = column sum s of P, masked keys and a fully
// masked query, and the shape errors.
#include <catch2/catch.hpp>
#include <limits>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/scaled_dot_product_attention_backward.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"

using attn::testing::weighted_sum;

namespace {

// Seeded-by-hand inputs: B = 2, T = 3, S = 4, d_k = 2, d_v = 3.
struct Inputs {
    attn::Tensor3 Q = {{{0.5, -1.0}, {1.5, 0.25}, {-0.75, 0.5}}, {{1.0, 1.0}, {-0.5, 2.0}, {0.25, -1.5}}};
    attn::Tensor3 K = {{{1.0, 0.0}, {0.5, 0.5}, {-1.0, 2.0}, {0.0, -0.5}}, {{2.0, 1.0}, {-1.0, 0.5}, {0.5, -0.25}, {1.5, 1.5}}};
    attn::Tensor3 V = {{{1, 2, 3}, {-1, 0.5, 2}, {0.25, -2, 1}, {3, 1, -1}}, {{0.5, 0.5, -0.5}, {2, -1, 1}, {-1.5, 3, 0}, {1, 1, 1}}};
    attn::Tensor3 upstream = {{{1, -0.5, 2}, {0.25, 1.5, -1}, {-2, 0.75, 0.5}}, {{0.5, 1, -1.5}, {2, -0.25, 0.75}, {-1, 1.25, 0.5}}};
};

void check_against_differences(Inputs in, const attn::AttentionOptions& options) {
    const auto loss = [&] { return weighted_sum(attn::scaled_dot_product_attention(in.Q, in.K, in.V, options).output, in.upstream); };
    const auto forward = attn::scaled_dot_product_attention(in.Q, in.K, in.V, options);
    const auto grad = attn::scaled_dot_product_attention_backward(in.Q, in.K, in.V, forward, in.upstream, options);
    CHECK_GRADIENT("query", in.Q, loss, grad.query);
    CHECK_GRADIENT("key", in.K, loss, grad.key);
    CHECK_GRADIENT("value", in.V, loss, grad.value);
}

}  // namespace

TEST_CASE("scaled_dot_product_attention_backward matches central differences, with and without masks",
          "[scaled_dot_product_attention_backward][lesson10]") {
    attn::AttentionOptions options;
    SECTION("no mask") { check_against_differences({}, options); }
    SECTION("causal, T < S, both alignments") {
        options.causal = true;
        check_against_differences({}, options);
        options.causal_alignment = attn::CausalAlignment::bottom_right;
        check_against_differences({}, options);
    }
    SECTION("padding and an additive mask") {
        options.attention_mask = attn::Matrix{{1, 1, 0, 1}, {1, 0, 0, 0}};
        options.additive_mask = attn::Tensor3{{{0.5, 0, 0, -1}, {0, 0.25, 0, 0}, {-0.5, 0, 0, 0}}};
        check_against_differences({}, options);
    }
    SECTION("a scale of 0.3") {
        options.scale = 0.3;
        check_against_differences({}, options);
    }
}

TEST_CASE("scaled_dot_product_attention_backward matches torch.autograd.grad",
          "[scaled_dot_product_attention_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("sdpa")) {
        const attn::Tensor3 Q = fixture.input("query"), K = fixture.input("key"), V = fixture.input("value");
        attn::AttentionOptions options;
        options.causal = fixture.option("causal");
        if (fixture.has("attention_mask")) options.attention_mask = attn::Matrix(fixture.input("attention_mask"));
        const auto forward = attn::scaled_dot_product_attention(Q, K, V, options);
        const auto grad = attn::scaled_dot_product_attention_backward(Q, K, V, forward, fixture.input("grad_output"), options);
        CHECK_AUTOGRAD(fixture, "query", grad.query);
        CHECK_AUTOGRAD(fixture, "key", grad.key);
        CHECK_AUTOGRAD(fixture, "value", grad.value);
    }
}

TEST_CASE("the gradient of sum(output) with respect to V's row s is the column sum s of the weights",
          "[scaled_dot_product_attention_backward][lesson10]") {
    // output[t] = Σ_s P[t, s] V[s], so ∂Σ output / ∂V[s, j] = Σ_t P[t, s] for every feature j.
    Inputs in;
    attn::AttentionOptions options;
    options.causal = true;
    options.attention_mask = attn::Matrix{{1, 1, 1, 0}, {1, 1, 1, 1}};
    const auto forward = attn::scaled_dot_product_attention(in.Q, in.K, in.V, options);
    const attn::Tensor3 ones = xt::ones<double>(forward.output.shape());
    const auto grad = attn::scaled_dot_product_attention_backward(in.Q, in.K, in.V, forward, ones, options);
    attn::Tensor3 column_sums = xt::zeros<double>(in.V.shape());
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t s = 0; s < 4; ++s)
            for (std::size_t j = 0; j < 3; ++j)
                for (std::size_t t = 0; t < 3; ++t) column_sums(b, s, j) += forward.weights(b, t, s);
    CHECK_TENSOR_CLOSE(column_sums, grad.value, 1e-15, 1e-14);
    // The causal mask hides key 3 from every query of T = 3, and the padding hides it in batch 0.
    CHECK(grad.value(0, 3, 0) == 0.0);
    CHECK(grad.value(1, 3, 0) == 0.0);
}

TEST_CASE("scaled_dot_product_attention_backward gives zero, not NaN, to hidden keys and a fully masked query",
          "[scaled_dot_product_attention_backward][lesson10]") {
    Inputs in;
    attn::AttentionOptions options;
    options.attention_mask = attn::Matrix{{1, 0, 1, 0}, {0, 0, 0, 0}};   // batch 1: no key at all
    const auto forward = attn::scaled_dot_product_attention(in.Q, in.K, in.V, options);
    const auto grad = attn::scaled_dot_product_attention_backward(in.Q, in.K, in.V, forward, in.upstream, options);
    const auto check_zero = [](const attn::Matrix& gradient) {
        CHECK_TENSOR_CLOSE(attn::Matrix(xt::zeros<double>(gradient.shape())), gradient, 0.0, 0.0);
    };
    check_zero(xt::view(grad.query, 1));   // the query with no key: zero, not NaN
    check_zero(xt::view(grad.key, 1));
    check_zero(xt::view(grad.value, 1));
    for (std::size_t hidden : {1, 3}) {    // batch 0's hidden keys
        CHECK_TENSOR_CLOSE(attn::Vector(xt::zeros<double>({2})), attn::Vector(xt::view(grad.key, 0, hidden)), 0.0, 0.0);
        CHECK_TENSOR_CLOSE(attn::Vector(xt::zeros<double>({3})), attn::Vector(xt::view(grad.value, 0, hidden)), 0.0, 0.0);
    }
    check_against_differences(in, options);
}

TEST_CASE("scaled_dot_product_attention_backward names an upstream gradient of the wrong shape or not finite",
          "[scaled_dot_product_attention_backward][lesson10]") {
    Inputs in;
    const auto forward = attn::scaled_dot_product_attention(in.Q, in.K, in.V);
    const attn::Tensor3 wrong = xt::zeros<double>({2, 3, 2});
    CHECK_THROWS_AS(attn::scaled_dot_product_attention_backward(in.Q, in.K, in.V, forward, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention_backward(in.Q, in.K, in.V, forward, wrong),
                      Catch::Matchers::Contains("grad_output (2, 3, 2)") && Catch::Matchers::Contains("(2, 3, 3)"));
    attn::Tensor3 not_finite = in.upstream;
    not_finite(1, 2, 0) = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention_backward(in.Q, in.K, in.V, forward, not_finite),
                      Catch::Matchers::Contains("grad_output[1, 2, 0] is nan"));
}
