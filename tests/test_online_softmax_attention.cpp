// Tests for attn/online_softmax_attention.hpp: lessons/07-online-softmax's worked example written
// out by formula (its trace tile by tile), agreement with attn::scaled_dot_product_attention on
// random inputs (causal or not, both alignments, T ≠ S, ragged last tiles, tiles of 1 and tiles
// larger than S, padding and a fully masked query), the causal tile skip, the non-finite policy,
// and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xrandom.hpp>

#include "attn/error.hpp"
#include "attn/online_softmax_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "support/tensor_match.hpp"

namespace {

const double inf = std::numeric_limits<double>::infinity();

// lessons/07-online-softmax's worked example: scores q·k / √4 = 2, 1 | 3, 0 in two tiles of two
// keys.
const attn::Tensor3 example_Q = {{{2, 0, 1, 1}}};
const attn::Tensor3 example_K = {{{1, 1, 1, 1}, {0, 3, 1, 1}, {2, 1, 1, 1}, {1, 0, -1, -1}}};
const attn::Tensor3 example_V = {{{1, 0}, {0, 1}, {1, 1}, {2, 0}}};

attn::AttentionOptions standard_options(const attn::OnlineSoftmaxOptions& online) {
    attn::AttentionOptions options;
    options.causal = online.causal;
    options.causal_alignment = online.causal_alignment;
    options.attention_mask = online.attention_mask;
    options.scale = online.scale;
    return options;
}

// The online output against lessons/04-causal-self-attention's on the same inputs and options.
void check_agrees_with_standard(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V,
                                const attn::OnlineSoftmaxOptions& options) {
    const auto online = attn::online_softmax_attention(Q, K, V, options);
    const auto standard = attn::scaled_dot_product_attention(Q, K, V, standard_options(options));
    CHECK_TENSOR_CLOSE(standard.output, online.output, 1e-12, 1e-12);
}

}  // namespace

TEST_CASE("lesson 7's worked example - the trace after each key tile, by formula", "[online][lesson07]") {
    const auto r = attn::online_softmax_attention(example_Q, example_K, example_V, attn::OnlineSoftmaxOptions{1, 2, false});
    REQUIRE(r.trace.size() == 2);
    CHECK(r.tiles_computed == 2);
    CHECK(r.tiles_skipped == 0);
    const double e1 = std::exp(-1.0), e2 = std::exp(-2.0), e3 = std::exp(-3.0);

    // Tile 0, keys 0 and 1, scores 2 and 1: m = 2, terms e^0 and e^−1; nothing before it to rescale.
    const attn::OnlineSoftmaxTile& first = r.trace[0];
    CHECK(first.first_key == 0);
    CHECK(first.key_count == 2);
    CHECK_FALSE(first.skipped);
    CHECK(first.rescale(0) == 0.0);
    CHECK(first.running_max(0) == 2.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1.0, e1}}), first.exponentials, 0.0, 1e-15);
    CHECK(first.running_sum(0) == Approx(1.0 + e1).epsilon(1e-15));
    CHECK_TENSOR_CLOSE(attn::Matrix({{1.0, e1}}), first.accumulator, 0.0, 1e-15);  // 1·v_0 + e^−1·v_1

    // Tile 1, keys 2 and 3, scores 3 and 0: m grows to 3, the old terms are multiplied by e^(2 − 3).
    const attn::OnlineSoftmaxTile& second = r.trace[1];
    CHECK(second.first_key == 2);
    CHECK(second.rescale(0) == Approx(e1).epsilon(1e-15));
    CHECK(second.running_max(0) == 3.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{1.0, e3}}), second.exponentials, 0.0, 1e-15);
    const double l = e1 + e2 + 1.0 + e3;
    CHECK(second.running_sum(0) == Approx(l).epsilon(1e-15));
    // e^−1·[1, e^−1] + 1·v_2 + e^−3·v_3
    const attn::Matrix accumulator = {{e1 + 1.0 + 2.0 * e3, e2 + 1.0}};
    CHECK_TENSOR_CLOSE(accumulator, second.accumulator, 0.0, 1e-15);

    // Divided once by l: lessons/04-causal-self-attention's softmax(q kᵀ / √d_k) V.
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{accumulator(0, 0) / l, accumulator(0, 1) / l}}}), r.output, 0.0, 1e-15);
    CHECK_TENSOR_CLOSE(attn::scaled_dot_product_attention(example_Q, example_K, example_V).output, r.output, 1e-15, 1e-14);
}

