// Tests for attn/multi_head_attention_backward.hpp: every input and parameter against central
// differences (with and without w_o, masks, causal, cross-attention), against PyTorch's
// autograd, a fully masked query, and the errors.
#include <catch2/catch.hpp>
#include <limits>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/multi_head_attention_backward.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"

using attn::testing::weighted_sum;

namespace {

// B = 2, T = 2, S = 3, D = 4, h = 2: values a reader could type, no symmetry that hides a swap.
struct Inputs {
    attn::Tensor3 query = {{{0.5, -1.0, 0.25, 1.5}, {1.0, 0.5, -0.5, 0.0}}, {{-0.25, 2.0, 1.0, -1.0}, {0.75, 0.0, 0.5, 0.25}}};
    attn::Tensor3 key = {{{1.0, 0.0, -1.0, 0.5}, {0.25, 0.75, 0.5, -0.5}, {-1.5, 1.0, 0.0, 2.0}},
                         {{0.5, 0.5, 0.5, 0.5}, {2.0, -1.0, 0.25, 0.0}, {-0.5, -0.25, 1.0, 1.0}}};
    attn::Tensor3 value = {{{1, 2, 0, -1}, {0.5, -1, 2, 0.25}, {-2, 0.5, 1, 1}}, {{0, 1, -1, 2}, {1.5, 0.5, 0.25, -0.5}, {1, -1, 1, -1}}};
    attn::Tensor3 upstream = {{{1, -0.5, 2, 0.25}, {-1, 0.75, 0.5, 1.5}}, {{0.5, 1, -1.5, -2}, {2, -0.25, 0.75, 1}}};
    attn::MultiHeadAttentionWeights w;
    Inputs() {
        w.w_q = {{0.5, -0.25, 0.75, 0.0}, {0.25, 0.5, -0.5, 1.0}, {-1.0, 0.25, 0.5, 0.5}, {0.0, 1.0, 0.25, -0.75}};
        w.w_k = {{1.0, 0.5, 0.0, -0.25}, {-0.5, 0.75, 0.25, 0.5}, {0.25, -1.0, 1.0, 0.0}, {0.5, 0.0, -0.5, 1.0}};
        w.w_v = {{0.75, 0.0, 0.5, -0.5}, {0.0, 1.0, -0.25, 0.25}, {0.5, 0.5, 0.5, 0.5}, {-0.25, 0.75, 0.0, 1.0}};
        w.b_q = {0.1, -0.1, 0.2, 0.0};
        w.b_k = {0.0, 0.3, -0.2, 0.1};
        w.b_v = {-0.1, 0.0, 0.1, 0.2};
        w.w_o = attn::Matrix{{1.0, 0.25, -0.5, 0.0}, {0.5, -0.75, 0.0, 0.25}, {0.0, 0.5, 1.0, -1.0}, {-0.25, 0.0, 0.5, 0.75}};
        w.b_o = attn::Vector{0.05, 0.0, -0.05, 0.1};
    }
};

void check_against_differences(Inputs in, const attn::AttentionOptions& options) {
    const std::size_t heads = 2;
    const auto forward = [&] { return attn::multi_head_attention(in.query, in.key, in.value, in.w, heads, options); };
    const auto loss = [&] { return weighted_sum(forward().output, in.upstream); };
    const auto grad = attn::multi_head_attention_backward(in.query, in.key, in.value, in.w, heads, forward(), in.upstream, options);
    CHECK_GRADIENT("query", in.query, loss, grad.query);
    CHECK_GRADIENT("key", in.key, loss, grad.key);
    CHECK_GRADIENT("value", in.value, loss, grad.value);
    CHECK_GRADIENT("w_q", in.w.w_q, loss, grad.weights.w_q);
    CHECK_GRADIENT("w_k", in.w.w_k, loss, grad.weights.w_k);
    CHECK_GRADIENT("w_v", in.w.w_v, loss, grad.weights.w_v);
    CHECK_GRADIENT("b_q", in.w.b_q, loss, grad.weights.b_q);
    CHECK_GRADIENT("b_k", in.w.b_k, loss, grad.weights.b_k);
    CHECK_GRADIENT("b_v", in.w.b_v, loss, grad.weights.b_v);
    REQUIRE(grad.weights.w_o.has_value() == in.w.w_o.has_value());
    REQUIRE(grad.weights.b_o.has_value() == in.w.b_o.has_value());
    if (in.w.w_o) CHECK_GRADIENT("w_o", *in.w.w_o, loss, *grad.weights.w_o);
    if (in.w.b_o) CHECK_GRADIENT("b_o", *in.w.b_o, loss, *grad.weights.b_o);
}

}  // namespace

TEST_CASE("multi_head_attention_backward matches central differences on every input and parameter",
          "[multi_head_attention_backward][lesson10]") {
    Inputs in;
    attn::AttentionOptions options;
    SECTION("cross-attention with w_o") { check_against_differences(in, options); }
    SECTION("causal and padding, with w_o but no b_o") {
        in.w.b_o.reset();
        options.causal = true;
        options.attention_mask = attn::Matrix{{1, 1, 0}, {1, 1, 1}};
        check_against_differences(in, options);
    }
    SECTION("no output projection, an additive mask per head") {
        in.w.w_o.reset();
        in.w.b_o.reset();
        in.w.no_output_projection = true;
        options.additive_mask = attn::Tensor3(xt::zeros<double>({4, 2, 3}));
        (*options.additive_mask)(1, 0, 2) = -0.5;   // batch 0, head 1
        (*options.additive_mask)(2, 1, 0) = 1.25;   // batch 1, head 0
        check_against_differences(in, options);
    }
}

