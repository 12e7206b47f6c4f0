// Tests of the fast path's element-wise kernels (src/fast/kernels.hpp): the branch-free
// exponential against std::exp over its whole range and at its edges (−∞, NaN, below the normal
// floats), the erf behind the exact GELU, and the softmax of a row with masks.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "fast/kernels.hpp"

using attn::fast::detail::erf_approx;
using attn::fast::detail::exp_of_nonpositive;

TEST_CASE("exp_of_nonpositive is within 2 float32 ulps of e^x on [-87.3, 0]", "[fast_kernels]") {
    double worst = 0;
    float worst_at = 0;
    for (float x = -87.33f; x <= 0.0f; x += 0.000731f) {
        const double expected = std::exp(double(x));
        const double relative = std::fabs(double(exp_of_nonpositive(x)) - expected) / expected;
        if (relative > worst) {
            worst = relative;
            worst_at = x;
        }
    }
    INFO("worst relative error " << worst << " at x = " << worst_at);
    CHECK(worst < std::numeric_limits<float>::epsilon());  // below 1.2e-7: at most 2 ulps anywhere
    CHECK(exp_of_nonpositive(0.0f) == 1.0f);
    CHECK(exp_of_nonpositive(-1.0f) == Approx(0.36787944117).epsilon(1e-7));
}

TEST_CASE("exp_of_nonpositive gives 0 below the normal floats and at -inf, NaN for NaN", "[fast_kernels]") {
    const float infinity = std::numeric_limits<float>::infinity();
    CHECK(exp_of_nonpositive(-infinity) == 0.0f);
    CHECK(exp_of_nonpositive(-88.0f) == 0.0f);
    CHECK(exp_of_nonpositive(-1e30f) == 0.0f);
    CHECK(exp_of_nonpositive(-std::numeric_limits<float>::max()) == 0.0f);
    // NaN must not reach an integer conversion (undefined behaviour, which UBSan's
    // float-cast-overflow reports in the sanitizer build): it comes out as NaN.
    CHECK(std::isnan(exp_of_nonpositive(std::numeric_limits<float>::quiet_NaN())));
    CHECK(std::isnan(exp_of_nonpositive(-std::numeric_limits<float>::quiet_NaN())));
    // Positive arguments are outside its domain and taken as 0.
    CHECK(exp_of_nonpositive(3.0f) == 1.0f);
    CHECK(exp_of_nonpositive(infinity) == 1.0f);
}

TEST_CASE("erf_approx is within 5e-7 of erf and keeps NaN", "[fast_kernels]") {
    double worst = 0;
    for (float x = -6.0f; x <= 6.0f; x += 0.00137f) worst = std::max(worst, std::fabs(double(erf_approx(x)) - std::erf(double(x))));
    CHECK(worst < 5e-7);
    CHECK(std::isnan(erf_approx(std::numeric_limits<float>::quiet_NaN())));
    CHECK(erf_approx(std::numeric_limits<float>::infinity()) == 1.0f);
}

TEST_CASE("softmax_row masks, limits and gives zeros to a row with no key", "[fast_kernels]") {
    std::vector<float> row = {1.0f, 2.0f, 3.0f, 4.0f, 100.0f};
    const std::vector<float> keep = {1.0f, 0.0f, 1.0f, 1.0f, 1.0f};
    attn::fast::detail::softmax_row(row.data(), 4, 5, keep.data());  // key 1 padding, key 4 beyond the limit
    const double sum = std::exp(1.0) + std::exp(3.0) + std::exp(4.0);
    CHECK(row[0] == Approx(std::exp(1.0) / sum).epsilon(1e-6));
    CHECK(row[1] == 0.0f);
    CHECK(row[2] == Approx(std::exp(3.0) / sum).epsilon(1e-6));
    CHECK(row[3] == Approx(std::exp(4.0) / sum).epsilon(1e-6));
    CHECK(row[4] == 0.0f);
    std::vector<float> hidden = {5.0f, 6.0f};
    const std::vector<float> none = {0.0f, 0.0f};
    attn::fast::detail::softmax_row(hidden.data(), 2, 2, none.data());
    CHECK(hidden == std::vector<float>{0.0f, 0.0f});
}
