// Tests for attn/scaled_dot_product_attention.hpp: seed 002's numbers, values written out by
// formula, the causal and padding masks (T != S included), T = 1, the scale, and shape errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xrandom.hpp>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "support/tensor_match.hpp"

namespace {

const double inf = std::numeric_limits<double>::infinity();

attn::AttentionOptions causal() {
    attn::AttentionOptions options;
    options.causal = true;
    return options;
}

// Seed 002's Q, K, V (lessons/04-causal-self-attention), with a batch axis of one.
const attn::Tensor3 seed_Q = {{{0.0, 0.0, 0.0}, {1, 1, 1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}}};
const attn::Tensor3 seed_K = {{{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}, {0.4, 0.4, 0.4}}};
const attn::Tensor3 seed_V = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}}};

}  // namespace

TEST_CASE("seed 002's causal self-attention reproduces its printed numbers", "[sdpa][lesson04]") {
    const auto r = attn::scaled_dot_product_attention(seed_Q, seed_K, seed_V, causal());
    // As printed by the seed, 4 decimals: half a unit of the last digit.
    const attn::Tensor3 printed_weights = {{{1, 0, 0, 0},
                                            {0.4568, 0.5432, 0, 0},
                                            {0.3219, 0.3332, 0.3449, 0},
                                            {0.2309, 0.2432, 0.2561, 0.2698}}};
    const attn::Tensor3 printed_output = {{{1, 0, 0}, {0.4568, 0.5432, 0}, {0.3219, 0.3332, 0.3449}, {0.2309, 0.5130, 0.5260}}};
    CHECK_TENSOR_CLOSE(printed_weights, r.weights, 5e-5, 0.0);
    CHECK_TENSOR_CLOSE(printed_output, r.output, 5e-5, 0.0);
}

TEST_CASE("seed 002's weights equal the softmax written out by formula", "[sdpa][lesson04]") {
    // Every row of Q and K is a number times (1, 1, 1): q_t · k_s = 3 q_t k_s, divided by √3.
    const double q[] = {0.0, 1.0, 0.2, 0.3}, k[] = {0.1, 0.2, 0.3, 0.4};
    attn::Tensor3 expected = xt::zeros<double>({1, 4, 4});
    for (std::size_t t = 0; t < 4; ++t) {
        double sum = 0.0;
        for (std::size_t s = 0; s <= t; ++s) sum += std::exp(std::sqrt(3.0) * q[t] * k[s]);
        for (std::size_t s = 0; s <= t; ++s) expected(0, t, s) = std::exp(std::sqrt(3.0) * q[t] * k[s]) / sum;
    }
    const auto r = attn::scaled_dot_product_attention(seed_Q, seed_K, seed_V, causal());
    CHECK_TENSOR_CLOSE(expected, r.weights, 1e-15, 1e-14);
    // The scores before the mask are the full grid; the masked scores hide s > t with −∞.
    CHECK(r.scores(0, 1, 3) == Approx(1.2 / std::sqrt(3.0)).epsilon(1e-14));
    CHECK(r.masked_scores(0, 1, 3) == -inf);
    CHECK(r.masked_scores(0, 3, 3) == r.scores(0, 3, 3));
    // output row 3 = w0 [1,0,0] + w1 [0,1,0] + w2 [0,0,1] + w3 [0,1,1]
    CHECK(r.output(0, 3, 1) == Approx(expected(0, 3, 1) + expected(0, 3, 3)).epsilon(1e-14));
    CHECK(r.output(0, 3, 2) == Approx(expected(0, 3, 2) + expected(0, 3, 3)).epsilon(1e-14));
}

TEST_CASE("the header example - two positions causal", "[sdpa][lesson04]") {
    const attn::Tensor3 Q = {{{1, 0}, {0, 1}}}, V = {{{10, 0}, {0, 10}}};
    const auto r = attn::scaled_dot_product_attention(Q, Q, V, causal());
    const double a = 1.0 / (1.0 + std::exp(1.0 / std::sqrt(2.0)));  // scores 0 and 1/√2
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{1, 0}, {a, 1 - a}}}), r.weights, 1e-15, 1e-14);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{10, 0}, {10 * a, 10 * (1 - a)}}}), r.output, 1e-14, 1e-14);
}

