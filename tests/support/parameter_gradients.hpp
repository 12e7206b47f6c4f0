// tests/support/parameter_gradients.hpp — every parameter's gradient of the copy-task model
// against an expected one, each tensor named by its state_dict name and held to a fraction of its
// largest expected value: float32 carries about 7 digits and a gradient sums hundreds of
// products, so a small value is only as exact as its tensor's largest.
//
//   attn::testing::check_parameter_gradients(weights, expected, got, 1e-5);   // flat, PyTorch's order
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>
#include <xtensor/xadapt.hpp>

#include "attn/seq2seq_parameters.hpp"
#include "support/tensor_match.hpp"

namespace attn::testing {

/// expected and got: every parameter's gradient flat in the order of seq2seq_parameter_slots(weights).
inline void check_parameter_gradients(const Seq2SeqWeights& weights, const std::vector<double>& expected,
                                      const std::vector<double>& got, double fraction_of_largest) {
    REQUIRE(expected.size() == got.size());
    for (const auto& slot : seq2seq_parameter_slots(weights)) {
        INFO(slot.name);
        const std::size_t count =
            std::accumulate(slot.shape.begin(), slot.shape.end(), std::size_t(1), std::multiplies<>());
        const std::vector<double> e(expected.begin() + slot.offset, expected.begin() + slot.offset + count);
        const std::vector<double> g(got.begin() + slot.offset, got.begin() + slot.offset + count);
        double largest = 0;
        for (double value : e) largest = std::max(largest, std::abs(value));
        CHECK_TENSOR_CLOSE(xt::adapt(e), xt::adapt(g), fraction_of_largest * largest, 0);
    }
}

}  // namespace attn::testing
