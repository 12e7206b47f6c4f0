// Tests for attn/adam.hpp: one step by hand, torch.optim.Adam over 5 steps on two tensors (the
// copy task's betas, and weight decay: tests/data/training, tools/make_training_fixtures.py)
// through both interfaces — a flat vector and a ParameterList of tensors — and what it refuses.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>

#include "attn/adam.hpp"
#include "attn/error.hpp"
#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"
#include "support/training_fixtures.hpp"

namespace {

// Each step is a few multiplications, a square root and a division per parameter: PyTorch's
// float64 agrees to a few ulps per step (measured: |Δ| at most 5.6e-17 after five steps); 1e-12
// leaves room for a compiler that fuses a multiply-add.
constexpr double pytorch_tolerance = 1e-12;

struct AdamCase {
    attn::AdamOptions options;
    std::vector<double> initial;
    attn::Matrix gradients;  // (steps, P): the gradient of each step
    attn::Matrix expected;   // (steps, P): the parameters after each step
    std::vector<std::size_t> sizes;  // of the tensors, in the flat order
};

AdamCase load_case(const std::filesystem::path& dir) {
    const auto options = attn::testing::read_key_values(dir / "options.txt");
    AdamCase adam;
    adam.options = {std::stod(options.at("lr")), std::stod(options.at("beta1")), std::stod(options.at("beta2")),
                    std::stod(options.at("eps")), std::stod(options.at("weight_decay"))};
    const attn::DynamicTensor initial = attn::testing::load_tensor(dir / "in" / "parameters.npy");
    adam.initial.assign(initial.begin(), initial.end());
    adam.gradients = attn::testing::load_tensor(dir / "in" / "gradients.npy");
    adam.expected = attn::testing::load_tensor(dir / "expected" / "parameters.npy");
    std::stringstream sizes(options.at("sizes"));
    for (std::string size; std::getline(sizes, size, ',');) adam.sizes.push_back(std::stoul(size));
    return adam;
}

std::vector<double> row(const attn::Matrix& rows, std::size_t r) {
    return {rows.data() + r * rows.shape(1), rows.data() + (r + 1) * rows.shape(1)};
}

attn::Vector as_vector(const std::vector<double>& values) {
    attn::Vector vector = attn::Vector::from_shape({values.size()});
    std::copy(values.begin(), values.end(), vector.begin());
    return vector;
}

}  // namespace

TEST_CASE("adam_step by hand: the first step moves each parameter by about lr", "[adam][training]") {
    // t = 1, β1 = 0.9, β2 = 0.999: m = 0.1 g, v = 0.001 g², step_size = lr / 0.1,
    // denom = √(0.001 g²) / √0.001 + ε = |g| + ε, so θ moves by lr · g / (|g| + ε) ≈ lr · sign(g).
    std::vector<double> theta = {1.0, -2.0, 3.0}, g = {0.5, -4.0, 0.0};
    attn::AdamState state;
    attn::adam_step(theta, g, state, {0.1});
    CHECK(state.step == 1);
    CHECK_TENSOR_CLOSE(as_vector({0.05, -0.4, 0.0}), as_vector(state.first_moment), 1e-17, 1e-15);
    CHECK_TENSOR_CLOSE(as_vector({0.00025, 0.016, 0.0}), as_vector(state.second_moment), 1e-19, 1e-15);
    // A zero gradient moves nothing: m = 0, denom = ε.
    CHECK_TENSOR_CLOSE(as_vector({1.0 - 0.1 * 0.5 / (0.5 + 1e-8), -2.0 + 0.1 * 4.0 / (4.0 + 1e-8), 3.0}), as_vector(theta),
                       1e-15, 1e-15);
    // Second step, same gradient 0.5 for θ0: m = 0.9·0.05 + 0.05 = 0.095, v = 0.999·0.00025 + 0.00025,
    // bias corrections 1 − 0.9² = 0.19 and 1 − 0.999² = 0.001999: θ0 moves by 0.1 · (0.095 / 0.19) / (√v / √0.001999 + ε).
    const double v = 0.999 * 0.00025 + 0.001 * 0.25, before = theta[0];
    attn::adam_step(theta, g, state, {0.1});
    CHECK(theta[0] == Approx(before - 0.1 * (0.095 / 0.19) / (std::sqrt(v) / std::sqrt(0.001999) + 1e-8)).epsilon(1e-14));
}

