// Tests of attn/fast/multi_head_attention.hpp side by side with the lesson path: the tiled online
// softmax and the weights-kept form against attn::multi_head_attention (double) on random inputs
// — with and without the causal and padding masks, T ≠ S, T and S not multiples of the tiles, a
// query with no key to attend —, the same policies (mask values, non-finite values named alike,
// fully masked rows), the tiles skipped, the shape errors. Tolerance against the lesson path:
// 1e-5 absolute (float32 against double, values of order 1).
#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <string>

#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "attn/multi_head_attention.hpp"
#include "support/fast_guards.hpp"
#include "support/fast_inputs.hpp"
#include "support/tensor_match.hpp"

using attn::testing::lesson_weights;
using attn::testing::random_fast_parameters;
using attn::testing::random_float;
using attn::testing::widen;
using attn::testing::error_message;

namespace {

// The message of the InputError `call` throws, after the function's name: "q[0, 1, 0] is nan, …".
template <class Call>
std::string error_after_function(const Call& call) {
    const std::string message = error_message(call);
    return message.substr(message.find(": ") + 2);
}

// "scores[0, 0, 0, 7] is inf": the tensor, its index and the value, without the explanation.
std::string named_value(const std::string& message) { return message.substr(0, message.find(", not a finite")); }

}  // namespace

TEST_CASE("the tiled path agrees with the lesson path to 1e-5 with every mask, tile and shape", "[fast_attention][lesson07]") {
    std::mt19937 generator(5);
    const std::size_t B = 3, D = 32, h = 4;
    struct Shape {
        std::size_t T, S;
    };
    struct Tiles {
        std::size_t query, key;
    };
    for (const Shape shape : {Shape{11, 17}, Shape{17, 11}, Shape{13, 13}, Shape{1, 7}}) {
        const auto query = random_float<3>(generator, {B, shape.T, D});
        const auto key = random_float<3>(generator, {B, shape.S, D});
        const auto value = random_float<3>(generator, {B, shape.S, D});
        for (const bool output_projection : {true, false}) {
            const auto parameters = random_fast_parameters(generator, D, output_projection);
            for (const bool padding : {false, true}) {
                // Batch item 1 loses its last keys, batch item 2 every key: its queries get zeros.
                attn::fast::Matrix mask = xt::ones<float>({B, shape.S});
                for (std::size_t s = shape.S / 2; s < shape.S; ++s) mask(1, s) = 0.0f;
                for (std::size_t s = 0; s < shape.S; ++s) mask(2, s) = 0.0f;
                for (const bool causal : {false, true}) {
                    attn::AttentionOptions lesson_options;
                    lesson_options.causal = causal;
                    if (padding) lesson_options.attention_mask = attn::Matrix(widen(mask));
                    const auto expected = attn::multi_head_attention(widen(query), widen(key), widen(value),
                                                                     lesson_weights(parameters), h, lesson_options);
                    for (const Tiles tiles : {Tiles{1, 1}, Tiles{3, 5}, Tiles{4, 16}, Tiles{64, 512}}) {
                        INFO("T " << shape.T << " S " << shape.S << " W_o " << output_projection << " padding "
                                  << padding << " causal " << causal << " tiles " << tiles.query << " x " << tiles.key);
                        attn::fast::AttentionOptions options;
                        options.heads = h;
                        options.causal = causal;
                        options.need_weights = false;
                        options.query_tile = tiles.query;
                        options.key_tile = tiles.key;
                        if (padding) options.attention_mask = mask;
                        const auto got = attn::fast::multi_head_attention(query, key, value, parameters, options);
                        CHECK_TENSOR_CLOSE(expected.output, got.output, 1e-5, 0.0);
                    }
                    INFO("T " << shape.T << " S " << shape.S << " W_o " << output_projection << " padding " << padding
                              << " causal " << causal << ", weights kept");
                    attn::fast::AttentionOptions options;
                    options.heads = h;
                    options.causal = causal;
                    if (padding) options.attention_mask = mask;
                    const auto got = attn::fast::multi_head_attention(query, key, value, parameters, options);
                    CHECK_TENSOR_CLOSE(expected.output, got.output, 1e-5, 0.0);
                    REQUIRE(got.weights.has_value());
                    CHECK_TENSOR_CLOSE(expected.weights, *got.weights, 1e-5, 0.0);
                }
            }
        }
    }
}

