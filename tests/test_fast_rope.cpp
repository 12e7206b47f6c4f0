// Tests of RoPE on the fast path (attn::fast::AttentionOptions::rope): the float32 multi-head
// attention with rotary embeddings against a double reference assembled from the lesson path's
// own steps — projections (attn::linear), attn::rotary_embedding on each head's q and k (never v),
// attn::scaled_dot_product_attention per head, the output projection — for both layouts, with
// and without kept weights (the tiled path), causal or not, default and given positions, on every
// instruction set of the kernels. Tolerances: the fast path's, 1e-5 absolute against double for
// the FMA kernels and 1e-4 for the baseline ones (test_fast_attention.cpp explains why).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "attn/linear.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/rotary.hpp"
#include "fast/simd.hpp"
#include "support/fast_guards.hpp"
#include "support/fast_inputs.hpp"
#include "support/tensor_match.hpp"

using attn::testing::random_fast_parameters;
using attn::testing::random_float;
using attn::testing::widen;
using attn::testing::SimdGuard;
using attn::testing::error_message;

namespace {

using attn::fast::detail::Simd;

// (B, h, T, d_k) ↔ (B·h, T, d_k): the same row-major values, one batch item per (batch, head).
attn::Tensor3 fold_heads(const attn::Tensor4& x) {
    attn::Tensor3 folded = attn::Tensor3::from_shape({x.shape(0) * x.shape(1), x.shape(2), x.shape(3)});
    std::copy(x.begin(), x.end(), folded.begin());
    return folded;
}
attn::Tensor4 unfold_heads(const attn::Tensor3& x, std::size_t B) {
    attn::Tensor4 heads = attn::Tensor4::from_shape({B, x.shape(0) / B, x.shape(1), x.shape(2)});
    std::copy(x.begin(), x.end(), heads.begin());
    return heads;
}

struct Reference {
    attn::Tensor3 output;   // (B, T, D)
    attn::Tensor4 weights;  // (B, h, T, S)
};

// RoPE multi-head attention in double from the library's readable functions.
Reference reference_attention(const attn::Tensor3& query, const attn::Tensor3& key, const attn::Tensor3& value,
                              const attn::MultiHeadAttentionWeights& w, std::size_t h,
                              const std::vector<std::int64_t>& positions_q,
                              const std::vector<std::int64_t>& positions_k, attn::RopeLayout layout, bool causal) {
    const std::size_t B = query.shape(0);
    const attn::Tensor3 q = attn::linear(query, w.w_q, w.b_q), k = attn::linear(key, w.w_k, w.b_k),
                        v = attn::linear(value, w.w_v, w.b_v);
    const attn::Tensor4 q_heads = attn::rotary_embedding(attn::split_heads(q, h), positions_q, layout);
    const attn::Tensor4 k_heads = attn::rotary_embedding(attn::split_heads(k, h), positions_k, layout);
    attn::AttentionOptions options;
    options.causal = causal;
    const auto per_head = attn::scaled_dot_product_attention(fold_heads(q_heads), fold_heads(k_heads),
                                                             fold_heads(attn::split_heads(v, h)), options);
    const attn::Tensor3 context = attn::merge_heads(unfold_heads(per_head.output, B));
    return {attn::output_projection(context, w), unfold_heads(per_head.weights, B)};
}

std::vector<std::int64_t> counting(std::size_t count, std::int64_t first) {
    std::vector<std::int64_t> positions(count);
    for (std::size_t t = 0; t < count; ++t) positions[t] = first + static_cast<std::int64_t>(t);
    return positions;
}

}  // namespace