TEST_CASE("multi_head_attention_backward gives a fully masked query zero gradient, not NaN",
          "[multi_head_attention_backward][lesson10]") {
    Inputs in;
    attn::AttentionOptions options;
    options.attention_mask = attn::Matrix{{1, 0, 1}, {0, 0, 0}};   // batch 1 sees no key
    const auto forward = attn::multi_head_attention(in.query, in.key, in.value, in.w, 2, options);
    const auto grad = attn::multi_head_attention_backward(in.query, in.key, in.value, in.w, 2, forward, in.upstream, options);
    const attn::Matrix zeros23 = xt::zeros<double>({2, 4}), zeros34 = xt::zeros<double>({3, 4});
    CHECK_TENSOR_CLOSE(zeros23, attn::Matrix(xt::view(grad.query, 1)), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(zeros34, attn::Matrix(xt::view(grad.key, 1)), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(zeros34, attn::Matrix(xt::view(grad.value, 1)), 0.0, 0.0);
    check_against_differences(in, options);
}

TEST_CASE("multi_head_attention_backward matches torch.autograd.grad", "[multi_head_attention_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("mha")) {
        const attn::Tensor3 query = fixture.input("query"), key = fixture.input("key"), value = fixture.input("value");
        attn::MultiHeadAttentionWeights w;
        w.w_q = fixture.input("w_q"), w.w_k = fixture.input("w_k"), w.w_v = fixture.input("w_v");
        w.b_q = fixture.input("b_q"), w.b_k = fixture.input("b_k"), w.b_v = fixture.input("b_v");
        w.no_output_projection = fixture.option("no_output_projection");
        if (!w.no_output_projection) w.w_o = attn::Matrix(fixture.input("w_o")), w.b_o = attn::Vector(fixture.input("b_o"));
        attn::AttentionOptions options;
        options.causal = fixture.option("causal");
        if (fixture.has("attention_mask")) options.attention_mask = attn::Matrix(fixture.input("attention_mask"));
        const std::size_t heads = std::stoul(fixture.options.at("heads"));
        const auto forward = attn::multi_head_attention(query, key, value, w, heads, options);
        const auto grad = attn::multi_head_attention_backward(query, key, value, w, heads, forward,
                                                              fixture.input("grad_output"), options);
        CHECK_AUTOGRAD(fixture, "query", grad.query);
        CHECK_AUTOGRAD(fixture, "key", grad.key);
        CHECK_AUTOGRAD(fixture, "value", grad.value);
        CHECK_AUTOGRAD(fixture, "w_q", grad.weights.w_q);
        CHECK_AUTOGRAD(fixture, "w_k", grad.weights.w_k);
        CHECK_AUTOGRAD(fixture, "w_v", grad.weights.w_v);
        CHECK_AUTOGRAD(fixture, "b_q", grad.weights.b_q);
        CHECK_AUTOGRAD(fixture, "b_k", grad.weights.b_k);
        CHECK_AUTOGRAD(fixture, "b_v", grad.weights.b_v);
        REQUIRE(grad.weights.w_o.has_value() == !w.no_output_projection);
        if (grad.weights.w_o) {
            CHECK_AUTOGRAD(fixture, "w_o", *grad.weights.w_o);
            CHECK_AUTOGRAD(fixture, "b_o", *grad.weights.b_o);
        }
    }
}

TEST_CASE("multi_head_attention_backward names an upstream gradient of the wrong shape or not finite",
          "[multi_head_attention_backward][lesson10]") {
    Inputs in;
    const auto forward = attn::multi_head_attention(in.query, in.key, in.value, in.w, 2);
    const attn::Tensor3 wrong = xt::zeros<double>({2, 3, 4});
    CHECK_THROWS_AS(attn::multi_head_attention_backward(in.query, in.key, in.value, in.w, 2, forward, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::multi_head_attention_backward(in.query, in.key, in.value, in.w, 2, forward, wrong),
                      Catch::Matchers::Contains("grad_output (2, 3, 4)") && Catch::Matchers::Contains("(2, 2, 4)"));
    CHECK_THROWS_AS(attn::multi_head_attention_backward(in.query, in.key, in.value, in.w, 4, forward, in.upstream), attn::ShapeError);
    CHECK_THROWS_WITH(attn::multi_head_attention_backward(in.query, in.key, in.value, in.w, 4, forward, in.upstream),
                      Catch::Matchers::Contains("forward.q_heads (2, 2, 2, 2)"));
    attn::Tensor3 not_finite = in.upstream;
    not_finite(0, 1, 3) = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(attn::multi_head_attention_backward(in.query, in.key, in.value, in.w, 2, forward, not_finite),
                      Catch::Matchers::Contains("grad_output[0, 1, 3] is inf"));
}
