// Tests for attn/multi_head_attention.hpp: split/merge of heads, values written out by formula,
// the per-head loop against the vectorised form, the optional output projection, masks, the
// all-masked policy, and the shape errors (heads not dividing D first of all).
// The comparison with torch.nn.MultiheadAttention itself is in test_compute_modules.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <xtensor/xrandom.hpp>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention.hpp"
#include "support/tensor_match.hpp"

namespace {

attn::MultiHeadAttentionWeights identity_weights(std::size_t D) {
    attn::MultiHeadAttentionWeights w;
    w.w_q = w.w_k = w.w_v = xt::eye<double>(D);
    w.b_q = w.b_k = w.b_v = xt::zeros<double>({D});
    w.no_output_projection = true;
    return w;
}

attn::MultiHeadAttentionWeights random_weights(std::size_t D, bool with_output_projection) {
    attn::MultiHeadAttentionWeights w;
    w.w_q = xt::random::randn<double>({D, D});
    w.w_k = xt::random::randn<double>({D, D});
    w.w_v = xt::random::randn<double>({D, D});
    w.b_q = xt::random::randn<double>({D});
    w.b_k = xt::random::randn<double>({D});
    w.b_v = xt::random::randn<double>({D});
    if (with_output_projection) {
        w.w_o = attn::Matrix(xt::random::randn<double>({D, D}));
        w.b_o = attn::Vector(xt::random::randn<double>({D}));
    }
    w.no_output_projection = !with_output_projection;
    return w;
}

}  // namespace

TEST_CASE("split_heads cuts the features into h consecutive slices and merge_heads undoes it", "[mha][lesson05]") {
    const attn::Tensor3 x = {{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}};  // (B=1, T=2, D=6)
    const attn::Tensor4 heads = attn::split_heads(x, 3);                      // (1, 3, 2, 2)
    const attn::Tensor4 expected = {{{{1, 2}, {7, 8}}, {{3, 4}, {9, 10}}, {{5, 6}, {11, 12}}}};
    CHECK_TENSOR_CLOSE(expected, heads, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(x, attn::merge_heads(heads), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(x, attn::merge_heads(attn::split_heads(x, 1)), 0.0, 0.0);
    CHECK_THROWS_WITH(attn::split_heads(x, 4), Catch::Contains("d_model D = 6") && Catch::Contains("h = 4"));
}

TEST_CASE("the header example - identity projections and two heads", "[mha][lesson05]") {
    const attn::Tensor3 x = {{{1, 0, 0, 1}, {0, 1, 1, 0}}};
    const auto r = attn::multi_head_attention(x, x, x, identity_weights(4), 2);
    // Each head's scores are [[1/√2, 0], [0, 1/√2]]: the diagonal gets a = 1 / (1 + e^(−1/√2)).
    const double a = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0)));
    const attn::Tensor4 weights = {{{{a, 1 - a}, {1 - a, a}}, {{a, 1 - a}, {1 - a, a}}}};
    CHECK_TENSOR_CLOSE(weights, r.weights, 1e-15, 1e-14);
    const attn::Tensor3 context = {{{a, 1 - a, 1 - a, a}, {1 - a, a, a, 1 - a}}};
    CHECK_TENSOR_CLOSE(context, r.context, 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(r.context, r.output, 0.0, 0.0);  // no W_o: the output is the context
}

TEST_CASE("heads of width one - every number by hand", "[mha][lesson05]") {
    // D = 2, h = 2, d_k = 1: the scale is 1, and head j attends with feature j alone.
    const attn::Tensor3 x = {{{1, 0}, {0, 2}}};
    attn::MultiHeadAttentionWeights w = identity_weights(2);
    w.b_v = attn::Vector{0, 1};  // v = x + [0, 1]
    const auto r = attn::multi_head_attention(x, x, x, w, 2);
    const double e = std::exp(1.0), e4 = std::exp(4.0);
    // head 0: q = k = [1, 0] → scores [[1, 0], [0, 0]]; head 1: q = k = [0, 2] → [[0, 0], [0, 4]]
    const attn::Tensor4 weights = {{{{e / (e + 1), 1 / (e + 1)}, {0.5, 0.5}}, {{0.5, 0.5}, {1 / (1 + e4), e4 / (1 + e4)}}}};
    CHECK_TENSOR_CLOSE(weights, r.weights, 1e-15, 1e-14);
    // values: head 0 [1, 0], head 1 [1, 3]
    const attn::Tensor3 context = {{{e / (e + 1), 0.5 * 1 + 0.5 * 3}, {0.5, (1 + 3 * e4) / (1 + e4)}}};
    CHECK_TENSOR_CLOSE(context, r.context, 1e-15, 1e-14);
    CHECK(r.scores(0, 1, 1, 1) == 4.0);
}

