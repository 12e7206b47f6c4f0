// Tests for attn/generation.hpp: the cached decoder-layer step against transformer_decoder_layer on
// the whole prefix (token by token and several tokens at once, post-norm and pre-norm, the
// memory's padding, grouped-query attention), greedy decoding with and without the cache against
// a PyTorch loop that re-runs nn.TransformerDecoder on the prefix (tests/data/generation/greedy-*,
// tools/make_generation_fixtures.py), and the arguments refused.
#include <catch2/catch.hpp>
#include <filesystem>
#include <xtensor/xrandom.hpp>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/generation.hpp"
#include "attn/npy.hpp"
#include "support/fixtures.hpp"
#include "support/state_dict.hpp"
#include "support/tensor_match.hpp"

namespace {

// Every in/*.npy of a case folder, by its name without .npy: PyTorch's state_dict names.
attn::testing::StateDict read_inputs(const std::filesystem::path& dir) {
    attn::testing::StateDict tensors;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "in"))
        tensors[entry.path().stem().string()] = attn::testing::load_tensor(entry.path());
    return tensors;
}

struct GreedyCase {
    attn::DecoderModel model;
    attn::DecoderLayerOptions options;
    attn::Tensor3 memory;
    std::int64_t start_id, stop_id;
    std::size_t max_tokens;
};

GreedyCase read_greedy_case(const std::filesystem::path& dir) {
    const auto tensors = read_inputs(dir);
    const auto settings = attn::testing::read_key_values(dir / "options.txt");
    GreedyCase c;
    c.model.embedding = tensors.at("embedding.weight");
    for (std::size_t l = 0; l < std::stoul(settings.at("layers")); ++l)
        c.model.layers.push_back(attn::testing::decoder_layer_weights_at(tensors, "decoder.layers." + std::to_string(l) + "."));
    c.model.final_norm = attn::testing::layer_norm_at(tensors, "decoder.norm.");
    c.model.generator_weight = tensors.at("generator.weight");
    c.model.generator_bias = tensors.at("generator.bias");
    c.options = attn::DecoderLayerOptions(std::stoul(settings.at("heads")));
    c.options.norm_first = settings.at("norm_first") == "1";
    c.options.activation = attn::parse_activation(settings.at("activation"));
    c.options.causal = true;
    c.memory = tensors.at("memory");
    c.start_id = std::stoll(settings.at("start_id"));
    c.stop_id = std::stoll(settings.at("stop_id"));
    c.max_tokens = std::stoul(settings.at("max_tokens"));
    return c;
}

std::vector<std::filesystem::path> greedy_dirs() {
    return attn::testing::fixture_cases(ATTN_SOURCE_DIR "/tests/data/generation", "greedy");
}

attn::Tensor3 positions(const attn::Tensor3& x, std::size_t from, std::size_t to) {
    return xt::view(x, xt::all(), xt::range(from, to), xt::all());
}

// Runs the cached step over x (B, T, D) in chunks of the given sizes; returns the rows it computed.
attn::Tensor3 stepped_output(const attn::Tensor3& x, const attn::Tensor3& memory, const attn::DecoderLayerWeights& w,
                             const attn::DecoderLayerOptions& options, const std::vector<std::size_t>& chunks,
                             std::size_t kv_heads = 0) {
    auto cache = attn::start_decoder_layer_cache(memory, w, options.heads, kv_heads);
    attn::Tensor3 out = attn::Tensor3::from_shape(x.shape());
    std::size_t from = 0;
    for (std::size_t n : chunks) {
        const auto step = attn::decoder_layer_step(positions(x, from, from + n), cache, w, options);
        xt::view(out, xt::all(), xt::range(from, from + n), xt::all()) = step.output;
        from += n;
    }
    REQUIRE(from == x.shape(1));
    REQUIRE(cache.self_attention.length() == x.shape(1));
    return out;
}

}  // namespace