TEST_CASE("a key tile that does not raise m rescales by exactly 1", "[online][lesson07]") {
    // Keys in the order 3, 0 | 2, 1 after the swap: tile 0 already holds the maximum 3.
    const attn::Tensor3 K = {{{2, 1, 1, 1}, {1, 0, -1, -1}, {1, 1, 1, 1}, {0, 3, 1, 1}}};
    const auto r = attn::online_softmax_attention(example_Q, K, example_V, attn::OnlineSoftmaxOptions{1, 2, false});
    REQUIRE(r.trace.size() == 2);
    CHECK(r.trace[0].running_max(0) == 3.0);
    CHECK(r.trace[1].rescale(0) == 1.0);
    CHECK(r.trace[1].running_max(0) == 3.0);
}

TEST_CASE("the online softmax equals lesson 4's attention on random inputs", "[online][property][lesson07]") {
    xt::random::seed(70);
    struct Case {
        std::size_t T, S;
    };
    // T = S, T < S, T > S; none of 7, 9, 4, 5 is a multiple of every tile size below.
    for (const Case size : {Case{7, 7}, Case{5, 9}, Case{9, 4}, Case{1, 5}}) {
        const attn::Tensor3 Q = xt::random::randn<double>(std::vector<std::size_t>{2, size.T, 5});
        const attn::Tensor3 K = xt::random::randn<double>(std::vector<std::size_t>{2, size.S, 5});
        const attn::Tensor3 V = xt::random::randn<double>(std::vector<std::size_t>{2, size.S, 3});
        for (const auto& tiles : {std::pair<std::size_t, std::size_t>{1, 1}, {2, 3}, {3, 2}, {4, 4}, {16, 16}, {1, 64}}) {
            for (bool causal : {false, true}) {
                for (auto alignment : {attn::CausalAlignment::top_left, attn::CausalAlignment::bottom_right}) {
                    if (!causal && alignment == attn::CausalAlignment::bottom_right) continue;
                    attn::OnlineSoftmaxOptions options{tiles.first, tiles.second, causal};
                    options.causal_alignment = alignment;
                    INFO("T " << size.T << " S " << size.S << " query_tile " << tiles.first << " key_tile "
                              << tiles.second << " causal " << causal << " bottom-right "
                              << (alignment == attn::CausalAlignment::bottom_right));
                    check_agrees_with_standard(Q, K, V, options);
                }
            }
        }
    }
}

TEST_CASE("scores far apart and a scale of 1 - the rescaling keeps exp from overflowing", "[online][property][lesson07]") {
    // Scores up to about ±400: e^400 overflows double, e^(score − m) never does.
    xt::random::seed(71);
    const attn::Tensor3 Q = 20.0 * xt::random::randn<double>({1, 6, 4});
    const attn::Tensor3 K = 20.0 * xt::random::randn<double>({1, 11, 4});
    const attn::Tensor3 V = xt::random::randn<double>({1, 11, 2});
    attn::OnlineSoftmaxOptions options{2, 3, false};
    options.scale = 1.0;
    check_agrees_with_standard(Q, K, V, options);
    options.causal = true;
    check_agrees_with_standard(Q, K, V, options);
}

TEST_CASE("padding and a fully masked query - zeros, as in lesson 4", "[online][mask][lesson07]") {
    xt::random::seed(72);
    const attn::Tensor3 Q = xt::random::randn<double>({3, 5, 4});
    const attn::Tensor3 K = xt::random::randn<double>({3, 5, 4});
    const attn::Tensor3 V = xt::random::randn<double>({3, 5, 2});
    attn::OnlineSoftmaxOptions options{2, 2, true};
    // Sentence 1 is left-padded: its queries 0 and 1 see only keys 0 … t, all padding. Sentence 2
    // is all padding.
    options.attention_mask = attn::Matrix{{1, 1, 1, 0, 0}, {0, 0, 1, 1, 1}, {0, 0, 0, 0, 0}};
    const auto r = attn::online_softmax_attention(Q, K, V, options);
    for (std::size_t x = 0; x < 2; ++x) {
        CHECK(r.output(1, 0, x) == 0.0);
        CHECK(r.output(1, 1, x) == 0.0);
        for (std::size_t t = 0; t < 5; ++t) CHECK(r.output(2, t, x) == 0.0);
    }
    CHECK(r.output(1, 2, 0) != 0.0);
    check_agrees_with_standard(Q, K, V, options);
    options.causal = false;
    check_agrees_with_standard(Q, K, V, options);
    // Before its first visible key a query's m is −∞ and its l and accumulator 0.
    CHECK(r.trace[9 + 0].running_max(0) == -inf);  // sentence 1 (9 tiles per sentence): query tile 0, key tile 0
    CHECK(r.trace[9 + 0].running_sum(0) == 0.0);
}