TEST_CASE("the per-head loop and the vectorised form give the same numbers", "[mha][property][lesson05]") {
    xt::random::seed(3);
    const attn::Tensor3 query = xt::random::randn<double>({3, 4, 12});
    const attn::Tensor3 key = xt::random::randn<double>({3, 6, 12});
    const attn::Tensor3 value = xt::random::randn<double>({3, 6, 12});
    for (bool with_w_o : {false, true}) {
        const auto w = random_weights(12, with_w_o);
        attn::AttentionOptions options;
        options.causal = true;
        options.attention_mask = attn::Matrix{{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 0, 0}, {0, 1, 1, 1, 1, 1}};
        for (std::size_t heads : {1, 3, 4}) {
            INFO("heads " << heads << " w_o " << with_w_o);
            const auto vectorised = attn::multi_head_attention(query, key, value, w, heads, options);
            const auto loop = attn::multi_head_attention_per_head(query, key, value, w, heads, options);
            CHECK_TENSOR_CLOSE(vectorised.weights, loop.weights, 1e-14, 1e-12);
            CHECK_TENSOR_CLOSE(vectorised.scores, loop.scores, 1e-13, 1e-12);
            CHECK_TENSOR_CLOSE(vectorised.q_heads, loop.q_heads, 0.0, 0.0);
            CHECK_TENSOR_CLOSE(vectorised.v_heads, loop.v_heads, 0.0, 0.0);
            CHECK_TENSOR_CLOSE(vectorised.context, loop.context, 1e-13, 1e-12);
            CHECK_TENSOR_CLOSE(vectorised.output, loop.output, 1e-13, 1e-12);
            CHECK(vectorised.weights.shape(1) == heads);
            CHECK(vectorised.output.shape(1) == 4);  // T
        }
    }
}

TEST_CASE("multi-head attention honours the bottom-right causal alignment in both forms", "[mha][mask][lesson05]") {
    xt::random::seed(13);
    const attn::Tensor3 query = xt::random::randn<double>({2, 2, 8});
    const attn::Tensor3 key = xt::random::randn<double>({2, 5, 8});
    const auto w = random_weights(8, true);
    attn::AttentionOptions options;
    options.causal = true;
    options.causal_alignment = attn::CausalAlignment::bottom_right;
    const auto vectorised = attn::multi_head_attention(query, key, key, w, 2, options);
    const auto loop = attn::multi_head_attention_per_head(query, key, key, w, 2, options);
    CHECK_TENSOR_CLOSE(vectorised.weights, loop.weights, 1e-14, 1e-12);
    CHECK_TENSOR_CLOSE(vectorised.output, loop.output, 1e-13, 1e-12);
    const auto unmasked = attn::multi_head_attention(query, key, key, w, 2);
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t j = 0; j < 2; ++j) {
            CHECK(vectorised.weights(b, j, 0, 4) == 0.0);  // query 0 sees keys 0 … 3
            for (std::size_t s = 0; s < 5; ++s) CHECK(vectorised.weights(b, j, 1, s) == unmasked.weights(b, j, 1, s));
        }
}

TEST_CASE("one head is scaled dot-product attention on the projections", "[mha][lesson05]") {
    xt::random::seed(8);
    const attn::Tensor3 x = xt::random::randn<double>({2, 5, 6});
    const auto w = random_weights(6, false);
    const auto r = attn::multi_head_attention(x, x, x, w, 1);
    const auto single = attn::scaled_dot_product_attention(attn::linear(x, w.w_q, w.b_q), attn::linear(x, w.w_k, w.b_k),
                                                           attn::linear(x, w.w_v, w.b_v));
    CHECK_TENSOR_CLOSE(single.output, r.output, 1e-13, 1e-12);
    const attn::Tensor3 head0 = xt::view(r.weights, xt::all(), 0);
    CHECK_TENSOR_CLOSE(single.weights, head0, 1e-14, 1e-12);
}