TEST_CASE("a sequence of one gives weight 1 and returns the value", "[sdpa][lesson04]") {
    const attn::Tensor3 Q = {{{0.3, 0.3, 0.3}}}, K = {{{0.4, 0.4, 0.4}}}, V = {{{0, 1, 1}}};
    for (bool is_causal : {false, true}) {
        attn::AttentionOptions options;
        options.causal = is_causal;
        const auto r = attn::scaled_dot_product_attention(Q, K, V, options);
        CHECK(r.weights.shape(0) == 1);
        CHECK(r.weights.shape(1) == 1);
        CHECK(r.weights(0, 0, 0) == 1.0);
        CHECK_TENSOR_CLOSE(V, r.output, 0.0, 0.0);
    }
}

TEST_CASE("cross-attention with T != S and the scale 1 over root d_k", "[sdpa][lesson04]") {
    // One query [1, 0] against three keys: q·k = 1, 0, −1, divided by √2.
    const attn::Tensor3 Q = {{{1, 0}}}, K = {{{1, 0}, {0, 0}, {-1, 0}}}, V = {{{1}, {2}, {3}}};
    const double e1 = std::exp(1 / std::sqrt(2.0)), e0 = 1.0, e2 = std::exp(-1 / std::sqrt(2.0)), sum = e1 + e0 + e2;
    const auto r = attn::scaled_dot_product_attention(Q, K, V);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{e1 / sum, e0 / sum, e2 / sum}}}), r.weights, 1e-15, 1e-14);
    CHECK(r.output(0, 0, 0) == Approx((e1 + 2 * e0 + 3 * e2) / sum).epsilon(1e-14));

    attn::AttentionOptions unscaled;
    unscaled.scale = 1.0;
    const auto raw = attn::scaled_dot_product_attention(Q, K, V, unscaled);
    const double f1 = std::exp(1.0), f2 = std::exp(-1.0), total = f1 + 1.0 + f2;
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{f1 / total, 1.0 / total, f2 / total}}}), raw.weights, 1e-15, 1e-14);
}

TEST_CASE("the causal mask with T != S follows torch.triu of ones T by S", "[sdpa][mask][lesson04]") {
    xt::random::seed(11);
    const attn::Tensor3 Q = xt::random::randn<double>({2, 5, 3});
    const attn::Tensor3 K = xt::random::randn<double>({2, 3, 3});
    const attn::Tensor3 V = xt::random::randn<double>({2, 3, 2});
    const auto r = attn::scaled_dot_product_attention(Q, K, V, causal());
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t t = 0; t < 5; ++t)
            for (std::size_t s = 0; s < 3; ++s) {
                INFO("b " << b << " t " << t << " s " << s);
                if (s > t) CHECK(r.weights(b, t, s) == 0.0);
                else CHECK(r.weights(b, t, s) > 0.0);
            }
    // Queries 2, 3 and 4 see every key: their rows equal the unmasked attention's.
    const auto unmasked = attn::scaled_dot_product_attention(Q, K, V);
    const attn::Tensor3 late = xt::view(r.weights, xt::all(), xt::range(2, 5), xt::all());
    const attn::Tensor3 late_unmasked = xt::view(unmasked.weights, xt::all(), xt::range(2, 5), xt::all());
    CHECK_TENSOR_CLOSE(late_unmasked, late, 0.0, 0.0);
}

