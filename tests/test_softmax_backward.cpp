// Tests for attn/softmax_backward.hpp: a row of three by hand (the Jacobian diag(p) − p pᵀ),
// central differences, PyTorch's autograd, masked and fully masked rows, and the shape error.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attn/error.hpp"
#include "attn/softmax.hpp"
#include "attn/softmax_backward.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"

using attn::testing::weighted_sum;

namespace {
const double inf = std::numeric_limits<double>::infinity();
}

TEST_CASE("softmax_backward on a row of three equals the Jacobian diag(p) - p pT times dp", "[softmax_backward][lesson10]") {
    // p = (1/4, 1/4, 1/2), dp = (1, 0, 0): the Jacobian's first column is p_i (δ_i0 − p_0), so
    // ds = (1/4 · 3/4, 1/4 · −1/4, 1/2 · −1/4) = (3/16, −1/16, −1/8). With dp = (1, 2, 4):
    // dp · p = 1/4 + 1/2 + 2 = 11/4, ds = (1/4 · (1 − 11/4), 1/4 · (2 − 11/4), 1/2 · (4 − 11/4)) = (−7/16, −3/16, 5/8).
    const attn::Matrix p = {{0.25, 0.25, 0.5}, {0.25, 0.25, 0.5}};
    const attn::Matrix dp = {{1, 0, 0}, {1, 2, 4}};
    const attn::Matrix expected = {{3.0 / 16, -1.0 / 16, -1.0 / 8}, {-7.0 / 16, -3.0 / 16, 5.0 / 8}};
    CHECK_TENSOR_CLOSE(expected, attn::softmax_backward(p, dp), 0.0, 0.0);   // dyadic: exact
}

TEST_CASE("softmax_backward gives zero to masked keys and to a fully masked row, never NaN", "[softmax_backward][lesson10]") {
    const attn::Matrix scores = {{1, -inf, 2}, {-inf, -inf, -inf}};
    const attn::Matrix p = attn::softmax_last_axis(scores);
    const attn::Matrix ds = attn::softmax_backward(p, attn::Matrix{{3, 5, 7}, {1, 2, 3}});
    CHECK(ds(0, 1) == 0.0);
    CHECK(ds(1, 0) == 0.0);
    CHECK(ds(1, 1) == 0.0);
    CHECK(ds(1, 2) == 0.0);
    // The visible pair (1, 2): p = (1/(1+e), e/(1+e)); ds_0 = p_0 (3 − (3 p_0 + 7 p_2)) = 4 p_0 (p_0 − 1).
    const double p0 = 1.0 / (1.0 + std::exp(1.0));
    CHECK(ds(0, 0) == Approx(-4.0 * p0 * (1.0 - p0)).epsilon(1e-14));
    CHECK(ds(0, 2) == Approx(4.0 * p0 * (1.0 - p0)).epsilon(1e-14));
}

TEST_CASE("softmax_backward matches central differences of softmax", "[softmax_backward][lesson10]") {
    attn::Tensor3 scores = {{{0.5, -1.0, 2.0, 0.25}, {3.0, 1.0, -2.0, 0.0}}, {{-0.5, 0.75, 1.5, -1.25}, {0.0, 0.0, 0.0, 1.0}}};
    const attn::Tensor3 upstream = {{{1.0, -2.0, 0.5, 3.0}, {0.25, 1.0, -1.0, 2.0}}, {{-0.5, 1.5, 2.5, -3.0}, {1.0, 0.0, 2.0, -1.0}}};
    const auto loss = [&] { return weighted_sum(attn::softmax_last_axis(scores), upstream); };
    CHECK_GRADIENT("scores", scores, loss, attn::softmax_backward(attn::softmax_last_axis(scores), upstream));
}

TEST_CASE("softmax_backward matches torch.autograd.grad", "[softmax_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("softmax")) {
        const attn::Tensor3 scores = fixture.input("scores");
        const attn::Tensor3 upstream = fixture.input("grad_output");
        CHECK_AUTOGRAD(fixture, "scores", attn::softmax_backward(attn::softmax_last_axis(scores), upstream));
    }
}

TEST_CASE("softmax_backward refuses an upstream gradient of another shape or not finite", "[softmax_backward][lesson10]") {
    const attn::Matrix p = {{0.5, 0.5}};
    const attn::Matrix wrong = {{1, 2, 3}};
    CHECK_THROWS_AS(attn::softmax_backward(p, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::softmax_backward(p, wrong),
                      Catch::Matchers::Contains("grad_weights has shape (1, 3) but weights has shape (1, 2)"));
    const attn::Matrix not_finite = {{0.5, std::numeric_limits<double>::quiet_NaN()}};
    CHECK_THROWS_WITH(attn::softmax_backward(p, not_finite),
                      Catch::Matchers::Contains("softmax_backward: grad_weights[0, 1] is nan"));
}