TEST_CASE("the output projection is optional - with it output is context W_o-transpose plus b_o", "[mha][lesson05]") {
    xt::random::seed(9);
    const attn::Tensor3 x = xt::random::randn<double>({2, 3, 4});
    auto w = random_weights(4, false);
    const auto without = attn::multi_head_attention(x, x, x, w, 2);
    CHECK_TENSOR_CLOSE(without.context, without.output, 0.0, 0.0);
    w.w_o = attn::Matrix{{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 2, 0}, {0, 0, 0, 1}};
    w.no_output_projection = false;
    const auto no_bias = attn::multi_head_attention(x, x, x, w, 2);
    const attn::Tensor3 c = without.context;
    attn::Tensor3 expected = c;
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t t = 0; t < 3; ++t) {
            expected(b, t, 0) = c(b, t, 1);
            expected(b, t, 1) = c(b, t, 0);
            expected(b, t, 2) = 2 * c(b, t, 2);
        }
    CHECK_TENSOR_CLOSE(expected, no_bias.output, 1e-15, 1e-14);
    w.b_o = attn::Vector{1, 2, 3, 4};
    const auto with_bias = attn::multi_head_attention(x, x, x, w, 2);
    for (std::size_t i = 0; i < 4; ++i) CHECK(with_bias.output(1, 2, i) == Approx(expected(1, 2, i) + (i + 1)).epsilon(1e-14));
}

TEST_CASE("mha padding hides keys in every head and a query with no key gets zeros and b_o", "[mha][mask][lesson05]") {
    xt::random::seed(10);
    const attn::Tensor3 x = xt::random::randn<double>({2, 3, 4});
    auto w = random_weights(4, true);
    attn::AttentionOptions options;
    options.attention_mask = attn::Matrix{{1, 1, 0}, {0, 0, 0}};  // sentence 1 is all padding
    const auto r = attn::multi_head_attention(x, x, x, w, 2, options);
    for (std::size_t j = 0; j < 2; ++j)
        for (std::size_t t = 0; t < 3; ++t) {
            CHECK(r.weights(0, j, t, 2) == 0.0);
            CHECK(r.weights(0, j, t, 0) + r.weights(0, j, t, 1) == Approx(1.0).margin(1e-15));
            for (std::size_t s = 0; s < 3; ++s) CHECK(r.weights(1, j, t, s) == 0.0);
        }
    for (std::size_t t = 0; t < 3; ++t)
        for (std::size_t i = 0; i < 4; ++i) CHECK(r.output(1, t, i) == (*w.b_o)(i));
    // The first sentence does not depend on the second one's padding.
    const attn::Tensor3 first = xt::view(x, xt::range(0, 1));
    attn::AttentionOptions first_options;
    first_options.attention_mask = attn::Matrix{{1, 1, 0}};
    const auto alone = attn::multi_head_attention(first, first, first, w, 2, first_options);
    const attn::Tensor3 first_output = xt::view(r.output, xt::range(0, 1));
    CHECK_TENSOR_CLOSE(alone.output, first_output, 1e-15, 1e-14);
}

