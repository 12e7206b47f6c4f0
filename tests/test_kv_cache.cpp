// Tests for attn/kv_cache.hpp: the cache filled token by token, or a few tokens at a time, gives
// the rows of causal attention over the whole sequence computed at once in PyTorch
// (tests/data/generation/cache-*, tools/make_generation_fixtures.py), with 4 query heads over 2
// K/V heads, over 1 (multi-query) and over 2 of 2; the header's example by hand; the cache's bytes
// per token; and the arguments refused.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/kv_cache.hpp"
#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"

namespace {

struct CacheCase {
    std::string name;
    attn::Tensor4 q, k, v;                       // (B, h, T, d_k), (B, g, T, d_k), (B, g, T, d_k)
    attn::Tensor4 scores, weights, context;      // the whole sequence at once: (B, h, T, T), (B, h, T, d_k)
};

std::vector<CacheCase> cache_cases() {
    std::vector<CacheCase> cases;
    for (const auto& dir : attn::testing::fixture_cases(ATTN_SOURCE_DIR "/tests/data/generation", "cache")) {
        auto load = [&](const char* sub, const char* name) {
            return attn::Tensor4(attn::testing::load_tensor(dir / sub / (std::string(name) + ".npy")));
        };
        cases.push_back({dir.filename().string(), load("in", "q"), load("in", "k"), load("in", "v"),
                         load("expected", "scores"), load("expected", "weights"), load("expected", "context")});
    }
    return cases;
}

// Positions [from, to) of a (B, heads, T, d) tensor.
attn::Tensor4 positions(const attn::Tensor4& x, std::size_t from, std::size_t to) {
    return xt::view(x, xt::all(), xt::all(), xt::range(from, to), xt::all());
}

// Rows [from, to) of the whole sequence's (B, h, T, T) weights, and their first P columns.
attn::Tensor4 rows(const attn::Tensor4& x, std::size_t from, std::size_t to, std::size_t P) {
    return xt::view(x, xt::all(), xt::all(), xt::range(from, to), xt::range(0, P));
}

// Appends positions [from, to) of the case to the cache, then attends with their queries.
attn::CachedAttentionResult step(attn::KVCache& cache, const CacheCase& c, std::size_t from, std::size_t to) {
    cache.append(positions(c.k, from, to), positions(c.v, from, to));
    return attn::attend(positions(c.q, from, to), cache);
}

}  // namespace

TEST_CASE("the KV cache filled token by token gives every row of causal attention over the whole sequence", "[kv_cache][pytorch][lesson09]") {
    const auto cases = cache_cases();
    REQUIRE(cases.size() == 3);
    for (const auto& c : cases) {
        INFO(c.name);
        const std::size_t T = c.q.shape(2);
        attn::KVCache cache(c.k.shape(0), c.k.shape(1), c.k.shape(3));
        for (std::size_t t = 0; t < T; ++t) {
            INFO("token " << t);
            const auto r = step(cache, c, t, t + 1);
            CHECK(cache.length() == t + 1);
            REQUIRE(r.weights.shape(3) == t + 1);
            // Row t of the whole computation, up to column t: the rest of that row is masked there.
            CHECK_TENSOR_CLOSE(rows(c.scores, t, t + 1, t + 1), r.scores, 1e-12, 1e-10);
            CHECK_TENSOR_CLOSE(rows(c.weights, t, t + 1, t + 1), r.weights, 1e-12, 1e-10);
            CHECK_TENSOR_CLOSE(positions(c.context, t, t + 1), r.context, 1e-12, 1e-10);
        }
        CHECK_TENSOR_CLOSE(c.k, cache.keys(), 0.0, 0.0);
        CHECK_TENSOR_CLOSE(c.v, cache.values(), 0.0, 0.0);
    }
}

TEST_CASE("the KV cache given several new tokens at once masks them bottom-right", "[kv_cache][pytorch][mask][lesson09]") {
    for (const auto& c : cache_cases()) {
        INFO(c.name);
        attn::KVCache cache(c.k.shape(0), c.k.shape(1), c.k.shape(3));
        std::size_t from = 0;
        for (std::size_t n : {3, 1, 2}) {  // a prompt of 3 tokens, then 1, then 2
            INFO("positions " << from << " to " << from + n - 1);
            const auto r = step(cache, c, from, from + n);
            // The n queries are the cache's last n positions: query i sees keys 0 … from + i.
            CHECK_TENSOR_CLOSE(rows(c.weights, from, from + n, from + n), r.weights, 1e-12, 1e-10);
            CHECK_TENSOR_CLOSE(positions(c.context, from, from + n), r.context, 1e-12, 1e-10);
            if (n > 1) CHECK(r.weights(0, 0, 0, from + 1) == 0.0);  // the first new query's future
            from += n;
        }
        CHECK(from == c.q.shape(2));
    }
}