TEST_CASE("a cached decoder-layer step gives the rows of transformer_decoder_layer on the whole prefix", "[generation][kv_cache][lesson09]") {
    xt::random::seed(9);
    const attn::Tensor3 x = xt::random::randn<double>({2, 6, 8});
    const attn::Tensor3 memory = xt::random::randn<double>({2, 5, 8});
    for (const auto& dir : greedy_dirs()) {
        const GreedyCase c = read_greedy_case(dir);
        INFO(dir.filename().string());
        for (bool padded : {false, true}) {
            INFO("memory padding " << padded);
            attn::DecoderLayerOptions options = c.options;
            if (padded) options.memory_attention_mask = attn::Matrix{{1, 1, 1, 1, 1}, {1, 1, 1, 0, 0}};
            const attn::Tensor3 whole = attn::transformer_decoder_layer(x, memory, c.model.layers[1], options).output;
            for (const auto& chunks : std::vector<std::vector<std::size_t>>{{1, 1, 1, 1, 1, 1}, {3, 1, 2}, {6}}) {
                INFO("chunks of " << chunks.size());
                CHECK_TENSOR_CLOSE(whole, stepped_output(x, memory, c.model.layers[1], options, chunks), 1e-12, 1e-12);
            }
        }
    }
}

TEST_CASE("a cached step with grouped-query attention equals one whose K/V weights repeat each group's", "[generation][gqa][lesson09]") {
    xt::random::seed(12);
    const attn::Tensor3 x = xt::random::randn<double>({1, 4, 8});
    const attn::Tensor3 memory = xt::random::randn<double>({1, 3, 8});
    const GreedyCase c = read_greedy_case(greedy_dirs().front());
    attn::DecoderLayerOptions options = c.options;
    options.heads = 4;  // 4 query heads of d_k = 2 over g = 2 K/V heads
    attn::DecoderLayerWeights grouped = c.model.layers[0];
    // K/V weights for 2 heads (rows 0–3 of the 8), and the same rows repeated per query head.
    attn::DecoderLayerWeights repeated = grouped;
    for (auto [g_block, r_block] : {std::pair{&grouped.self_attention, &repeated.self_attention},
                                     std::pair{&grouped.cross_attention, &repeated.cross_attention}}) {
        for (auto [g_w, r_w] : {std::pair{&g_block->w_k, &r_block->w_k}, std::pair{&g_block->w_v, &r_block->w_v}}) {
            *g_w = xt::view(*r_w, xt::range(0, 4), xt::all());
            for (std::size_t row = 0; row < 8; ++row)
                xt::view(*r_w, row, xt::all()) = xt::view(*g_w, (row / 4) * 2 + row % 2, xt::all());
        }
        for (auto [g_b, r_b] : {std::pair{&g_block->b_k, &r_block->b_k}, std::pair{&g_block->b_v, &r_block->b_v}}) {
            *g_b = xt::view(*r_b, xt::range(0, 4));
            for (std::size_t row = 0; row < 8; ++row) (*r_b)(row) = (*g_b)((row / 4) * 2 + row % 2);
        }
    }
    const attn::Tensor3 whole = attn::transformer_decoder_layer(x, memory, repeated, options).output;
    CHECK_TENSOR_CLOSE(whole, stepped_output(x, memory, grouped, options, {1, 2, 1}, 2), 1e-12, 1e-12);
    auto cache = attn::start_decoder_layer_cache(memory, grouped, 4, 2);
    CHECK(cache.self_attention.kv_heads() == 2);
    CHECK(cache.memory_keys.shape(1) == 2);  // (B, g, S, d_k): the cache is half as large
    CHECK_THROWS_WITH(attn::start_decoder_layer_cache(memory, repeated, 4, 2),
                      Catch::Contains("self_attention.w_k has shape (8, 8) but with kv_heads g = 2"));
}

