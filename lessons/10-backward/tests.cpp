// This lesson's own tests: its finite differences agree with the library's backward to a relative
// 1e-7, the tiled (FlashAttention) backward equals the plain one, and a fully hidden query gets
// exact zeros, never NaN.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <string>

#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"

namespace {

using attn::testing::computed;

// max |got − expected| / max |expected|, printed with both tensors' values on failure.
void check_relative(const attn::DynamicTensor& expected, const attn::DynamicTensor& got, double limit) {
    REQUIRE(expected.shape() == got.shape());
    double largest = 0.0, difference = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        largest = std::max(largest, std::abs(expected.data()[i]));
        difference = std::max(difference, std::abs(got.data()[i] - expected.data()[i]));
    }
    INFO("expected " << expected << "\ngot " << got << "\nmax difference " << difference);
    REQUIRE(largest > 0.0);
    CHECK(difference / largest < limit);
}

}  // namespace

ATTN_LESSON_TEST_CASE("central finite differences agree with the backward to a relative 1e-7", "[lesson04]") {
    const auto run = attn::testing::run_this_lesson();
    for (const std::string example : {"main", "masked", "tiled"}) {
        INFO("example " << example);
        for (const std::string name : {"dQ", "dK", "dV"}) {
            INFO("gradient " << name);
            check_relative(computed(run, example, name), computed(run, example, "fd_" + name), 1e-7);
        }
    }
}

ATTN_LESSON_TEST_CASE("the tiled backward recomputing P from L equals the plain backward", "[lesson07]") {
    const auto run = attn::testing::run_this_lesson();
    for (const std::string name : {"dQ", "dK", "dV"}) {
        INFO("gradient " << name);
        check_relative(computed(run, "tiled", name), computed(run, "tiled", "tiled_" + name), 1e-13);
    }
    check_relative(computed(run, "tiled", "rowsum_dP_P"), computed(run, "tiled", "tiled_D"), 1e-13);
    check_relative(computed(run, "main", "rowsum_dP_P"), computed(run, "main", "D"), 1e-13);
}

ATTN_LESSON_TEST_CASE("a query that sees no key gets exact zeros, and a hidden key no gradient", "[lesson04]") {
    const auto run = attn::testing::run_this_lesson();
    const attn::DynamicTensor dQ = computed(run, "masked", "dQ"), dK = computed(run, "masked", "dK"),
                              dV = computed(run, "masked", "dV");
    for (std::size_t t = 0; t < dQ.shape(1); ++t)
        for (std::size_t x = 0; x < dQ.shape(2); ++x) CHECK(dQ(1, t, x) == 0.0);  // batch item 1: every key hidden
    for (std::size_t s = 0; s < dK.shape(1); ++s)
        for (std::size_t x = 0; x < dK.shape(2); ++x) {
            CHECK(dK(1, s, x) == 0.0);
            CHECK(dV(1, s, x) == 0.0);
        }
    for (std::size_t x = 0; x < dK.shape(2); ++x) CHECK(dK(0, 2, x) == 0.0);  // batch item 0 hides key 2
    for (std::size_t x = 0; x < dV.shape(2); ++x) CHECK(dV(0, 2, x) == 0.0);
}