TEST_CASE("mha refuses heads that do not divide D and misshapen weights naming them", "[mha][errors][lesson05]") {
    const attn::Tensor3 x = xt::zeros<double>({2, 3, 6});
    const auto w = identity_weights(6);
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, w, 4),
                      Catch::Contains("d_model D = 6 (the last dimension of query (2, 3, 6)) is not a multiple of the "
                                      "number of heads h = 4"));
    CHECK_THROWS_AS(attn::multi_head_attention(x, x, x, w, 0), attn::ShapeError);
    CHECK_THROWS_AS(attn::multi_head_attention_per_head(x, x, x, w, 5), attn::ShapeError);

    auto bad = w;
    bad.w_k = xt::zeros<double>({6, 4});
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 2), Catch::Contains("query (2, 3, 6) (B, T, D) has D = 6 but w_k (6, 4) (D, D) has D = 4; w_k must be (D, D) = (6, 6)"));
    bad = w;
    bad.b_v = xt::zeros<double>({5});
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 2), Catch::Contains("query (2, 3, 6) (B, T, D) has D = 6 but b_v (5) (D) has D = 5"));
    bad = w;
    bad.w_o = attn::Matrix(xt::zeros<double>({6, 3}));
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 2), Catch::Contains("w_o (6, 3)"));
    bad = w;
    bad.b_o = attn::Vector(xt::zeros<double>({6}));
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 2),
                      Catch::Contains("no_output_projection is set and b_o is given"));
    // Without the explicit choice, a missing w_o is an error, not a skipped projection.
    bad.no_output_projection = false;
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 2), Catch::Contains("w_o is missing (b_o is given)"));
    bad.b_o.reset();
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 2),
                      Catch::Contains("multi_head_attention: w_o is missing; give the output projection's weight w_o (D, D) "
                                      "(PyTorch's out_proj.weight), or set no_output_projection = true"));
    CHECK_THROWS_WITH(attn::multi_head_attention_per_head(x, x, x, bad, 2), Catch::Contains("w_o is missing"));
    CHECK_THROWS_WITH(attn::output_projection(x, bad), Catch::Contains("output_projection: w_o is missing"));
    bad.w_o = attn::Matrix(xt::eye<double>(6));
    bad.no_output_projection = true;
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 2),
                      Catch::Contains("no_output_projection is set and w_o is given"));

    const attn::Tensor3 narrow = xt::zeros<double>({2, 4, 5});
    CHECK_THROWS_WITH(attn::multi_head_attention(x, narrow, narrow, w, 2),
                      Catch::Contains("query (2, 3, 6) (B, T, D) has D = 6 but key (2, 4, 5) (B, S, D) has D = 5"));
    const attn::Tensor3 other_batch = xt::zeros<double>({1, 3, 6});
    CHECK_THROWS_WITH(attn::multi_head_attention(x, other_batch, other_batch, w, 2), Catch::Contains("query (2, 3, 6) (B, T, D) has B = 2 but key (1, 3, 6) (B, S, D) has B = 1"));

    attn::AttentionOptions options;
    options.attention_mask = attn::Matrix(xt::ones<double>({2, 4}));
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, w, 2, options),
                      Catch::Contains("attention_mask (2, 4) (B, S) has S = 4; attention_mask must be (B, S) = (2, 3)"));
    options.attention_mask = attn::Matrix{{1, 1, 1}, {1, -1, 1}};
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, w, 2, options), Catch::Contains("holds -1 at [1, 1]"));
}

TEST_CASE("split_in_proj cuts PyTorch's packed in_proj_weight and in_proj_bias row-wise: q, k, v", "[multi_head_attention][lesson05]") {
    // in_proj_weight (3D, D) = (6, 2) holding 0 … 11 row by row; in_proj_bias (6) holding 0 … 5.
    const attn::Matrix packed = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}};
    const attn::Vector packed_bias = {0, 1, 2, 3, 4, 5};
    const auto w = attn::split_in_proj(packed, packed_bias);
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, 1}, {2, 3}}), w.w_q, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{4, 5}, {6, 7}}), w.w_k, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{8, 9}, {10, 11}}), w.w_v, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Vector({0, 1}), w.b_q, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Vector({2, 3}), w.b_k, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Vector({4, 5}), w.b_v, 0.0, 0.0);
    CHECK_FALSE(w.w_o.has_value());
    // bias=False: zero biases, which add nothing.
    const auto unbiased = attn::split_in_proj(packed, std::nullopt);
    CHECK_TENSOR_CLOSE(attn::Vector({0, 0}), unbiased.b_k, 0.0, 0.0);
    CHECK_THROWS_WITH(attn::split_in_proj(attn::Matrix(xt::zeros<double>({5, 2})), std::nullopt),
                      Catch::Contains("split_in_proj: in_proj_weight (5, 2) must be (3D, D)"));
    CHECK_THROWS_WITH(attn::split_in_proj(packed, attn::Vector({0, 1, 2})),
                      Catch::Contains("in_proj_bias (3) must be (3D) = (6) for in_proj_weight (6, 2)"));
}