TEST_CASE("causal - the tiles whose first key is in the future of their last query are skipped", "[online][mask][lesson07]") {
    xt::random::seed(73);
    const attn::Tensor3 Q = xt::random::randn<double>({2, 6, 3});
    const attn::Tensor3 V = xt::random::randn<double>({2, 6, 2});
    SECTION("tiles of 2 over 6 queries and keys: 3 of the 9 tiles per sentence") {
        const auto r = attn::online_softmax_attention(Q, Q, V, attn::OnlineSoftmaxOptions{2, 2, true});
        CHECK(r.tiles_computed == 2 * 6);
        CHECK(r.tiles_skipped == 2 * 3);
        REQUIRE(r.trace.size() == 2 * 9);
        for (const auto& tile : r.trace) {
            INFO("queries from " << tile.first_query << ", keys from " << tile.first_key);
            CHECK(tile.skipped == (tile.first_key > tile.first_query + 1));
        }
        // A skipped tile leaves the state as it was: rescale 1, no terms added.
        const attn::OnlineSoftmaxTile& before = r.trace[0];
        const attn::OnlineSoftmaxTile& skipped = r.trace[1];  // queries 0-1, keys 2-3
        REQUIRE(skipped.skipped);
        CHECK_TENSOR_CLOSE(attn::Vector(xt::ones<double>({2})), skipped.rescale, 0.0, 0.0);
        CHECK_TENSOR_CLOSE(attn::Matrix(xt::zeros<double>({2, 2})), skipped.exponentials, 0.0, 0.0);
        CHECK_TENSOR_CLOSE(before.running_sum, skipped.running_sum, 0.0, 0.0);
        CHECK_TENSOR_CLOSE(before.accumulator, skipped.accumulator, 0.0, 0.0);
    }
    SECTION("query tiles of 2 and key tiles of 3: a tile whose first key is its last query is kept") {
        const auto r = attn::online_softmax_attention(Q, Q, V, attn::OnlineSoftmaxOptions{2, 3, true});
        // Per sentence: query tiles 0-1, 2-3, 4-5 against key tiles 0-2, 3-5; only (0-1, 3-5) is
        // wholly in the future. (2-3, 3-5): key 3 is query 3 itself.
        CHECK(r.tiles_skipped == 2 * 1);
        CHECK(r.trace[1].skipped);
        CHECK_FALSE(r.trace[3].skipped);
        CHECK(r.trace[3].exponentials(1, 0) > 0.0);  // query 3 sees key 3
        CHECK(r.trace[3].exponentials(0, 0) == 0.0);  // query 2 does not
    }
    SECTION("n tiles of queries and keys skip n (n − 1) / 2 of the n² tiles") {
        for (std::size_t tile : {1, 2, 3, 6}) {
            const std::size_t n = 6 / tile;
            const auto r = attn::online_softmax_attention(Q, Q, V, attn::OnlineSoftmaxOptions{tile, tile, true});
            INFO("tile " << tile);
            CHECK(r.tiles_skipped == 2 * n * (n - 1) / 2);
            CHECK(r.tiles_computed + r.tiles_skipped == 2 * n * n);
        }
    }
    SECTION("bottom-right alignment: the last query sees every key, no tile of it is skipped") {
        const attn::Tensor3 few = xt::random::randn<double>({2, 2, 3});
        attn::OnlineSoftmaxOptions options{1, 1, true};
        options.causal_alignment = attn::CausalAlignment::bottom_right;
        const auto r = attn::online_softmax_attention(few, Q, V, options);
        // Query 0 sees keys 0 … 4, query 1 keys 0 … 5: one tile skipped per sentence, (0, key 5).
        CHECK(r.tiles_skipped == 2);
        CHECK(r.trace[5].skipped);
        check_agrees_with_standard(few, Q, V, options);
    }
    SECTION("without the causal mask nothing is skipped") {
        const auto r = attn::online_softmax_attention(Q, Q, V, attn::OnlineSoftmaxOptions{2, 2, false});
        CHECK(r.tiles_skipped == 0);
        CHECK(r.tiles_computed == 2 * 9);
    }
}

TEST_CASE("keep_trace false - the same output, counts kept, no trace", "[online][lesson07]") {
    xt::random::seed(74);
    const attn::Tensor3 Q = xt::random::randn<double>({1, 5, 3}), V = xt::random::randn<double>({1, 5, 2});
    attn::OnlineSoftmaxOptions options{2, 2, true};
    const auto traced = attn::online_softmax_attention(Q, Q, V, options);
    options.keep_trace = false;
    const auto quiet = attn::online_softmax_attention(Q, Q, V, options);
    CHECK(quiet.trace.empty());
    CHECK(quiet.tiles_skipped == traced.tiles_skipped);
    CHECK(quiet.tiles_computed == traced.tiles_computed);
    CHECK_TENSOR_CLOSE(traced.output, quiet.output, 0.0, 0.0);
}

