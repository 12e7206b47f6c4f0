// Tests for attn/masks.hpp: the causal mask (also with T != S, as torch.triu(ones(T, S), 1)) and
// the padding mask built from a Hugging Face attention_mask.
#include <catch2/catch.hpp>
#include <limits>
#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "support/tensor_match.hpp"

namespace {
const double inf = std::numeric_limits<double>::infinity();
}

TEST_CASE("the causal mask hides the keys above the diagonal", "[masks][lesson04]") {
    const attn::Matrix expected = {{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}};
    CHECK_TENSOR_CLOSE(expected, attn::causal_mask(3, 3), 0.0, 0.0);
    CHECK(attn::is_future_key(0, 1));
    CHECK_FALSE(attn::is_future_key(1, 1));
    CHECK_FALSE(attn::is_future_key(2, 0));
}

TEST_CASE("the causal mask with T != S is aligned at the top-left corner", "[masks][lesson04]") {
    // Fewer queries than keys: query t still sees keys 0 … t only.
    const attn::Matrix wide = {{0, -inf, -inf, -inf}, {0, 0, -inf, -inf}};
    CHECK_TENSOR_CLOSE(wide, attn::causal_mask(2, 4), 0.0, 0.0);
    // More queries than keys: the later queries see every key.
    const attn::Matrix tall = {{0, -inf}, {0, 0}, {0, 0}};
    CHECK_TENSOR_CLOSE(tall, attn::causal_mask(3, 2), 0.0, 0.0);
}

TEST_CASE("the bottom-right causal mask lets the last query see every key", "[masks][lesson04]") {
    using attn::CausalAlignment;
    // KV-cache decoding: 2 new queries after 2 cached keys. torch.triu(ones(2, 4), 4 - 2 + 1) hidden.
    const attn::Matrix wide = {{0, 0, 0, -inf}, {0, 0, 0, 0}};
    CHECK_TENSOR_CLOSE(wide, attn::causal_mask(2, 4, CausalAlignment::bottom_right), 0.0, 0.0);
    // More queries than keys: torch.triu(ones(4, 2), -1) hidden; queries 0 and 1 see no key at all.
    const attn::Matrix tall = {{-inf, -inf}, {-inf, -inf}, {0, -inf}, {0, 0}};
    CHECK_TENSOR_CLOSE(tall, attn::causal_mask(4, 2, CausalAlignment::bottom_right), 0.0, 0.0);
    // T = S: both alignments are the usual triangle.
    CHECK_TENSOR_CLOSE(attn::causal_mask(3, 3), attn::causal_mask(3, 3, CausalAlignment::bottom_right), 0.0, 0.0);
    CHECK(attn::is_future_key(0, 3, 2, 4, CausalAlignment::bottom_right));
    CHECK_FALSE(attn::is_future_key(0, 2, 2, 4, CausalAlignment::bottom_right));
    CHECK(attn::is_future_key(0, 1, 2, 4, CausalAlignment::top_left));
}

TEST_CASE("causal alignments are named top-left and bottom-right", "[masks][errors][lesson04]") {
    CHECK(attn::parse_causal_alignment("top-left") == attn::CausalAlignment::top_left);
    CHECK(attn::parse_causal_alignment("bottom-right") == attn::CausalAlignment::bottom_right);
    CHECK_THROWS_AS(attn::parse_causal_alignment("bottom_right"), attn::InputError);
    CHECK_THROWS_WITH(attn::parse_causal_alignment("left"),
                      Catch::Contains("unknown causal alignment 'left'") && Catch::Contains("top-left") &&
                          Catch::Contains("bottom-right"));
}

TEST_CASE("every row of a causal mask keeps key 0", "[masks][lesson04]") {
    for (std::size_t T : {1, 2, 5})
        for (std::size_t S : {1, 3, 7}) {
            const attn::Matrix mask = attn::causal_mask(T, S);
            for (std::size_t t = 0; t < T; ++t) CHECK(mask(t, 0) == 0.0);
        }
}

TEST_CASE("the padding mask turns 1 into 0 and 0 into minus infinity", "[masks][lesson04][lesson05]") {
    const attn::Matrix attention_mask = {{1, 1, 1}, {1, 1, 0}};
    const attn::Matrix expected = {{0, 0, 0}, {0, 0, -inf}};
    CHECK_TENSOR_CLOSE(expected, attn::padding_mask(attention_mask), 0.0, 0.0);
}

TEST_CASE("an attention mask with a value other than 0 or 1 is refused with its place", "[masks][errors][lesson04]") {
    const attn::Matrix bad = {{1, 1, 1}, {1, 0.5, 0}};
    CHECK_THROWS_AS(attn::padding_mask(bad), attn::InputError);
    CHECK_THROWS_WITH(attn::check_attention_mask(bad), Catch::Contains("attention_mask (2, 3) holds 0.5 at [1, 1]"));
    CHECK_THROWS_WITH(attn::check_attention_mask(attn::Matrix{{2, 1}}, "my_mask"), Catch::Contains("my_mask (1, 2) holds 2 at [0, 0]"));
    CHECK_NOTHROW(attn::check_attention_mask(attn::Matrix{{0, 1}, {1, 0}}));
}

TEST_CASE("add_masks puts -inf on every hidden key, the same for every head", "[masks][lesson04][lesson05]") {
    const attn::Tensor3 scores = {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}};  // (B=2, T=2, S=3)
    // Causal, top-left: query t sees keys 0 … t.
    const attn::Tensor3 causal = {{{1, -inf, -inf}, {4, 5, -inf}}, {{7, -inf, -inf}, {10, 11, -inf}}};
    CHECK_TENSOR_CLOSE(causal, attn::add_masks(scores, true, attn::CausalAlignment::top_left, std::nullopt), 0.0, 0.0);
    // Bottom-right: the last query sees every key.
    const attn::Tensor3 cache = {{{1, 2, -inf}, {4, 5, 6}}, {{7, 8, -inf}, {10, 11, 12}}};
    CHECK_TENSOR_CLOSE(cache, attn::add_masks(scores, true, attn::CausalAlignment::bottom_right, std::nullopt), 0.0, 0.0);
    // Padding: sentence 1's last key is padding, for every query; with the causal mask on top.
    const attn::Matrix attention_mask = {{1, 1, 1}, {1, 1, 0}};
    const attn::Tensor3 padded = {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, -inf}, {10, 11, -inf}}};
    CHECK_TENSOR_CLOSE(padded, attn::add_masks(scores, false, attn::CausalAlignment::top_left, attention_mask), 0.0, 0.0);
    const attn::Tensor3 both = {{{1, -inf, -inf}, {4, 5, -inf}}, {{7, -inf, -inf}, {10, 11, -inf}}};
    CHECK_TENSOR_CLOSE(both, attn::add_masks(scores, true, attn::CausalAlignment::top_left, attention_mask), 0.0, 0.0);
    // Four dimensions: every head of a sentence hides the same keys.
    attn::Tensor4 heads = attn::Tensor4::from_shape({2, 2, 2, 3});
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t j = 0; j < 2; ++j) xt::view(heads, b, j) = xt::view(scores, b);
    const attn::Tensor4 masked = attn::add_masks(heads, false, attn::CausalAlignment::top_left, attention_mask);
    for (std::size_t j = 0; j < 2; ++j) CHECK_TENSOR_CLOSE(padded, xt::view(masked, xt::all(), j), 0.0, 0.0);
}