TEST_CASE("a query with no key to attend gets a zero context in both paths and both fast forms", "[fast_attention]") {
    std::mt19937 generator(7);
    const std::size_t B = 2, T = 5, D = 8;
    const auto x = random_float<3>(generator, {B, T, D});
    const auto p = random_fast_parameters(generator, D, true);
    // Causal with the first key padded: query 0 sees only key 0, which is padding. Batch item 1: no key at all.
    attn::fast::Matrix mask = xt::ones<float>({B, T});
    mask(0, 0) = 0.0f;
    for (std::size_t s = 0; s < T; ++s) mask(1, s) = 0.0f;
    attn::AttentionOptions lesson_options;
    lesson_options.causal = true;
    lesson_options.attention_mask = attn::Matrix(widen(mask));
    const auto lesson = attn::multi_head_attention(widen(x), widen(x), widen(x), lesson_weights(p), 2, lesson_options);
    for (const bool need_weights : {true, false}) {
        INFO("need_weights " << need_weights);
        attn::fast::AttentionOptions options;
        options.heads = 2;
        options.causal = true;
        options.attention_mask = mask;
        options.need_weights = need_weights;
        options.query_tile = 2;
        options.key_tile = 2;
        const auto r = attn::fast::multi_head_attention(x, x, x, p, options);
        // The output of a query with no key is the output bias alone (its context is 0).
        for (std::size_t t = 0; t < T; ++t) CHECK_TENSOR_CLOSE(*p.b_o, xt::view(r.output, 1, t), 0.0, 0.0);
        CHECK_TENSOR_CLOSE(*p.b_o, xt::view(r.output, 0, 0), 0.0, 0.0);
        CHECK_TENSOR_CLOSE(lesson.output, r.output, 1e-5, 0.0);
        if (need_weights) {
            CHECK(xt::all(xt::equal(xt::view(*r.weights, 1), 0.0f)));
            CHECK(xt::all(xt::equal(xt::view(*r.weights, 0, xt::all(), 0), 0.0f)));
            CHECK((*r.weights)(0, 0, 1, 1) == Approx(1.0f));  // query 1 sees keys 0 (padding) and 1
        }
    }
}

TEST_CASE("the tiled path skips the key tiles past each query tile and counts what it computed", "[fast_attention][lesson07]") {
    std::mt19937 generator(3);
    const std::size_t B = 2, T = 11, S = 17, D = 8, h = 2, dk = D / h;
    const auto query = random_float<3>(generator, {B, T, D});
    const auto key = random_float<3>(generator, {B, S, D});
    const auto p = random_fast_parameters(generator, D, true);
    attn::fast::AttentionOptions options;
    options.heads = h;
    options.need_weights = false;
    options.query_tile = 3;  // query tiles 0-2, 3-5, 6-8, 9-10
    options.key_tile = 5;    // key tiles 0-4, 5-9, 10-14, 15-16
    const auto full = attn::fast::multi_head_attention(query, key, key, p, options);
    CHECK(full.work.tiles_computed == B * h * 4 * 4);
    CHECK(full.work.tiles_skipped == 0);
    CHECK(full.work.attention_flops == Approx(4.0 * B * h * T * S * dk));
    CHECK(full.work.flops() == Approx(attn::fast::attention_flops(B, T, S, D, true)));

    // Causal: the query tiles see keys 0-2, 0-5, 0-8 and 0-10, so they compute 1, 2, 2 and 3 key
    // tiles, the last of each cut at the tile's last query: 3, 5+1, 5+4 and 5+5+1 key columns.
    options.causal = true;
    const auto causal = attn::fast::multi_head_attention(query, key, key, p, options);
    CHECK(causal.work.tiles_computed == B * h * 8);
    CHECK(causal.work.tiles_skipped == B * h * 8);
    const double columns = 3 * 3 + 3 * 6 + 3 * 9 + 2 * 11;  // rows × columns per query tile
    CHECK(causal.work.attention_flops == Approx(4.0 * B * h * dk * columns));
}