TEST_CASE("non-finite scores are refused as lesson 4 refuses them", "[online][policy][lesson07]") {
    // Only a mask may put −∞ into the scores: NaN, or a score that overflowed to ±∞, is an error
    // naming the tensor and the index, in lessons/07-online-softmax's function as in
    // lessons/04-causal-self-attention's.
    const attn::Tensor3 V = {{{1, 2}, {3, 4}, {5, 6}}};
    SECTION("NaN in a query") {
        const attn::Tensor3 Q = {{{1, 0}, {std::nan(""), 0}}}, K = {{{1, 0}, {0, 1}, {1, 1}}};
        CHECK_THROWS_WITH(attn::online_softmax_attention(Q, K, V, attn::OnlineSoftmaxOptions{1, 2, false}),
                          Catch::Contains("online_softmax_attention: scores[0, 1, 0] is nan"));
        CHECK_THROWS_AS(attn::scaled_dot_product_attention(Q, K, V), attn::InputError);
    }
    SECTION("scores that overflow to +inf and -inf") {
        const attn::Tensor3 Q = {{{1e200, 0}, {-1e200, 0}}}, K = {{{1, 0}, {1e200, 0}, {2e200, 0}}};
        attn::OnlineSoftmaxOptions options{1, 1, false};
        options.scale = 1.0;
        CHECK_THROWS_WITH(attn::online_softmax_attention(Q, K, V, options),
                          Catch::Contains("scores[0, 0, 1] is inf") && Catch::Contains("overflowed"));
        attn::AttentionOptions standard;
        standard.scale = 1.0;
        CHECK_THROWS_AS(attn::scaled_dot_product_attention(Q, K, V, standard), attn::InputError);
    }
    SECTION("a hidden key is not an error") {
        const attn::Tensor3 Q = {{{1, 0}, {0, 1}}}, K = {{{1, 0}, {0, 1}, {1, 1}}};
        attn::OnlineSoftmaxOptions options{1, 1, true};
        CHECK_NOTHROW(attn::online_softmax_attention(Q, K, V, options));
    }
}

TEST_CASE("bad arguments name the tensors, the shapes and the option", "[online][errors][lesson07]") {
    const attn::Tensor3 Q = xt::zeros<double>({2, 3, 4}), K = xt::zeros<double>({2, 5, 4}), V = xt::zeros<double>({2, 5, 6});
    CHECK_NOTHROW(attn::online_softmax_attention(Q, K, V));
    CHECK_THROWS_WITH(attn::online_softmax_attention(Q, attn::Tensor3(xt::zeros<double>({2, 5, 3})), V),
                      Catch::Contains("online_softmax_attention: shapes disagree: Q (2, 3, 4) (B, T, d_k) has d_k = 4 but K (2, 5, 3) (B, S, d_k) has d_k = 3"));
    CHECK_THROWS_WITH(attn::online_softmax_attention(Q, K, attn::Tensor3(xt::zeros<double>({2, 4, 6}))),
                      Catch::Contains("K (2, 5, 4) (B, S, d_k) has S = 5 but V (2, 4, 6) (B, S, d_v) has S = 4"));
    CHECK_THROWS_WITH(attn::online_softmax_attention(Q, attn::Tensor3(xt::zeros<double>({1, 5, 4})), V),
                      Catch::Contains("Q (2, 3, 4) (B, T, d_k) has B = 2 but K (1, 5, 4) (B, S, d_k) has B = 1"));
    CHECK_THROWS_AS(attn::online_softmax_attention(attn::Tensor3(xt::zeros<double>({2, 0, 4})), K, V), attn::ShapeError);
    CHECK_THROWS_WITH(attn::online_softmax_attention(Q, K, V, attn::OnlineSoftmaxOptions{0, 2, false}),
                      Catch::Contains("query_tile is 0") && Catch::Contains("at least 1"));
    CHECK_THROWS_AS(attn::online_softmax_attention(Q, K, V, attn::OnlineSoftmaxOptions{2, 0, false}), attn::InputError);
    attn::OnlineSoftmaxOptions options;
    options.attention_mask = attn::Matrix(xt::ones<double>({2, 3}));
    CHECK_THROWS_WITH(attn::online_softmax_attention(Q, K, V, options),
                      Catch::Contains("attention_mask (2, 3) (B, S) has S = 3") &&
                          Catch::Contains("attention_mask must be (B, S) = (2, 5)"));
    options.attention_mask = attn::Matrix(xt::ones<double>({2, 5}) * 2.0);
    CHECK_THROWS_WITH(attn::online_softmax_attention(Q, K, V, options), Catch::Contains("holds 2 at [0, 0]"));
    options.attention_mask.reset();
    options.scale = std::nan("");
    CHECK_THROWS_AS(attn::online_softmax_attention(Q, K, V, options), attn::InputError);
}