TEST_CASE("the KV cache header example - two tokens by hand", "[kv_cache][lesson09]") {
    attn::KVCache cache(1, 1, 2);
    CHECK(cache.length() == 0);
    cache.append(attn::Tensor4{{{{1, 0}}}}, attn::Tensor4{{{{10, 0}}}});
    cache.append(attn::Tensor4{{{{0, 1}}}}, attn::Tensor4{{{{0, 10}}}});
    const auto r = attn::attend(attn::Tensor4{{{{0, 1}}}}, cache);
    // scores [0, 1/√2]; weights [1, e^(1/√2)] / (1 + e^(1/√2))
    const double a = 1.0 / (1.0 + std::exp(1.0 / std::sqrt(2.0)));
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{0, 1 / std::sqrt(2.0)}}}}), r.scores, 1e-15, 1e-15);
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{a, 1 - a}}}}), r.weights, 1e-15, 1e-15);
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{10 * a, 10 * (1 - a)}}}}), r.context, 1e-14, 1e-15);
    // An explicit scale replaces 1/√d_k.
    const auto unscaled = attn::attend(attn::Tensor4{{{{0, 1}}}}, cache, 1.0);
    CHECK(unscaled.scores(0, 0, 0, 1) == 1.0);
}

TEST_CASE("the KV cache's bytes per token are 2 times layers times kv_heads times d_k times bytes", "[kv_cache][lesson09]") {
    CHECK(attn::kv_cache_bytes_per_token(12, 12, 64, 2) == 36864);    // GPT-2 small in float16: 36 KiB
    CHECK(attn::kv_cache_bytes_per_token(32, 32, 128, 2) == 524288);  // a 7B model (32 layers, 32 heads): 512 KiB
    CHECK(attn::kv_cache_bytes_per_token(32, 8, 128, 2) == 131072);   // the same with 8 K/V heads: 4 times less
    CHECK(attn::kv_cache_bytes_per_token(1, 1, 1, 8) == 16);
    const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
    CHECK_THROWS_AS(attn::kv_cache_bytes_per_token(huge, 2, 1, 1), attn::InputError);
}

TEST_CASE("the KV cache refuses keys and values of the wrong shape and queries it has not cached", "[kv_cache][errors][lesson09]") {
    CHECK_THROWS_WITH(attn::KVCache(1, 0, 4), Catch::Contains("KVCache: batch B = 1, kv_heads g = 0 and d_k = 4"));
    attn::KVCache cache(2, 2, 3);  // B = 2, g = 2, d_k = 3
    const attn::Tensor4 right = xt::zeros<double>({2, 2, 1, 3});
    const attn::Tensor4 four_heads = xt::zeros<double>({2, 4, 1, 3});
    CHECK_THROWS_WITH(cache.append(four_heads, four_heads),
                      Catch::Contains("KVCache::append: k_new has shape (2, 4, 1, 3) but the cache holds B = 2 sequences "
                                      "of g = 2 K/V heads of d_k = 3: k_new must be (B, g, n, d_k) = (2, 2, n, 3)"));
    CHECK_THROWS_AS(cache.append(four_heads, four_heads), attn::ShapeError);
    const attn::Tensor4 wide = xt::zeros<double>({2, 2, 1, 4});
    CHECK_THROWS_WITH(cache.append(wide, wide), Catch::Contains("k_new has shape (2, 2, 1, 4)"));
    CHECK_THROWS_WITH(cache.append(right, wide),
                      Catch::Contains("k_new (2, 2, 1, 3) (B, g, n, d_k) has d_k = 3 but v_new (2, 2, 1, 4) (B, g, n, d_k) has d_k = 4"));
    CHECK_THROWS_WITH(cache.append(right, xt::zeros<double>({2, 2, 2, 3})),
                      Catch::Contains("k_new (2, 2, 1, 3) (B, g, n, d_k) has n = 1 but v_new (2, 2, 2, 3) (B, g, n, d_k) has n = 2"));
    CHECK_THROWS_AS(cache.append(xt::zeros<double>({2, 2, 0, 3}), xt::zeros<double>({2, 2, 0, 3})), attn::ShapeError);
    attn::Tensor4 not_finite = right;
    not_finite(1, 0, 0, 2) = std::nan("");
    CHECK_THROWS_WITH(cache.append(right, not_finite), Catch::Contains("v_new") && Catch::Contains("[1, 0, 0, 2]"));
    CHECK(cache.length() == 0);  // nothing half-appended

    const attn::Tensor4 q = xt::ones<double>({2, 4, 1, 3});
    CHECK_THROWS_WITH(attn::attend(q, cache), Catch::Contains("the cache holds P = 0 positions; append the new tokens'"));
    cache.append(right, right);
    CHECK(attn::attend(q, cache).weights.shape(3) == 1);
    CHECK_THROWS_WITH(attn::attend(xt::ones<double>({2, 4, 2, 3}), cache), Catch::Contains("n = 2 new queries"));
    CHECK_THROWS_WITH(attn::attend(xt::ones<double>({2, 3, 1, 3}), cache),
                      Catch::Contains("has h = 3 query heads, which the cache's kv_heads g = 2 does not divide"));
    CHECK_THROWS_WITH(attn::attend(xt::ones<double>({2, 4, 1, 5}), cache),
                      Catch::Contains("attend: q_new has shape (2, 4, 1, 5) but the cache holds B = 2 sequences of g = 2 "
                                      "K/V heads of d_k = 3: q_new must be (B, h, n, d_k) = (2, h, n, 3)"));
    CHECK_THROWS_WITH(attn::attend(xt::ones<double>({1, 4, 1, 3}), cache), Catch::Contains("q_new has shape (1, 4, 1, 3)"));
    CHECK_THROWS_WITH(attn::attend(q, cache, std::numeric_limits<double>::infinity()),
                      Catch::Contains("the scale must be a finite number"));
}
