// Tests for tutor/lesson/check.hpp: compare, the one judge of every lesson check, every exercise step and
// the tensor assertions of this suite — the tolerance rule, the written digits, NaN and ±∞, shapes,
// the element reported, and the one-line summary.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tutor/lesson/check.hpp"

using attn::DynamicTensor;
using attn::tutor::compare;
using attn::tutor::Tolerance;

namespace {
const double infinity = std::numeric_limits<double>::infinity();
const double not_a_number = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("compare passes within resolution + absolute + relative times the expected value", "[check]") {
    const DynamicTensor expected = {1.0, 100.0};
    // Allowed: 0 + 1e-3 + 1e-2·|expected| → 0.011 for 1, 1.001 for 100.
    const Tolerance tolerance{1e-3, 1e-2};
    CHECK(compare(expected, DynamicTensor{1.0109, 100.999}, tolerance).passed);
    const auto c = compare(expected, DynamicTensor{1.0111, 100.0}, tolerance);
    CHECK_FALSE(c.passed);
    CHECK(c.mismatches == 1);
    CHECK(c.worst == std::vector<std::size_t>{0});
    CHECK(c.worst_allowed == Approx(0.011).epsilon(1e-12));
    CHECK(c.max_abs_difference == Approx(0.0111).epsilon(1e-9));
}

TEST_CASE("compare widens each element by its written resolution", "[check]") {
    // 1.9991 written to 4 decimals stands for anything within ±5e-5.
    const DynamicTensor expected = {1.9991, 50.0};
    const std::vector<double> resolution = {5e-5, 0.0};
    const Tolerance none{0.0, 0.0};
    CHECK(compare(expected, DynamicTensor{1.99914, 50.0}, none, resolution).passed);
    CHECK_FALSE(compare(expected, DynamicTensor{1.99916, 50.0}, none, resolution).passed);
    // 50 written as a whole number is exact.
    CHECK_FALSE(compare(expected, DynamicTensor{1.9991, 50.000001}, none, resolution).passed);
}

TEST_CASE("compare refuses a resolution of the wrong size instead of reading past it", "[check][errors]") {
    const DynamicTensor expected = {1.0, 2.0, 3.0};
    CHECK_THROWS_AS(compare(expected, expected, {}, std::vector<double>{0.1}), std::invalid_argument);
    CHECK_THROWS_WITH(compare(expected, expected, {}, std::vector<double>{0.1, 0.1, 0.1, 0.1}),
                      "compare: 4 resolutions for 3 expected values of shape (3)");
    CHECK(compare(expected, expected, {}, {}).passed);  // none at all: no resolution
}

TEST_CASE("compare matches NaN only with NaN and an infinity only with the same one", "[check]") {
    const Tolerance loose{1.0, 1.0};
    CHECK(compare(DynamicTensor{not_a_number, infinity, -infinity}, DynamicTensor{not_a_number, infinity, -infinity}, loose).passed);
    const auto nan_for_number = compare(DynamicTensor{0.5, 1.0}, DynamicTensor{not_a_number, 1.0}, loose);
    CHECK_FALSE(nan_for_number.passed);
    CHECK(std::isinf(nan_for_number.max_abs_difference));
    CHECK_FALSE(compare(DynamicTensor{infinity}, DynamicTensor{-infinity}, loose).passed);
    CHECK_FALSE(compare(DynamicTensor{infinity}, DynamicTensor{1e308}, loose).passed);
    CHECK_FALSE(compare(DynamicTensor{not_a_number}, DynamicTensor{0.0}, loose).passed);
}

TEST_CASE("compare reports a shape mismatch without comparing values", "[check]") {
    const auto c = compare(DynamicTensor::from_shape({2, 3}), DynamicTensor::from_shape({3, 2}), {});
    CHECK_FALSE(c.passed);
    CHECK_FALSE(c.shapes_match);
    CHECK(c.summary() == "shape differs: expected (2, 3), got (3, 2)");
}

TEST_CASE("compare reports the first mismatch, or else the largest difference", "[check]") {
    const DynamicTensor expected = {{0.0, 0.0}, {0.0, 0.0}};
    const Tolerance tolerance{0.1, 0.0};
    // Two mismatches, the larger second: the first is reported, the max is the larger.
    const auto failing = compare(expected, DynamicTensor{{0.0, 0.2}, {0.0, 0.9}}, tolerance);
    CHECK(failing.mismatches == 2);
    CHECK(failing.worst == std::vector<std::size_t>{0, 1});
    CHECK(failing.worst_got == 0.2);
    CHECK(failing.max_abs_difference == Approx(0.9));
    // No-break spaces (U+00A0) keep "max |Δ| 9.0e-01" and "over 4 values" whole on a wrapped line.
    CHECK(failing.summary() ==
          "max\u00a0|Δ|\u00a09.0e-01 · 2 of 4 values differ; first at [0, 1]: expected 0, got 0.2 (allowed ±0.1)");
    // All within tolerance: the largest difference is reported.
    const auto passing = compare(expected, DynamicTensor{{0.0, 0.05}, {0.07, 0.0}}, tolerance);
    CHECK(passing.passed);
    CHECK(passing.worst == std::vector<std::size_t>{1, 0});
    CHECK(passing.summary() == "max\u00a0|Δ|\u00a07.0e-02 over\u00a04\u00a0values");
    // One value is one value; one mismatch differs (singular).
    CHECK(compare(DynamicTensor{1.0}, DynamicTensor{1.0}, tolerance).summary() == "max\u00a0|Δ|\u00a00.0e+00 over\u00a01\u00a0value");
    CHECK_THAT(compare(expected, DynamicTensor{{0.0, 0.0}, {0.0, 0.5}}, tolerance).summary(),
               Catch::Contains(" · 1 of 4 values differs; first at [1, 1]"));
}

TEST_CASE("format_difference writes the max difference as the tutor prints it", "[check]") {
    CHECK(attn::tutor::format_difference(0.031) == "3.1e-02");
    CHECK(attn::tutor::format_difference(0.0) == "0.0e+00");
    CHECK(attn::tutor::format_difference(infinity) == "inf");
    CHECK(attn::tutor::format_difference(not_a_number) == "nan");
}
