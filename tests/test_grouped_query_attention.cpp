// Tests for grouped-query attention in attn/multi_head_attention.hpp (lesson 9): repeat_kv's
// order, both forms against multi-head attention with g K/V heads written out by hand in PyTorch
// (tests/data/generation/gqa-*, tools/make_generation_fixtures.py), g = h as ordinary multi-head
// attention, and the arguments refused.
#include <catch2/catch.hpp>
#include <xtensor/xrandom.hpp>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/multi_head_attention.hpp"
#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"

namespace {

const char* const generation_data = ATTN_SOURCE_DIR "/tests/data/generation";

attn::MultiHeadAttentionWeights load_weights(const std::filesystem::path& in) {
    attn::MultiHeadAttentionWeights w;
    w.w_q = attn::testing::load_tensor(in / "w_q.npy");
    w.w_k = attn::testing::load_tensor(in / "w_k.npy");
    w.w_v = attn::testing::load_tensor(in / "w_v.npy");
    w.b_q = attn::testing::load_tensor(in / "b_q.npy");
    w.b_k = attn::testing::load_tensor(in / "b_k.npy");
    w.b_v = attn::testing::load_tensor(in / "b_v.npy");
    w.w_o = attn::Matrix(attn::testing::load_tensor(in / "w_o.npy"));
    w.b_o = attn::Vector(attn::testing::load_tensor(in / "b_o.npy"));
    return w;
}

// Random weights for D = 8 with g K/V heads of d_k = 8 / h.
attn::MultiHeadAttentionWeights random_weights(std::size_t kv_width) {
    attn::MultiHeadAttentionWeights w;
    w.w_q = xt::random::randn<double>({8, 8});
    w.w_k = xt::random::randn<double>({kv_width, std::size_t{8}});
    w.w_v = xt::random::randn<double>({kv_width, std::size_t{8}});
    w.b_q = xt::random::randn<double>({8});
    w.b_k = xt::random::randn<double>({kv_width});
    w.b_v = xt::random::randn<double>({kv_width});
    w.no_output_projection = true;
    return w;
}

// Each K/V head's d_k rows repeated n_rep times in place: the weights of ordinary multi-head
// attention whose h heads compute what the g shared heads compute.
attn::Matrix repeat_head_rows(const attn::Matrix& w, std::size_t d_k, std::size_t n_rep) {
    attn::Matrix out = attn::Matrix::from_shape({w.shape(0) * n_rep, w.shape(1)});
    for (std::size_t row = 0; row < out.shape(0); ++row)
        for (std::size_t col = 0; col < w.shape(1); ++col) out(row, col) = w((row / d_k / n_rep) * d_k + row % d_k, col);
    return out;
}

attn::Vector repeat_head_rows(const attn::Vector& b, std::size_t d_k, std::size_t n_rep) {
    const attn::Matrix column = xt::view(b, xt::all(), xt::newaxis());
    return xt::view(repeat_head_rows(column, d_k, n_rep), xt::all(), 0);
}

}  // namespace

TEST_CASE("repeat_kv interleaves the K/V heads - each repeated in place - as Hugging Face's repeat_kv", "[gqa][lesson09]") {
    // (B=1, g=2, S=1, d_k=2): head 0 = [1, 2], head 1 = [3, 4].
    const attn::Tensor4 x = {{{{1, 2}}, {{3, 4}}}};
    const attn::Tensor4 interleaved = {{{{1, 2}}, {{1, 2}}, {{3, 4}}, {{3, 4}}}};  // [k0, k0, k1, k1]
    CHECK_TENSOR_CLOSE(interleaved, attn::repeat_kv(x, 2), 0.0, 0.0);
    // Tiling (x.repeat(1, 2, 1, 1)) would give [k0, k1, k0, k1]: query head 1 would read K/V head 1.
    CHECK(attn::repeat_kv(x, 2)(0, 1, 0, 0) == 1.0);
    CHECK_TENSOR_CLOSE(x, attn::repeat_kv(x, 1), 0.0, 0.0);
    CHECK_THROWS_WITH(attn::repeat_kv(x, 0), Catch::Contains("repeat_kv: n_rep must be at least 1"));
}

