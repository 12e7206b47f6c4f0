// Tests for attn/embedding_backward.hpp: the scatter-add by hand, against nn.Embedding's
// weight.grad (with padding_idx and repeated ids: tests/data/training,
// tools/make_training_fixtures.py), against central differences, and the arguments it refuses.
#include <catch2/catch.hpp>
#include <limits>

#include "attn/embedding.hpp"
#include "attn/embedding_backward.hpp"
#include "attn/error.hpp"
#include "support/fixtures.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"
#include "support/training_fixtures.hpp"

using attn::testing::weighted_sum;

TEST_CASE("embedding_backward by hand: a repeated id sums, the padding row gets nothing", "[embedding_backward][training]") {
    const attn::IdTensor ids = {{2, 0, 2}};                        // id 2 at positions 0 and 2
    const attn::Tensor3 dY = {{{1, 0}, {5, 5}, {0, 1}}};
    // Row 2 = (1, 0) + (0, 1); row 0 = (5, 5); row 1 is read by no position.
    CHECK_TENSOR_CLOSE(attn::Matrix({{5, 5}, {0, 0}, {1, 1}}), attn::embedding_backward(3, ids, dY), 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, 0}, {0, 0}, {1, 1}}), attn::embedding_backward(3, ids, dY, 0), 0.0, 0.0);
    // A padding index no position reads changes nothing.
    CHECK_TENSOR_CLOSE(attn::Matrix({{5, 5}, {0, 0}, {1, 1}}), attn::embedding_backward(3, ids, dY, 1), 0.0, 0.0);
}

TEST_CASE("embedding_backward matches nn.Embedding's weight gradient", "[embedding_backward][training][pytorch]") {
    for (const auto& dir : attn::testing::training_cases("embedding")) {
        INFO(dir.filename().string());
        const auto options = attn::testing::read_key_values(dir / "options.txt");
        const auto grad = attn::embedding_backward(std::stoul(options.at("vocabulary")),
                                                   attn::testing::load_ids(dir / "in" / "ids.npy"),
                                                   attn::testing::load_tensor(dir / "in" / "grad_output.npy"),
                                                   attn::testing::optional_index(options.at("padding_index")));
        // At most three values summed per element: PyTorch may add them in another order, a few ulps.
        CHECK_TENSOR_CLOSE(attn::testing::load_tensor(dir / "expected" / "grad_weight.npy"), grad, 1e-14, 1e-14);
    }
}

TEST_CASE("embedding_backward matches central differences of the lookup", "[embedding_backward][training]") {
    attn::Matrix weight = {{0.5, -1.0}, {1.5, 0.25}, {-0.75, 2.0}, {1.0, 1.0}};  // V = 4, D = 2
    const attn::IdTensor ids = {{1, 3, 1}, {0, 1, 2}};
    const attn::Tensor3 upstream = {{{1, -2}, {0.5, 3}, {-1, 0.25}}, {{2, 2}, {-0.5, 1}, {1.5, -1}}};
    const auto loss = [&] { return weighted_sum(attn::embedding(weight, ids), upstream); };
    const attn::Matrix grad = attn::embedding_backward(4, ids, upstream);
    CHECK_GRADIENT("weight", weight, loss, grad);
    // With padding_index 1 the true derivative of row 1 is replaced by zeros and the others stay.
    attn::Matrix expected = grad;
    expected(1, 0) = expected(1, 1) = 0.0;
    CHECK_TENSOR_CLOSE(expected, attn::embedding_backward(4, ids, upstream, 1), 0.0, 0.0);
}

TEST_CASE("embedding_backward names the id, padding index or gradient it refuses", "[embedding_backward][training][errors]") {
    const attn::Tensor3 dY = {{{1, 0}, {5, 5}}};
    using Catch::Contains;
    CHECK_THROWS_WITH(attn::embedding_backward(3, attn::IdTensor{{0, 3}}, dY), Contains("ids[0, 1] = 3") &&
                                                                                  Contains("V = 3") && Contains("0 … 2"));
    CHECK_THROWS_WITH(attn::embedding_backward(3, attn::IdTensor{{-1, 0}}, dY), Contains("ids[0, 0] = -1"));
    CHECK_THROWS_WITH(attn::embedding_backward(3, attn::IdTensor{{0, 1}}, dY, 3), Contains("padding_index = 3"));
    CHECK_THROWS_WITH(attn::embedding_backward(3, attn::IdTensor{{0, 1}}, dY, -1), Contains("padding_index = -1"));
    CHECK_THROWS_AS(attn::embedding_backward(0, attn::IdTensor{{0, 1}}, dY), attn::ShapeError);
    CHECK_THROWS_WITH(attn::embedding_backward(3, attn::IdTensor{{0, 1, 2}}, dY),
                      Contains("grad_output (1, 2, 2)") && Contains("ids (1, 3)"));
    CHECK_THROWS_AS(attn::embedding_backward(3, attn::IdTensor::from_shape({1, 0}), attn::Tensor3::from_shape({1, 0, 2})),
                    attn::ShapeError);
    // A vocabulary too large to allocate is refused before anything is allocated.
    CHECK_THROWS_WITH(attn::embedding_backward(std::size_t(1) << 40, attn::IdTensor{{0, 1}}, dY), Contains("too large"));
    attn::Tensor3 not_finite = dY;
    not_finite(0, 1, 0) = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(attn::embedding_backward(3, attn::IdTensor{{0, 1}}, not_finite), Contains("grad_output[0, 1, 0] is nan"));
}
