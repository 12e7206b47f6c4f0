// Tests for attn/cross_entropy.hpp: the Annotated Transformer's label-smoothed loss and its
// gradient by hand, against PyTorch (LabelSmoothing + KLDivLoss(sum) / ntokens and autograd;
// F.cross_entropy(ignore_index) for ε = 0: tests/data/training, tools/make_training_fixtures.py),
// against central differences, and the arguments it refuses.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attn/cross_entropy.hpp"
#include "attn/error.hpp"
#include "support/fixtures.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"
#include "support/training_fixtures.hpp"

namespace {

// The loss and its gradient are a handful of exp, log and sums per row: PyTorch's float64 agrees
// to a few ulps (measured: |Δ| of the loss at most 8.9e-16, of the gradient 4.2e-17); 1e-12 leaves
// room for another order of summation.
constexpr double pytorch_tolerance = 1e-12;

}  // namespace

TEST_CASE("cross_entropy by hand: one row without smoothing is -log p of the target", "[cross_entropy][training]") {
    const attn::Matrix logits = {{0, 0, std::log(2.0)}};  // exp: 1, 1, 2 → p = (1/4, 1/4, 1/2)
    const auto result = attn::cross_entropy(logits, {2});
    CHECK(result.loss == Approx(std::log(2.0)).epsilon(1e-15));  // −log(1/2)
    CHECK(result.counted == 1);
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, 0, 1}}), result.target_distribution, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(attn::Matrix({{std::log(0.25), std::log(0.25), std::log(0.5)}}), result.log_probabilities,
                       1e-15, 1e-15);
    // p − q: (1/4, 1/4, 1/2 − 1)
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.25, 0.25, -0.5}}), attn::cross_entropy_backward(result), 1e-15, 1e-15);
}

TEST_CASE("cross_entropy by hand: a smoothed row gives the padding class no share", "[cross_entropy][training]") {
    // V = 4, padding 0, ε = 0.2, target 3: q = (0, 0.2/2, 0.2/2, 0.8); equal logits, p = 1/4 each.
    // KL = 2 · 0.1 · ln(0.1 / 0.25) + 0.8 · ln(0.8 / 0.25) = 0.2 ln 0.4 + 0.8 ln 3.2 = 0.74726250146971…
    const attn::Matrix logits = {{1, 1, 1, 1}, {5, -3, 2, 0}};
    const auto result = attn::cross_entropy(logits, {3, 0}, {0, 0.2});  // the second row is padding
    CHECK(result.counted == 1);
    CHECK(result.row_counted == std::vector<bool>{true, false});
    CHECK(result.loss == Approx(0.2 * std::log(0.4) + 0.8 * std::log(3.2)).epsilon(1e-15));
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, 0.1, 0.1, 0.8}, {0, 0, 0, 0}}), result.target_distribution, 1e-16, 0.0);
    // p − q on the counted row; nothing on the padding row, whatever its logits.
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.25, 0.15, 0.15, -0.55}, {0, 0, 0, 0}}), attn::cross_entropy_backward(result),
                       1e-15, 0.0);
    // grad_loss scales the whole gradient (a loss multiplied by 2.5 upstream).
    CHECK_TENSOR_CLOSE(attn::Matrix({{0.625, 0.375, 0.375, -1.375}, {0, 0, 0, 0}}),
                       attn::cross_entropy_backward(result, 2.5), 1e-15, 0.0);
}

TEST_CASE("cross_entropy matches the Annotated Transformer's LabelSmoothing and F.cross_entropy",
          "[cross_entropy][training][pytorch]") {
    for (const auto& dir : attn::testing::training_cases("cross-entropy")) {
        INFO(dir.filename().string());
        const auto options_text = attn::testing::read_key_values(dir / "options.txt");
        attn::CrossEntropyOptions options;
        options.padding_index = attn::testing::optional_index(options_text.at("padding_index"));
        options.label_smoothing = std::stod(options_text.at("label_smoothing"));
        const attn::Matrix logits = attn::testing::load_tensor(dir / "in" / "logits.npy");
        const auto targets = attn::testing::load_id_vector(dir / "in" / "targets.npy");
        const auto result = attn::cross_entropy(logits, targets, options);
        const double expected = attn::testing::load_tensor(dir / "expected" / "loss.npy")();
        INFO("loss: expected " << expected << ", got " << result.loss << ", |Δ| " << std::abs(expected - result.loss));
        CHECK(std::abs(expected - result.loss) <= pytorch_tolerance * std::abs(expected));
        CHECK_TENSOR_CLOSE(attn::testing::load_tensor(dir / "expected" / "target_distribution.npy"),
                           result.target_distribution, 1e-15, 0.0);
        CHECK_TENSOR_CLOSE(attn::testing::load_tensor(dir / "expected" / "grad_logits.npy"),
                           attn::cross_entropy_backward(result), pytorch_tolerance, pytorch_tolerance);
    }
}