TEST_CASE("the bottom-right causal mask is KV-cache decoding: the newest query sees every key", "[sdpa][mask][lesson04]") {
    xt::random::seed(12);
    const attn::Tensor3 Q = xt::random::randn<double>({2, 2, 3});
    const attn::Tensor3 K = xt::random::randn<double>({2, 5, 3});
    const attn::Tensor3 V = xt::random::randn<double>({2, 5, 2});
    attn::AttentionOptions options = causal();
    options.causal_alignment = attn::CausalAlignment::bottom_right;
    const auto r = attn::scaled_dot_product_attention(Q, K, V, options);
    const auto unmasked = attn::scaled_dot_product_attention(Q, K, V);
    // Query 1 is the newest token: every key is its past. Query 0 sees keys 0 … 3, not key 4.
    const attn::Tensor3 newest = xt::view(r.weights, xt::all(), xt::range(1, 2), xt::all());
    const attn::Tensor3 newest_unmasked = xt::view(unmasked.weights, xt::all(), xt::range(1, 2), xt::all());
    CHECK_TENSOR_CLOSE(newest_unmasked, newest, 0.0, 0.0);
    for (std::size_t b = 0; b < 2; ++b) {
        CHECK(r.weights(b, 0, 4) == 0.0);
        CHECK(r.masked_scores(b, 0, 4) == -inf);
        for (std::size_t s = 0; s < 4; ++s) CHECK(r.weights(b, 0, s) > 0.0);
    }
    // Each row is the softmax of the keys it sees: query 0 over keys 0 … 3 alone.
    const attn::Tensor3 K4 = xt::view(K, xt::all(), xt::range(0, 4), xt::all());
    const attn::Tensor3 V4 = xt::view(V, xt::all(), xt::range(0, 4), xt::all());
    const attn::Tensor3 Q0 = xt::view(Q, xt::all(), xt::range(0, 1), xt::all());
    const auto first = attn::scaled_dot_product_attention(Q0, K4, V4);
    const attn::Tensor3 first_output = xt::view(r.output, xt::all(), xt::range(0, 1), xt::all());
    CHECK_TENSOR_CLOSE(first.output, first_output, 1e-15, 1e-13);
    // The default alignment is top-left: query 0 sees key 0 only.
    const auto top_left = attn::scaled_dot_product_attention(Q, K, V, causal());
    CHECK(top_left.weights(0, 0, 0) == 1.0);
    // More queries than keys: the first T − S queries see no key, and get weights and output 0.
    const attn::Tensor3 Q5 = xt::random::randn<double>({1, 5, 3});
    const attn::Tensor3 K3 = xt::random::randn<double>({1, 3, 3}), V3 = xt::random::randn<double>({1, 3, 2});
    const auto tall = attn::scaled_dot_product_attention(Q5, K3, V3, options);
    for (std::size_t t = 0; t < 2; ++t)
        for (std::size_t s = 0; s < 3; ++s) CHECK(tall.weights(0, t, s) == 0.0);
    CHECK(tall.output(0, 0, 0) == 0.0);
    CHECK(tall.weights(0, 2, 0) == 1.0);
}

TEST_CASE("padded keys get weight exactly zero and the rest renormalise", "[sdpa][mask][lesson04]") {
    const attn::Tensor3 Q = {{{1, 0}}, {{1, 0}}}, K = {{{1, 0}, {0, 0}}, {{1, 0}, {0, 0}}};
    const attn::Tensor3 V = {{{1, 0}, {0, 1}}, {{1, 0}, {0, 1}}};
    attn::AttentionOptions options;
    options.attention_mask = attn::Matrix{{1, 1}, {0, 1}};
    const auto r = attn::scaled_dot_product_attention(Q, K, V, options);
    const double a = 1.0 / (1.0 + std::exp(-1 / std::sqrt(2.0)));
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{a, 1 - a}}, {{0, 1}}}), r.weights, 1e-15, 1e-14);
    CHECK(r.weights(1, 0, 0) == 0.0);
    CHECK(r.masked_scores(1, 0, 0) == -inf);
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{a, 1 - a}}, {{0, 1}}}), r.output, 1e-15, 1e-14);
}

TEST_CASE("a query whose keys are all masked gets zero weights and a zero output", "[sdpa][mask][lesson04]") {
    // Left padding and the causal mask: query 0 of sentence 1 may only see key 0, which is padding.
    const attn::Tensor3 Q = xt::ones<double>({2, 2, 2}), K = xt::ones<double>({2, 2, 2});
    const attn::Tensor3 V = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
    attn::AttentionOptions options = causal();
    options.attention_mask = attn::Matrix{{1, 1}, {0, 1}};
    const auto r = attn::scaled_dot_product_attention(Q, K, V, options);
    CHECK(r.weights(1, 0, 0) == 0.0);
    CHECK(r.weights(1, 0, 1) == 0.0);
    CHECK(r.output(1, 0, 0) == 0.0);
    CHECK(r.output(1, 0, 1) == 0.0);
    CHECK_FALSE(xt::any(xt::isnan(r.output)));
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{1, 2}, {2, 3}}, {{0, 0}, {7, 8}}}), r.output, 1e-15, 1e-15);
}

