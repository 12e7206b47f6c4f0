// Tests for attn/embedding.hpp: the lookup against PyTorch's nn.Embedding and F.embedding
// (tests/data/positions, tools/make_positions_fixtures.py), and the ids it refuses.
#include <catch2/catch.hpp>

#include "attn/embedding.hpp"
#include "attn/error.hpp"
#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"
#include "support/training_fixtures.hpp"

TEST_CASE("embedding matches nn.Embedding and F.embedding", "[embedding][pytorch][lesson08]") {
    const auto cases = attn::testing::fixture_cases(ATTN_SOURCE_DIR "/tests/data/positions", "embedding");
    REQUIRE(cases.size() == 2);
    for (const auto& dir : cases) {
        INFO(dir.filename().string());
        const attn::Matrix weight = attn::testing::load_tensor(dir / "in" / "weight.npy");
        const attn::IdTensor ids = attn::testing::load_ids(dir / "in" / "ids.npy");
        const auto expected = attn::testing::load_tensor(dir / "expected" / "output.npy");
        // A lookup copies: the very same doubles, no tolerance needed.
        CHECK_TENSOR_CLOSE(expected, attn::embedding(weight, ids), 0.0, 0.0);
    }
}

TEST_CASE("embedding copies the row of each id and the padding row is zeros only because the table's is", "[embedding][lesson08]") {
    const attn::Matrix weight = {{0, 0}, {1, 2}, {3, 4}};  // (V=3, D=2), row 0 the padding row
    const attn::IdTensor ids = {{2, 0, 1}, {1, 1, 2}};     // (B=2, T=3)
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{3, 4}, {0, 0}, {1, 2}}, {{1, 2}, {1, 2}, {3, 4}}}), attn::embedding(weight, ids),
                       0.0, 0.0);
    // The forward pass has no padding rule (F.embedding ignores padding_idx): a non-zero row 0
    // comes out as it is.
    const attn::Matrix no_padding_row = {{9, 8}, {1, 2}, {3, 4}};
    CHECK_TENSOR_CLOSE(attn::Tensor3({{{9, 8}}}), attn::embedding(no_padding_row, attn::IdTensor{{0}}), 0.0, 0.0);
}

TEST_CASE("embedding refuses ids outside the table, naming the id, its position and V", "[embedding][errors][lesson08]") {
    const attn::Matrix weight = {{0, 0}, {1, 2}, {3, 4}};
    CHECK_THROWS_WITH(attn::embedding(weight, attn::IdTensor{{0, 1}, {2, 3}}),
                      Catch::Contains("ids[1, 1] = 3") && Catch::Contains("V = 3") && Catch::Contains("0 … 2"));
    CHECK_THROWS_WITH(attn::embedding(weight, attn::IdTensor{{0, -1}}),
                      Catch::Contains("ids[0, 1] = -1") && Catch::Contains("V = 3"));
    CHECK_THROWS_AS(attn::embedding(weight, attn::IdTensor{{INT64_MIN}}), attn::InputError);
    CHECK_THROWS_AS(attn::embedding(weight, attn::IdTensor{{INT64_MAX}}), attn::InputError);
    CHECK_THROWS_WITH(attn::embedding(attn::Matrix::from_shape({3, 0}), attn::IdTensor{{0}}),
                      Catch::Contains("weight has shape (3, 0)"));
    CHECK_THROWS_AS(attn::embedding(weight, attn::IdTensor::from_shape({1, 0})), attn::ShapeError);
}