TEST_CASE("cross_entropy_backward matches central differences of the loss", "[cross_entropy][training]") {
    attn::Matrix logits = {{0.5, -1.0, 2.0, 0.25, -0.5},
                           {1.5, 0.75, -2.0, 0.0, 1.0},
                           {-0.25, 0.5, 0.125, -1.5, 2.5},
                           {3.0, -0.5, 1.0, 0.5, -1.0}};
    const std::vector<std::int64_t> targets = {2, 0, 4, 1};  // row 1 is padding
    for (const attn::CrossEntropyOptions options : {attn::CrossEntropyOptions{0, 0.1}, attn::CrossEntropyOptions{0, 0.0},
                                                    attn::CrossEntropyOptions{std::nullopt, 0.3}}) {
        INFO("label_smoothing " << options.label_smoothing << (options.padding_index ? ", padding 0" : ", no padding"));
        const auto loss = [&] { return attn::cross_entropy(logits, targets, options).loss; };
        CHECK_GRADIENT("logits", logits, loss, attn::cross_entropy_backward(attn::cross_entropy(logits, targets, options)));
    }
}

TEST_CASE("cross_entropy names the target, option or logit it refuses", "[cross_entropy][training][errors]") {
    const attn::Matrix logits = {{0, 1, 2}, {2, 1, 0}};
    using Catch::Contains;
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {0, 3}), Contains("targets[1] = 3") && Contains("(2, 3)") &&
                                                               Contains("0 … 2"));
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {-1, 0}), Contains("targets[0] = -1"));
    CHECK_THROWS_AS(attn::cross_entropy(logits, {0, 1, 2}), attn::ShapeError);
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {0, 1, 2}), Contains("targets (3)") && Contains("logits (2, 3)"));
    CHECK_THROWS_AS(attn::cross_entropy(attn::Matrix::from_shape({0, 3}), {}), attn::ShapeError);
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {0, 1}, {std::nullopt, 1.0}), Contains("label_smoothing = 1 must be in [0, 1)"));
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {0, 1}, {std::nullopt, -0.1}), Contains("label_smoothing = -0.1"));
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {0, 1}, {std::nullopt, std::nan("")}), Contains("label_smoothing = nan"));
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {0, 1}, {3, 0.0}), Contains("padding_index = 3") && Contains("V = 3"));
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {0, 1}, {-1, 0.0}), Contains("padding_index = -1"));
    CHECK_THROWS_WITH(attn::cross_entropy(logits, {1, 1}, {1, 0.0}),
                      Contains("every one of the 2 targets is the padding class 1") && Contains("no token"));
    // V = 2 with a padding class: no class left to spread ε over (the Annotated Transformer divides by V − 2 = 0).
    CHECK_THROWS_WITH(attn::cross_entropy(attn::Matrix{{0, 1}}, {1}, {0, 0.1}),
                      Contains("padding class to spread over") && Contains("V = 2"));
    CHECK_NOTHROW(attn::cross_entropy(attn::Matrix{{0, 1}}, {1}, {0, 0.0}));
    attn::Matrix not_finite = logits;
    not_finite(1, 2) = std::numeric_limits<double>::infinity();
    CHECK_THROWS_WITH(attn::cross_entropy(not_finite, {0, 1}), Contains("logits[1, 2] is inf"));
    // Finite logits whose spread overflows: the target's probability is 0 and its log −∞.
    CHECK_THROWS_WITH(attn::cross_entropy(attn::Matrix{{-1e308, 1e308}}, {0}), Contains("not a finite number"));
}

TEST_CASE("cross_entropy_backward refuses a result that is not cross_entropy's or a non-finite grad_loss",
          "[cross_entropy][training][errors]") {
    const auto result = attn::cross_entropy(attn::Matrix{{0, 1, 2}, {2, 1, 0}}, {0, 1});
    CHECK_THROWS_WITH(attn::cross_entropy_backward(result, std::nan("")), Catch::Contains("grad_loss is nan"));
    auto miscounted = result;
    miscounted.counted = 0;
    CHECK_THROWS_WITH(attn::cross_entropy_backward(miscounted), Catch::Contains("forward.counted = 0"));
    auto reshaped = result;
    reshaped.target_distribution = attn::Matrix::from_shape({2, 4});
    CHECK_THROWS_AS(attn::cross_entropy_backward(reshaped), attn::ShapeError);
    auto short_rows = result;
    short_rows.row_counted.pop_back();
    CHECK_THROWS_WITH(attn::cross_entropy_backward(short_rows), Catch::Contains("forward.row_counted (1)"));
}