TEST_CASE("greedy decoding with and without the KV cache gives PyTorch's ids and logits", "[generation][pytorch][lesson09]") {
    const auto dirs = greedy_dirs();
    REQUIRE(dirs.size() == 4);
    for (const auto& dir : dirs) {
        INFO(dir.filename().string());
        const GreedyCase c = read_greedy_case(dir);
        const attn::NpyArray expected_ids =
            attn::read_npy((dir / "expected" / "ids.npy").string(), attn::NpyAccept::floats_bools_integers);
        REQUIRE(expected_ids.dtype == attn::NpyDtype::integer);
        const attn::Matrix expected_logits = attn::testing::load_tensor(dir / "expected" / "logits.npy");
        for (bool cached : {true, false}) {
            INFO((cached ? "with the cache" : "without the cache"));
            const auto r = cached ? attn::greedy_decode(c.model, c.options, c.memory, c.start_id, c.stop_id, c.max_tokens)
                                  : attn::greedy_decode_without_cache(c.model, c.options, c.memory, c.start_id,
                                                                      c.stop_id, c.max_tokens);
            REQUIRE(r.ids.size() == expected_ids.values.size());
            for (std::size_t i = 0; i < r.ids.size(); ++i) CHECK(double(r.ids[i]) == expected_ids.values[i]);
            CHECK_TENSOR_CLOSE(expected_logits, r.logits, 1e-10, 1e-10);
            const bool stopped = r.ids.back() == c.stop_id;
            CHECK((stopped ? r.ids.size() < c.max_tokens : r.ids.size() == c.max_tokens));
        }
        // The two forms differ only by rounding (3.3e-16 at most on these cases, logits of size ~1).
        const auto cached = attn::greedy_decode(c.model, c.options, c.memory, c.start_id, c.stop_id, c.max_tokens);
        const auto uncached = attn::greedy_decode_without_cache(c.model, c.options, c.memory, c.start_id, c.stop_id,
                                                                c.max_tokens);
        CHECK(cached.ids == uncached.ids);
        CHECK_TENSOR_CLOSE(uncached.logits, cached.logits, 1e-14, 1e-14);
    }
}

TEST_CASE("greedy decoding and the cached step refuse ids outside the vocabulary and misshapen inputs", "[generation][errors][lesson09]") {
    const GreedyCase c = read_greedy_case(greedy_dirs().front());
    CHECK_THROWS_WITH(attn::greedy_decode(c.model, c.options, c.memory, 10, 2, 4),
                      Catch::Contains("greedy_decode: start_id = 10 is not a token id: the embedding has V = 10 rows (ids 0 … 9)"));
    CHECK_THROWS_WITH(attn::greedy_decode_without_cache(c.model, c.options, c.memory, 1, -1, 4),
                      Catch::Contains("stop_id = -1 is not a token id"));
    const auto none = attn::greedy_decode(c.model, c.options, c.memory, 1, 2, 0);
    CHECK(none.ids.empty());
    CHECK(none.logits.shape(0) == 0);
    const attn::Tensor3 two_memories = xt::zeros<double>({2, 5, 8});
    CHECK_THROWS_WITH(attn::greedy_decode(c.model, c.options, two_memories, 1, 2, 4),
                      Catch::Contains("memory (2, 5, 8) (1, S, D): dimension 0 must be 1, it is 2"));
    const attn::Tensor3 narrow = xt::zeros<double>({1, 5, 6});
    CHECK_THROWS_WITH(attn::greedy_decode(c.model, c.options, narrow, 1, 2, 4), Catch::Contains("embedding (10, 8) (V, D) has D = 8"));
    attn::DecoderLayerOptions not_causal = c.options;
    not_causal.causal = false;
    CHECK_THROWS_WITH(attn::greedy_decode(c.model, not_causal, c.memory, 1, 2, 4), Catch::Contains("options.causal is false"));

    auto cache = attn::start_decoder_layer_cache(c.memory, c.model.layers[0], 2);
    const attn::Tensor3 x_wide = xt::zeros<double>({1, 1, 6});
    CHECK_THROWS_WITH(attn::decoder_layer_step(x_wide, cache, c.model.layers[0], c.options), Catch::Contains("x_new (1, 1, 6)"));
    CHECK_THROWS_WITH(attn::decoder_layer_step(xt::zeros<double>({2, 1, 8}), cache, c.model.layers[0], c.options),
                      Catch::Contains("x_new (2, 1, 8) (B, n, D) has B = 2 but the cache's memory_keys"));
    attn::DecoderLayerOptions masked = c.options;
    masked.tgt_attention_mask = attn::Matrix{{1}};
    CHECK_THROWS_WITH(attn::decoder_layer_step(xt::zeros<double>({1, 1, 8}), cache, c.model.layers[0], masked),
                      Catch::Contains("not supported by a cached step"));
    CHECK(cache.self_attention.length() == 0);  // nothing appended by a refused step
    CHECK_THROWS_WITH(attn::start_decoder_layer_cache(c.memory, c.model.layers[0], 3),
                      Catch::Contains("d_model D = 8 is not a multiple of the number of heads h = 3"));
}