TEST_CASE("fast attention without kept weights and with a reused workspace gives the same output", "[fast_attention]") {
    std::mt19937 generator(11);
    const auto p = random_fast_parameters(generator, 16, true);
    attn::fast::AttentionOptions options;
    options.heads = 4;
    options.query_tile = 4;
    options.key_tile = 3;
    attn::fast::AttentionResult result;
    attn::fast::AttentionWorkspace workspace;
    // Shapes that change from call to call: the workspace grows and shrinks without stale values.
    for (const std::size_t T : {5, 12, 3}) {
        INFO("T = " << T);
        const auto x = random_float<3>(generator, {2, T, 16});
        options.need_weights = true;
        const auto reference = attn::fast::multi_head_attention(x, x, x, p, options);
        attn::fast::multi_head_attention_into(x, x, x, p, options, result, workspace);
        CHECK_TENSOR_CLOSE(reference.output, result.output, 0.0, 0.0);
        CHECK_TENSOR_CLOSE(*reference.weights, *result.weights, 0.0, 0.0);
        options.need_weights = false;
        attn::fast::multi_head_attention_into(x, x, x, p, options, result, workspace);
        CHECK_TENSOR_CLOSE(reference.output, result.output, 1e-6, 0.0);
        CHECK_FALSE(result.weights.has_value());
    }
}

TEST_CASE("both paths refuse an attention_mask value other than 0 and 1, naming it", "[fast_attention][errors]") {
    std::mt19937 generator(13);
    const auto x = random_float<3>(generator, {2, 3, 8});
    const auto p = random_fast_parameters(generator, 8, false);
    attn::fast::Matrix mask = xt::ones<float>({2, 3});
    mask(1, 2) = 0.5f;
    attn::AttentionOptions lesson_options;
    lesson_options.attention_mask = attn::Matrix(widen(mask));
    const std::string lesson = error_message([&] {
        attn::multi_head_attention(widen(x), widen(x), widen(x), lesson_weights(p), 2, lesson_options);
    });
    CHECK(lesson ==
          "attention_mask (2, 3) holds 0.5 at [1, 2]; an attention mask holds only 1 (attend to this key) and 0 "
          "(padding: ignore it)");
    for (const bool need_weights : {true, false}) {
        attn::fast::AttentionOptions options;
        options.heads = 2;
        options.attention_mask = mask;
        options.need_weights = need_weights;
        CHECK(error_message([&] { attn::fast::multi_head_attention(x, x, x, p, options); }) ==
              "fast::multi_head_attention: " + lesson);
    }
}

// The non-finite policy side by side: the same tensor and index named by both paths and both fast
// forms. Where only float32 overflows, each path gets inputs just beyond its own type's range.
TEST_CASE("both paths name the same tensor and index for a NaN or an overflow", "[fast_attention][errors]") {
    std::mt19937 generator(17);
    const std::size_t B = 2, T = 3, S = 4, D = 8, h = 2;
    const auto p = random_fast_parameters(generator, D, true);
    auto query = random_float<3>(generator, {B, T, D});
    auto key = random_float<3>(generator, {B, S, D});
    auto value = random_float<3>(generator, {B, S, D});
    auto both = [&](const attn::fast::Tensor3& q, const attn::fast::Tensor3& k, const attn::fast::Tensor3& v,
                    const attn::fast::AttentionParameters& parameters, const std::string& expected) {
        const std::string lesson = error_after_function(
            [&] { attn::multi_head_attention(widen(q), widen(k), widen(v), lesson_weights(parameters), h); });
        CHECK(named_value(lesson) == expected);
        for (const bool need_weights : {true, false}) {
            INFO("need_weights " << need_weights);
            attn::fast::AttentionOptions options;
            options.heads = h;
            options.need_weights = need_weights;
            options.query_tile = 2;
            options.key_tile = 3;
            CHECK(named_value(error_after_function(
                      [&] { attn::fast::multi_head_attention(q, k, v, parameters, options); })) == expected);
        }
    };
    SECTION("NaN in the query: q") {
        query(1, 2, 5) = std::numeric_limits<float>::quiet_NaN();
        both(query, key, value, p, "q[1, 2, 0] is nan");
    }
    SECTION("NaN in the key: k") {
        key(0, 3, 1) = std::numeric_limits<float>::quiet_NaN();
        both(query, key, value, p, "k[0, 3, 0] is nan");
    }
    SECTION("an infinite bias of the values: v") {
        auto bad = p;
        (*bad.b_v)(6) = std::numeric_limits<float>::infinity();
        both(query, key, value, bad, "v[0, 0, 6] is inf");
    }
    SECTION("an infinite output weight: output") {
        auto bad = p;
        (*bad.w_o)(4, 0) = std::numeric_limits<float>::infinity();
        const std::string lesson = named_value(error_after_function(
            [&] { attn::multi_head_attention(widen(query), widen(key), widen(value), lesson_weights(bad), h); }));
        CHECK(lesson.rfind("output[0, 0, 4] is ", 0) == 0);
        attn::fast::AttentionOptions options;
        options.heads = h;
        options.need_weights = false;
        CHECK(named_value(error_after_function([&] {
                  attn::fast::multi_head_attention(query, key, value, bad, options);
              })) == lesson);
    }
}