TEST_CASE("adam_step matches torch.optim.Adam step by step, on a flat vector and on tensors", "[adam][training][pytorch]") {
    for (const auto& dir : attn::testing::training_cases("adam")) {
        INFO(dir.filename().string());
        const AdamCase adam = load_case(dir);
        REQUIRE(adam.sizes.size() == 2);
        REQUIRE(adam.sizes[0] + adam.sizes[1] == adam.initial.size());
        // The flat vector.
        std::vector<double> flat = adam.initial;
        attn::AdamState flat_state;
        // The same numbers as two tensors, (2, 3) and (4), listed in the order PyTorch flattened them.
        attn::Matrix first = attn::Matrix::from_shape({2, 3});
        attn::Vector second = attn::Vector::from_shape({4});
        attn::Matrix first_grad = attn::Matrix::from_shape({2, 3});
        attn::Vector second_grad = attn::Vector::from_shape({4});
        attn::ParameterList parameters, gradients;
        parameters.add(first);
        parameters.add(second);
        gradients.add(first_grad);
        gradients.add(second_grad);
        parameters.scatter(adam.initial);
        attn::AdamState list_state;
        for (std::size_t step = 0; step < adam.gradients.shape(0); ++step) {
            INFO("step " << step + 1);
            attn::adam_step(flat, row(adam.gradients, step), flat_state, adam.options);
            CHECK_TENSOR_CLOSE(as_vector(row(adam.expected, step)), as_vector(flat), pytorch_tolerance, pytorch_tolerance);
            gradients.scatter(row(adam.gradients, step));
            attn::adam_step(parameters, gradients, list_state, adam.options);
            CHECK_TENSOR_CLOSE(as_vector(row(adam.expected, step)), as_vector(parameters.gather()), pytorch_tolerance,
                               pytorch_tolerance);
        }
        CHECK(flat_state.step == 5);
        CHECK(list_state.step == 5);
    }
}

TEST_CASE("ParameterList gathers its tensors in order and scatters them back", "[adam][training]") {
    attn::Matrix a = {{1, 2}, {3, 4}};
    std::vector<double> b = {5, 6, 7};
    attn::ParameterList list;
    list.add(a);
    list.add(b);
    CHECK(list.tensors() == 2);
    CHECK(list.size() == 7);
    CHECK(list.gather() == std::vector<double>{1, 2, 3, 4, 5, 6, 7});
    list.scatter({7, 6, 5, 4, 3, 2, 1});
    CHECK_TENSOR_CLOSE(attn::Matrix({{7, 6}, {5, 4}}), a, 0.0, 0.0);
    CHECK(b == std::vector<double>{3, 2, 1});
    CHECK_THROWS_WITH(list.scatter({1, 2}), Catch::Contains("flat holds 2 values but the 2 tensors hold 7"));
}

TEST_CASE("adam_step refuses bad gradients, options and states before changing anything", "[adam][training][errors]") {
    using Catch::Contains;
    std::vector<double> theta = {1.0, 2.0, 3.0};
    attn::AdamState state;
    const auto unchanged = [&] {
        CHECK(theta == std::vector<double>{1.0, 2.0, 3.0});
        CHECK(state.step == 0);
        CHECK(state.first_moment.empty());
    };
    CHECK_THROWS_WITH(attn::adam_step(theta, {1.0, 1.0}, state, {}),
                      Contains("gradients holds 2 values but parameters holds 3"));
    CHECK_THROWS_WITH(attn::adam_step(theta, {1.0, std::nan(""), 1.0}, state, {}), Contains("gradients[1] is nan"));
    CHECK_THROWS_WITH(attn::adam_step(theta, {1.0, 1.0, -INFINITY}, state, {}), Contains("gradients[2] is -inf"));
    const std::vector<double> g = {1.0, 1.0, 1.0};
    CHECK_THROWS_WITH(attn::adam_step(theta, g, state, {-1e-3}), Contains("learning_rate = -0.001"));
    CHECK_THROWS_WITH(attn::adam_step(theta, g, state, {1e-3, 1.0}), Contains("beta1 = 1 must be in [0, 1)"));
    CHECK_THROWS_WITH(attn::adam_step(theta, g, state, {1e-3, 0.9, std::nan("")}), Contains("beta2 = nan"));
    CHECK_THROWS_WITH(attn::adam_step(theta, g, state, {1e-3, 0.9, 0.999, -1e-9}), Contains("eps = -1e-09"));
    CHECK_THROWS_WITH(attn::adam_step(theta, g, state, {1e-3, 0.9, 0.999, 1e-8, -0.1}), Contains("weight_decay = -0.1"));
    unchanged();
    attn::AdamState other;
    std::vector<double> four = {1, 2, 3, 4};
    attn::adam_step(four, {1, 1, 1, 1}, other, {});
    CHECK_THROWS_WITH(attn::adam_step(theta, g, other, {}), Contains("moments hold 4 and 4 values (after 1 steps)") &&
                                                                Contains("parameters are 3"));
    // Two lists that do not pair up, tensor by tensor.
    attn::Matrix w = {{1, 2}}, wide = {{1, 1, 1}};
    attn::ParameterList parameters, short_list, mismatched;
    parameters.add(w);
    mismatched.add(wide);
    CHECK_THROWS_WITH(attn::adam_step(parameters, short_list, state, {}), Contains("gradients lists 0 tensors but parameters lists 1"));
    CHECK_THROWS_WITH(attn::adam_step(parameters, mismatched, state, {}),
                      Contains("tensor 0 of gradients holds 3 values but tensor 0 of parameters holds 2"));
    CHECK(w(0, 0) == 1.0);
}