TEST_CASE("fast attention with RoPE agrees with the lesson path's steps in both layouts", "[fast_attention][rope]") {
    SimdGuard simd_guard;
    std::mt19937 generator(27);
    const std::size_t B = 2, D = 32, h = 4;
    struct Case {
        std::size_t T, S;
        std::int64_t first_q, first_k;  // first position of the queries and of the keys
        bool given;                     // positions passed in the options (else the defaults)
    };
    for (const Case c : {Case{13, 13, 0, 0, false}, Case{70, 70, 0, 0, false}, Case{5, 19, 14, 0, true},
                         Case{9, 9, 4000, 4000, true}}) {
        const auto query = random_float<3>(generator, {B, c.T, D});
        const auto key = random_float<3>(generator, {B, c.S, D});
        const auto value = random_float<3>(generator, {B, c.S, D});
        const auto parameters = random_fast_parameters(generator, D, true);
        const auto positions_q = counting(c.T, c.first_q), positions_k = counting(c.S, c.first_k);
        for (const attn::RopeLayout layout : {attn::RopeLayout::halves, attn::RopeLayout::pairs}) {
            for (const bool causal : {false, true}) {
                const Reference expected = reference_attention(widen(query), widen(key), widen(value),
                                                               attn::testing::lesson_weights(parameters), h,
                                                               positions_q, positions_k, layout, causal);
                for (const Simd simd : attn::fast::detail::available_simd()) {
                    attn::fast::detail::use_simd(simd);
                    const double tolerance = simd == Simd::baseline ? 1e-4 : 1e-5;
                    for (const bool need_weights : {true, false}) {
                        INFO("T " << c.T << " S " << c.S << " positions from " << c.first_q << ", " << c.first_k
                                  << " layout " << attn::rope_layout_name(layout) << " causal " << causal
                                  << " kernels " << attn::fast::detail::simd_name(simd) << " need_weights "
                                  << need_weights);
                        attn::fast::AttentionOptions options(h);
                        options.causal = causal;
                        options.need_weights = need_weights;
                        options.query_tile = 8;
                        options.key_tile = 16;
                        attn::fast::RotaryOptions rope;
                        rope.layout = layout;
                        if (c.given) rope.query_positions = positions_q, rope.key_positions = positions_k;
                        options.rope = rope;
                        const auto got = attn::fast::multi_head_attention(query, key, value, parameters, options);
                        CHECK_TENSOR_CLOSE(expected.output, got.output, tolerance, 0.0);
                        if (need_weights) {
                            REQUIRE(got.weights.has_value());
                            CHECK_TENSOR_CLOSE(expected.weights, *got.weights, tolerance, 0.0);
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("RoPE changes the fast path's output, and the two layouts differ", "[fast_attention][rope]") {
    std::mt19937 generator(8);
    const auto x = random_float<3>(generator, {1, 6, 16});
    const auto parameters = random_fast_parameters(generator, 16, true);
    attn::fast::AttentionOptions options(2);
    const auto plain = attn::fast::multi_head_attention(x, x, x, parameters, options);
    options.rope = attn::fast::RotaryOptions{};
    const auto halves = attn::fast::multi_head_attention(x, x, x, parameters, options);
    options.rope->layout = attn::RopeLayout::pairs;
    const auto pairs = attn::fast::multi_head_attention(x, x, x, parameters, options);
    // Position 0 is not turned, so query 0 against key 0 is the same score in all three; later
    // queries see different scores.
    const auto largest_difference = [](const attn::fast::Tensor3& a, const attn::fast::Tensor3& b) {
        float largest = 0.0f;
        for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a.data()[i] - b.data()[i]));
        return largest;
    };
    CHECK(largest_difference(plain.output, halves.output) > 1e-3f);
    CHECK(largest_difference(halves.output, pairs.output) > 1e-3f);
}

TEST_CASE("fast attention refuses RoPE's bad options, naming them", "[fast_attention][rope][errors]") {
    std::mt19937 generator(3);
    const auto x = random_float<3>(generator, {1, 4, 12});
    const auto parameters = random_fast_parameters(generator, 12, true);
    attn::fast::AttentionOptions options(4);  // d_k = 3: odd
    options.rope = attn::fast::RotaryOptions{};
    CHECK_THROWS_AS(attn::fast::multi_head_attention(x, x, x, parameters, options), attn::InputError);
    CHECK_THAT(error_message([&] { attn::fast::multi_head_attention(x, x, x, parameters, options); }),
               Catch::Contains("fast::multi_head_attention") && Catch::Contains("d_k = 3"));
    options.heads = 2;  // d_k = 6
    options.rope->base = 0.0;
    CHECK_THAT(error_message([&] { attn::fast::multi_head_attention(x, x, x, parameters, options); }),
               Catch::Contains("base"));
    options.rope->base = attn::default_rope_base;
    options.rope->query_positions = {0, 1, 2};
    CHECK_THROWS_AS(attn::fast::multi_head_attention(x, x, x, parameters, options), attn::ShapeError);
    CHECK_THAT(error_message([&] { attn::fast::multi_head_attention(x, x, x, parameters, options); }),
               Catch::Contains("rope.query_positions has 3 values") && Catch::Contains("(T) = (4)"));
    options.rope->query_positions = {0, 1, -2, 3};
    CHECK_THAT(error_message([&] { attn::fast::multi_head_attention(x, x, x, parameters, options); }),
               Catch::Contains("rope.query_positions[2] = -2"));
}
