// tutor/lesson/check.hpp — does a computed tensor match an expected one?
//
// Why one function: the lessons, `attn check` and the unit tests all judge numbers the same way,
// so a value that passes in one passes in all. An element passes when
//
//     |got − expected| ≤ resolution + absolute + relative·|expected|
//
// where `resolution` is half a unit of the last digit written in a lesson document (1.9991 → 5e-5;
// 0 for values given exactly), and absolute/relative allow float32 noise. NaN matches only NaN,
// ±∞ only the same infinity. Shapes must be equal.
//
//   auto c = compare(expected, got, Tolerance{1e-6, 1e-6});
//   if (!c.passed) std::cout << c.summary();   // "shape (2, 3) · 1 of 6 differ · max |Δ| 3.1e-02 at [1, 2]"
#pragma once

#include <string>
#include <vector>

#include "attn/tensor.hpp"

namespace attn::tutor {

struct Tolerance {
    double absolute = 1e-6;
    double relative = 1e-6;
};

struct Comparison {
    bool passed = false;
    bool shapes_match = false;
    std::vector<std::size_t> expected_shape, got_shape;
    std::size_t mismatches = 0;        // elements outside the tolerance
    double max_abs_difference = 0.0;   // over the finite pairs; infinity when a NaN/∞ does not match
    std::vector<std::size_t> worst;    // index of the largest difference (first mismatch if any)
    double worst_expected = 0.0, worst_got = 0.0, worst_allowed = 0.0;

    /// One line for a person: what matched, or where and by how much it did not.
    std::string summary() const;
};

/// Compares element by element; `resolution` (same size as `expected`, or empty) widens each
/// element's tolerance. std::invalid_argument when `resolution` has another size (a caller's bug).
Comparison compare(const DynamicTensor& expected, const DynamicTensor& got, const Tolerance& tolerance,
                   const std::vector<double>& resolution = {});

/// "3.1e-02": the max |Δ| as the tutor prints it.
std::string format_difference(double difference);

}  // namespace attn::tutor