TEST_CASE("an overflowing score is named at the first (query, key) in both paths, across tiles", "[fast_attention][errors]") {
    // Scores q_t · k_s / √d_k with identity projections: query 0 overflows only with key 7 (in the
    // second key tile), query 1 only with key 2 (in the first): the first in (query, key) order is
    // (0, 7), whichever tile is computed first.
    const std::size_t D = 4, T = 2, S = 8;
    auto fill = [&](auto big) {
        using Real = decltype(big);
        xt::xtensor<Real, 3> query = xt::zeros<Real>({std::size_t(1), T, D});
        xt::xtensor<Real, 3> key = xt::ones<Real>({std::size_t(1), S, D});
        for (std::size_t s = 0; s < S; ++s) key(0, s, 0) = key(0, s, 1) = 0;
        query(0, 0, 0) = big;
        query(0, 1, 1) = big;
        key(0, 7, 0) = big;
        key(0, 2, 1) = big;
        return std::pair{query, key};
    };
    attn::fast::AttentionParameters fast;
    fast.w_q = fast.w_k = fast.w_v = xt::eye<float>(D);
    fast.no_output_projection = true;
    const auto [query32, key32] = fill(1e20f);
    const auto [query64, key64] = fill(1e160);
    const std::string lesson = error_after_function(
        [&] { attn::multi_head_attention(query64, key64, key64, lesson_weights(fast), 1); });
    CHECK(named_value(lesson) == "scores[0, 0, 0, 7] is inf");
    for (const bool need_weights : {true, false}) {
        attn::fast::AttentionOptions options(1);
        options.need_weights = need_weights;
        options.query_tile = 2;
        options.key_tile = 4;
        INFO("need_weights " << need_weights);
        CHECK(named_value(error_after_function(
                  [&] { attn::fast::multi_head_attention(query32, key32, key32, fast, options); })) ==
              "scores[0, 0, 0, 7] is inf");
    }
}