TEST_CASE("rows sum to one and each batch item is attended on its own", "[sdpa][property][lesson04]") {
    xt::random::seed(5);
    const attn::Tensor3 Q = xt::random::randn<double>({3, 4, 6});
    const attn::Tensor3 K = xt::random::randn<double>({3, 7, 6});
    const attn::Tensor3 V = xt::random::randn<double>({3, 7, 5});
    const auto r = attn::scaled_dot_product_attention(Q, K, V, causal());
    const attn::Matrix sums = xt::sum(r.weights, {2});
    CHECK_TENSOR_CLOSE(xt::ones<double>({3, 4}), sums, 1e-14, 0.0);
    const attn::Tensor3 Q1 = xt::view(Q, xt::range(1, 2)), K1 = xt::view(K, xt::range(1, 2)), V1 = xt::view(V, xt::range(1, 2));
    const auto single = attn::scaled_dot_product_attention(Q1, K1, V1, causal());
    const attn::Tensor3 second = xt::view(r.output, xt::range(1, 2));
    CHECK_TENSOR_CLOSE(single.output, second, 1e-15, 1e-14);
}

TEST_CASE("mismatched shapes name Q K V and their shapes", "[sdpa][errors][lesson04]") {
    const attn::Tensor3 Q = xt::zeros<double>({2, 3, 4}), K = xt::zeros<double>({2, 5, 4}), V = xt::zeros<double>({2, 5, 6});
    CHECK_NOTHROW(attn::scaled_dot_product_attention(Q, K, V));
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q, attn::Tensor3(xt::zeros<double>({2, 5, 3})), V),
                      Catch::Contains("Q (2, 3, 4) (B, T, d_k) has d_k = 4 but K (2, 5, 3) (B, S, d_k) has d_k = 3"));
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q, K, attn::Tensor3(xt::zeros<double>({2, 4, 6}))),
                      Catch::Contains("K (2, 5, 4) (B, S, d_k) has S = 5 but V (2, 4, 6) (B, S, d_v) has S = 4"));
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q, attn::Tensor3(xt::zeros<double>({1, 5, 4})), V),
                      Catch::Contains("Q (2, 3, 4) (B, T, d_k) has B = 2 but K (1, 5, 4) (B, S, d_k) has B = 1"));
    CHECK_THROWS_AS(attn::scaled_dot_product_attention(attn::Tensor3(xt::zeros<double>({2, 0, 4})), K, V), attn::ShapeError);
    attn::AttentionOptions options;
    options.attention_mask = attn::Matrix(xt::ones<double>({2, 3}));
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q, K, V, options),
                      Catch::Contains("attention_mask (2, 3) (B, S) has S = 3") &&
                          Catch::Contains("attention_mask must be (B, S) = (2, 5)"));
    options.attention_mask = attn::Matrix(xt::ones<double>({2, 5}) * 2.0);
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q, K, V, options), Catch::Contains("holds 2 at [0, 0]"));
}

// The non-finite policy: −∞ enters the scores only through a mask. Scores that overflow float64
// used to become −∞ and pass for a fully masked row (zero weights, a zero output, no error).
TEST_CASE("an overflowing score is an error naming the score, not a masked key", "[sdpa][errors][lesson04]") {
    const attn::Tensor3 Q = xt::ones<double>({1, 2, 2}) * 1e160;
    const attn::Tensor3 K = -Q, V = xt::ones<double>({1, 2, 2});
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q, K, V),
                      Catch::StartsWith("scaled_dot_product_attention: scores[0, 0, 0] is -inf, not a finite number") &&
                          Catch::Contains("Q[0, 0] · K[0, 0]"));
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q, Q, V), Catch::Contains("scores[0, 0, 0] is inf"));
    // Even a score the causal mask hides must be a number: it is computed before the mask.
    attn::Tensor3 Q2 = xt::ones<double>({1, 2, 2});
    Q2(0, 0, 0) = std::nan("");
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q2, xt::ones<double>({1, 2, 2}), V, causal()),
                      Catch::Contains("scores[0, 0, 0] is nan"));
    // The weighted mean of values near the largest float64 stays finite; an infinite value does not.
    const attn::Tensor3 Q3 = xt::zeros<double>({1, 2, 2});
    attn::Tensor3 V3 = xt::ones<double>({1, 2, 2}) * 1.7e308;
    const auto ok = attn::scaled_dot_product_attention(Q3, Q3, V3);  // weights 1/2 and 1/2
    CHECK(ok.output(0, 0, 0) == Approx(1.7e308));
    V3(0, 1, 1) = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(attn::scaled_dot_product_attention(Q3, Q3, V3),
                      Catch::StartsWith("scaled_dot_product_attention: output[0, 0, 1] is inf"));
}
