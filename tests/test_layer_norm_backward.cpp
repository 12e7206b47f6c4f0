// Tests for attn/layer_norm_backward.hpp: the properties any layer norm's gradient has, central
// differences, PyTorch's autograd, and the errors.
#include <catch2/catch.hpp>
#include <limits>
#include <xtensor/xbuilder.hpp>

#include "attn/error.hpp"
#include "attn/layer_norm.hpp"
#include "attn/layer_norm_backward.hpp"
#include "support/gradient_check.hpp"
#include "support/tensor_match.hpp"

using attn::testing::weighted_sum;

namespace {
// Row 0 is lesson 6's [1, 0, 0, 0]; row 1 has a large mean, where a careless backward cancels.
attn::Matrix rows() { return {{1, 0, 0, 0}, {100.5, 99.0, 101.25, 98.0}, {-0.5, 2.0, 0.75, -1.25}}; }
const attn::Matrix upstream = {{1, 0, 0, 0}, {0.5, -1.0, 2.0, 0.25}, {-0.75, 1.5, 0.5, 1.0}};
}  // namespace

TEST_CASE("layer_norm_backward: each row's dx sums to 0, db and dgamma are column sums", "[layer_norm_backward][lesson10]") {
    // A layer norm ignores a constant added to its row, so moving x along (1, …, 1) changes nothing:
    // every row of dx sums to 0. β is added to every row: dβ = Σ_rows dy; γ multiplies x̂: dγ = Σ_rows dy ∘ x̂.
    const attn::Vector gamma = {1.0, 2.0, -0.5, 0.25}, beta = {0, 0.1, 0.2, 0.3};
    const auto forward = attn::layer_norm(rows(), gamma, beta);
    const auto grad = attn::layer_norm_backward(forward, gamma, upstream);
    for (std::size_t n = 0; n < 3; ++n) {
        double sum = 0.0;
        for (std::size_t d = 0; d < 4; ++d) sum += grad.x(n, d);
        CHECK(sum == Approx(0.0).margin(1e-13));
    }
    attn::Vector bias = xt::zeros<double>({4}), weight = xt::zeros<double>({4});
    for (std::size_t n = 0; n < 3; ++n)
        for (std::size_t d = 0; d < 4; ++d) {
            bias(d) += upstream(n, d);
            weight(d) += upstream(n, d) * forward.normalized(n, d);
        }
    CHECK_TENSOR_CLOSE(bias, grad.bias, 0.0, 0.0);
    CHECK_TENSOR_CLOSE(weight, grad.weight, 1e-15, 1e-14);
}

TEST_CASE("layer_norm_backward matches central differences", "[layer_norm_backward][lesson10]") {
    attn::Matrix x = rows();
    attn::Vector gamma = {1.0, 2.0, -0.5, 0.25}, beta = {0, 0.1, 0.2, 0.3};
    const double eps = 1e-5;
    const auto loss = [&] { return weighted_sum(attn::layer_norm(x, gamma, beta, eps).output, upstream); };
    const auto grad = attn::layer_norm_backward(attn::layer_norm(x, gamma, beta, eps), gamma, upstream, eps);
    CHECK_GRADIENT("x", x, loss, grad.x);
    CHECK_GRADIENT("weight", gamma, loss, grad.weight);
    CHECK_GRADIENT("bias", beta, loss, grad.bias);
}

TEST_CASE("layer_norm_backward matches torch.autograd.grad", "[layer_norm_backward][lesson10]") {
    for (const auto& fixture : attn::testing::backward_cases("layer-norm")) {
        const double eps = std::stod(fixture.options.at("eps"));
        const attn::Vector weight = fixture.input("weight");
        const auto forward = attn::layer_norm(attn::Matrix(fixture.input("x")), weight, attn::Vector(fixture.input("bias")), eps);
        const auto grad = attn::layer_norm_backward(forward, weight, attn::Matrix(fixture.input("grad_output")), eps);
        CHECK_AUTOGRAD(fixture, "x", grad.x);
        CHECK_AUTOGRAD(fixture, "weight", grad.weight);
        CHECK_AUTOGRAD(fixture, "bias", grad.bias);
    }
}

TEST_CASE("layer_norm_backward names an upstream gradient of the wrong shape or not finite and refuses eps <= 0", "[layer_norm_backward][lesson10]") {
    const attn::Vector ones = {1, 1, 1, 1}, zeros = {0, 0, 0, 0};
    const auto forward = attn::layer_norm(rows(), ones, zeros);
    const attn::Matrix wrong = {{1, 2, 3, 4}};   // one row of the three
    CHECK_THROWS_AS(attn::layer_norm_backward(forward, ones, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::layer_norm_backward(forward, ones, wrong),
                      Catch::Matchers::Contains("grad_output (1, 4)") && Catch::Matchers::Contains("(3, 4)"));
    CHECK_THROWS_AS(attn::layer_norm_backward(forward, ones, upstream, 0.0), attn::InputError);
    CHECK_THROWS_WITH(attn::layer_norm_backward(forward, ones, upstream, 0.0),
                      Catch::Matchers::Contains("eps must be a positive number"));
    attn::Matrix not_finite = upstream;
    not_finite(2, 1) = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(attn::layer_norm_backward(forward, ones, not_finite), Catch::Matchers::Contains("grad_output[2, 1] is nan"));
}