TEST_CASE("fast attention names each argument and its shape when they do not fit", "[fast_attention][errors]") {
    std::mt19937 generator(19);
    const auto x = random_float<3>(generator, {2, 3, 8});
    const auto p = random_fast_parameters(generator, 8, true);
    attn::fast::AttentionOptions options;
    options.heads = 3;
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, p, options),
                      Catch::Contains("heads = 3 must divide d_model D = 8"));
    options.heads = 0;  // not set: PyTorch's num_heads has no default either
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, p, options),
                      Catch::Contains("fast::multi_head_attention: the number of heads is not set"));
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, p, attn::fast::AttentionOptions{}),
                      Catch::Contains("the number of heads is not set"));
    options.heads = 2;

    auto bad = p;
    bad.w_k = random_float<2>(generator, {8, 6});
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, bad, options),
                      Catch::Contains("w_k (8, 6) (D, D) has D = 6; w_k must be (D, D) = (8, 8)"));
    bad = p;
    bad.b_o = random_float<1>(generator, {7});
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, bad, options), Catch::Contains("but b_o (7) (D) has D = 7"));
    bad = p;
    bad.w_o.reset();
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, bad, options),
                      Catch::Contains("w_o is missing (b_o is given)"));
    bad.b_o.reset();
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, bad, options),
                      Catch::Contains("w_o is missing; give the output projection's weight w_o (D, D)"));
    bad.no_output_projection = true;
    CHECK_NOTHROW(attn::fast::multi_head_attention(x, x, x, bad, options));
    bad.w_o = p.w_o;
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, bad, options),
                      Catch::Contains("no_output_projection is set and w_o is given"));

    const auto key = random_float<3>(generator, {2, 5, 8});
    const auto value = random_float<3>(generator, {2, 4, 8});
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, key, value, p, options),
                      Catch::Contains("key (2, 5, 8) (B, S, D) has S = 5 but value (2, 4, 8) (B, S, D) has S = 4"));
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, random_float<3>(generator, {2, 5, 6}), value, p, options),
                      Catch::Contains("query (2, 3, 8) (B, T, D) has D = 8 but key (2, 5, 6) (B, S, D) has D = 6"));
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(attn::fast::Tensor3::from_shape({2, 0, 8}), x, x, p, options),
                      Catch::Contains("query has shape (2, 0, 8)") && Catch::Contains("at least 1"));
    options.attention_mask = attn::fast::Matrix(xt::ones<float>({2, 4}));
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, p, options),
                      Catch::Contains("attention_mask (2, 4) (B, S) has S = 4; attention_mask must be (B, S) = (2, 3)"));
    options.attention_mask.reset();
    options.key_tile = 0;
    CHECK_THROWS_WITH(attn::fast::multi_head_attention(x, x, x, p, options),
                      Catch::Contains("key_tile = 0") && Catch::Contains("at least 1"));
}

TEST_CASE("fast attention FLOP counts add up the matrix products", "[fast_attention]") {
    // Seed 000's shape with an output projection: 8·B·T·D² + 4·B·T²·D.
    CHECK(attn::fast::attention_flops(8, 300, 300, 768, true) ==
          Approx(8.0 * 8 * 300 * 768 * 768 + 4.0 * 8 * 300 * 300 * 768));
    CHECK(attn::fast::attention_flops(1, 2, 3, 4, false) == Approx(2.0 * 2 * 16 + 4.0 * 3 * 16 + 4.0 * 2 * 3 * 4));
    CHECK(attn::fast::encoder_layer_flops(8, 128, 512, 2048) ==
          Approx(attn::fast::attention_flops(8, 128, 128, 512, true) + 4.0 * 8 * 128 * 512 * 2048));
}

TEST_CASE("fast split_in_proj cuts the packed projections as the lesson path's does", "[fast_attention][lesson05]") {
    // in_proj_weight (3D, D) = (6, 2) holding 0 … 11 row by row; in_proj_bias (6) holding 0 … 5.
    const attn::fast::Matrix packed = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}};
    const auto p = attn::fast::split_in_proj(packed, attn::fast::Vector({0, 1, 2, 3, 4, 5}));
    CHECK_TENSOR_CLOSE(attn::Matrix({{4, 5}, {6, 7}}), attn::Matrix(widen(p.w_k)), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{8, 9}, {10, 11}}), attn::Matrix(widen(p.w_v)), 0.0, 0.0);
    REQUIRE(p.b_v.has_value());
    CHECK_TENSOR_CLOSE(attn::Vector({4, 5}), attn::Vector(widen(*p.b_v)), 0.0, 0.0);
    const auto lesson = attn::split_in_proj(attn::Matrix(widen(packed)), std::nullopt);
    CHECK_TENSOR_CLOSE(lesson.w_q, attn::Matrix(widen(attn::fast::split_in_proj(packed, std::nullopt).w_q)), 0.0, 0.0);
    CHECK_FALSE(attn::fast::split_in_proj(packed, std::nullopt).b_q.has_value());  // bias=False: no biases
    CHECK_THROWS_WITH(attn::fast::split_in_proj(attn::fast::Matrix(xt::zeros<float>({4, 2})), std::nullopt),
                      Catch::Contains("fast::split_in_proj: in_proj_weight (4, 2) must be (3D, D)"));
}