TEST_CASE("grouped-query attention matches PyTorch with repeat_interleave in both forms", "[gqa][pytorch][lesson09]") {
    const auto cases = attn::testing::fixture_cases(generation_data, "gqa");
    REQUIRE(cases.size() == 4);
    for (const auto& dir : cases) {
        INFO(dir.filename().string());
        const auto in = dir / "in";
        const auto options_file = attn::testing::read_key_values(dir / "options.txt");
        const std::size_t heads = std::stoul(options_file.at("heads"));
        attn::MultiHeadAttentionOptions options;
        options.kv_heads = std::stoul(options_file.at("kv_heads"));
        options.causal = options_file.at("causal") == "1";
        const attn::Tensor3 query = attn::testing::load_tensor(in / "query.npy");
        const attn::Tensor3 key = attn::testing::load_tensor(in / "key.npy");
        const attn::Tensor3 value = attn::testing::load_tensor(in / "value.npy");
        const auto w = load_weights(in);
        for (bool per_head : {false, true}) {
            INFO((per_head ? "per head" : "vectorised"));
            const auto r = per_head ? attn::multi_head_attention_per_head(query, key, value, w, heads, options)
                                    : attn::multi_head_attention(query, key, value, w, heads, options);
            const auto expected = [&](const char* name) { return attn::testing::load_tensor(dir / "expected" / (std::string(name) + ".npy")); };
            CHECK_TENSOR_CLOSE(expected("k_heads"), r.k_heads, 1e-12, 1e-12);  // the g heads, before sharing
            CHECK_TENSOR_CLOSE(expected("v_heads"), r.v_heads, 1e-12, 1e-12);
            CHECK_TENSOR_CLOSE(expected("weights"), r.weights, 1e-12, 1e-10);
            CHECK_TENSOR_CLOSE(expected("context"), r.context, 1e-12, 1e-10);
            CHECK_TENSOR_CLOSE(expected("output"), r.output, 1e-12, 1e-10);
        }
    }
}

TEST_CASE("grouped-query attention is multi-head attention with each K/V head's weights repeated", "[gqa][property][lesson09]") {
    xt::random::seed(28);
    const attn::Tensor3 x = xt::random::randn<double>({2, 5, 8});
    for (std::size_t kv_heads : {1, 2, 4}) {
        INFO("h = 4, g = " << kv_heads);
        const std::size_t heads = 4, d_k = 2, n_rep = heads / kv_heads;
        const auto grouped_weights = random_weights(kv_heads * d_k);
        attn::MultiHeadAttentionOptions options;
        options.kv_heads = kv_heads;
        options.causal = true;
        const auto grouped = attn::multi_head_attention(x, x, x, grouped_weights, heads, options);
        auto full_weights = grouped_weights;
        full_weights.w_k = repeat_head_rows(grouped_weights.w_k, d_k, n_rep);
        full_weights.w_v = repeat_head_rows(grouped_weights.w_v, d_k, n_rep);
        full_weights.b_k = repeat_head_rows(grouped_weights.b_k, d_k, n_rep);
        full_weights.b_v = repeat_head_rows(grouped_weights.b_v, d_k, n_rep);
        attn::AttentionOptions causal;
        causal.causal = true;
        const auto full = attn::multi_head_attention(x, x, x, full_weights, heads, causal);
        CHECK_TENSOR_CLOSE(full.weights, grouped.weights, 1e-14, 1e-12);
        CHECK_TENSOR_CLOSE(full.output, grouped.output, 1e-14, 1e-12);
        CHECK(grouped.k_heads.shape(1) == kv_heads);  // the intermediates keep the g heads
        CHECK_TENSOR_CLOSE(full.k_heads, attn::repeat_kv(grouped.k_heads, n_rep), 0.0, 0.0);
    }
    // kv_heads = h is the default (0) spelled out.
    const auto w = random_weights(8);
    attn::MultiHeadAttentionOptions explicit_h;
    explicit_h.kv_heads = 4;
    CHECK_TENSOR_CLOSE(attn::multi_head_attention(x, x, x, w, 4).output,
                       attn::multi_head_attention(x, x, x, w, 4, explicit_h).output, 0.0, 0.0);
}

TEST_CASE("grouped-query attention refuses kv_heads that do not divide h and w_k without g times d_k rows", "[gqa][errors][lesson09]") {
    xt::random::seed(5);
    const attn::Tensor3 x = xt::random::randn<double>({1, 3, 8});
    attn::MultiHeadAttentionOptions options;
    options.kv_heads = 3;
    const auto w = random_weights(6);
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, w, 4, options),
                      Catch::Contains("multi_head_attention: kv_heads g = 3 does not divide the number of heads h = 4"));
    CHECK_THROWS_AS(attn::multi_head_attention_per_head(x, x, x, w, 4, options), attn::InputError);
    options.kv_heads = 8;  // more K/V heads than query heads
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, random_weights(16), 4, options),
                      Catch::Contains("kv_heads g = 8 does not divide the number of heads h = 4"));

    options.kv_heads = 2;  // 2 heads of d_k = 2: w_k must be (4, 8)
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, random_weights(8), 4, options),
                      Catch::Contains("w_k has shape (8, 8) but with kv_heads g = 2 heads of d_k = D / h = 2 it must be "
                                      "(g·d_k, D) = (4, 8)"));
    auto bad = random_weights(4);
    bad.w_v = xt::zeros<double>({6, 8});
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 4, options),
                      Catch::Contains("w_k (4, 8) (g·d_k, D) has g·d_k = 4 but w_v (6, 8) (g·d_k, D) has g·d_k = 6"));
    bad = random_weights(4);
    bad.b_k = xt::zeros<double>({8});
    CHECK_THROWS_WITH(attn::multi_head_attention(x, x, x, bad, 4, options), Catch::Contains("b_k (8) (g·d_k)"));
}
