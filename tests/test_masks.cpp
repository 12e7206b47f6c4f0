// Tests for attn/masks.hpp: the causal mask (also with T != S, as torch.triu(ones(T, S), 1)) and
// the padding mask built from a Hugging Face attention_mask.
#include <catch2/catch.hpp>
#include <limits>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "support/tensor_match.hpp"

namespace {
const double inf = std::numeric_limits<double>::infinity();
}

TEST_CASE("the causal mask hides the keys above the diagonal", "[masks]") {
    const attn::Matrix expected = {{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}};
    CHECK_TENSOR_CLOSE(expected, attn::causal_mask(3, 3), 0.0, 0.0);
    CHECK(attn::is_future_key(0, 1));
    CHECK_FALSE(attn::is_future_key(1, 1));
    CHECK_FALSE(attn::is_future_key(2, 0));
}

TEST_CASE("the causal mask with T != S is aligned at the top-left corner", "[masks]") {
    // Fewer queries than keys: query t still sees keys 0 … t only.
    const attn::Matrix wide = {{0, -inf, -inf, -inf}, {0, 0, -inf, -inf}};
    CHECK_TENSOR_CLOSE(wide, attn::causal_mask(2, 4), 0.0, 0.0);
    // More queries than keys: the later queries see every key.
    const attn::Matrix tall = {{0, -inf}, {0, 0}, {0, 0}};
    CHECK_TENSOR_CLOSE(tall, attn::causal_mask(3, 2), 0.0, 0.0);
}

TEST_CASE("the bottom-right causal mask lets the last query see every key", "[masks]") {
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

TEST_CASE("causal alignments are named top-left and bottom-right", "[masks][errors]") {
    CHECK(attn::parse_causal_alignment("top-left") == attn::CausalAlignment::top_left);
    CHECK(attn::parse_causal_alignment("bottom-right") == attn::CausalAlignment::bottom_right);
    CHECK_THROWS_AS(attn::parse_causal_alignment("bottom_right"), attn::InputError);
    CHECK_THROWS_WITH(attn::parse_causal_alignment("left"),
                      Catch::Contains("unknown causal alignment 'left'") && Catch::Contains("top-left") &&
                          Catch::Contains("bottom-right"));
}

TEST_CASE("every row of a causal mask keeps key 0", "[masks]") {
    for (std::size_t T : {1, 2, 5})
        for (std::size_t S : {1, 3, 7}) {
            const attn::Matrix mask = attn::causal_mask(T, S);
            for (std::size_t t = 0; t < T; ++t) CHECK(mask(t, 0) == 0.0);
        }
}

TEST_CASE("the padding mask turns 1 into 0 and 0 into minus infinity", "[masks]") {
    const attn::Matrix attention_mask = {{1, 1, 1}, {1, 1, 0}};
    const attn::Matrix expected = {{0, 0, 0}, {0, 0, -inf}};
    CHECK_TENSOR_CLOSE(expected, attn::padding_mask(attention_mask), 0.0, 0.0);
}

TEST_CASE("an attention mask with a value other than 0 or 1 is refused with its place", "[masks][errors]") {
    const attn::Matrix bad = {{1, 1, 1}, {1, 0.5, 0}};
    CHECK_THROWS_AS(attn::padding_mask(bad), attn::InputError);
    CHECK_THROWS_WITH(attn::check_attention_mask(bad), Catch::Contains("attention_mask (2, 3) holds 0.5 at [1, 1]"));
    CHECK_THROWS_WITH(attn::check_attention_mask(attn::Matrix{{2, 1}}, "my_mask"), Catch::Contains("my_mask (1, 2) holds 2 at [0, 0]"));
    CHECK_NOTHROW(attn::check_attention_mask(attn::Matrix{{0, 1}, {1, 0}}));
}
