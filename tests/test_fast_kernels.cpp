// Tests of the fast path's element-wise kernels (src/fast/kernels.hpp): the branch-free
// exponential against std::exp over its whole range and at its edges (−∞, NaN, below the normal
// floats), the erf behind the exact GELU, and the softmax of a row with masks; every instruction
// set's row kernels against double; the choice of instruction set and the machine description.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/fast/machine.hpp"
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

// Each instruction set's row kernels (src/fast/simd.hpp) against the same rows computed in double:
// rows of 1 to 70 values, around every vector width, with padding and a causal limit. Tolerances:
// softmax 1e-6 relative (float32 exponentials within 2 ulps, sums of ≤ 70 terms), LayerNorm 2e-5
// absolute on values of order 1, GELU 5e-7 (erf_approx) plus float32
// rounding; the tanh form float32's tanh and rounding.
TEST_CASE("every instruction set's row kernels agree with double", "[fast_kernels]") {
    using attn::fast::detail::element_kernels;
    std::mt19937 generator(7);
    std::uniform_real_distribution<float> uniform(-4.0f, 4.0f);
    for (const auto simd : attn::fast::detail::available_simd()) {
        const auto& kernels = element_kernels(simd);
        INFO(attn::fast::detail::simd_name(simd));
        for (std::size_t n = 1; n <= 70; ++n) {
            INFO("row of " << n);
            std::vector<float> x(n), keep(n);
            for (std::size_t i = 0; i < n; ++i) {
                x[i] = uniform(generator);
                keep[i] = i % 3 == 1 ? 0.0f : 1.0f;
            }
            // count_non_finite: NaN, +inf and -inf planted.
            std::vector<float> bad = x;
            int planted = 0;
            for (std::size_t i = 0; i < n; i += 5, ++planted) {
                bad[i] = i % 3 == 0 ? std::numeric_limits<float>::quiet_NaN()
                                    : (i % 3 == 1 ? 1.0f : -1.0f) * std::numeric_limits<float>::infinity();
            }
            CHECK(kernels.count_non_finite(bad.data(), n) == planted);
            // softmax_row with padding and a limit below n.
            const std::size_t limit = n - n / 4;
            std::vector<float> row = x;
            kernels.softmax_row(row.data(), limit, n, keep.data());
            double maximum = -1e300, sum = 0.0;
            for (std::size_t s = 0; s < limit; ++s)
                if (keep[s] != 0.0f) maximum = std::max(maximum, double(x[s]));
            for (std::size_t s = 0; s < limit; ++s)
                if (keep[s] != 0.0f) sum += std::exp(double(x[s]) - maximum);
            for (std::size_t s = 0; s < n; ++s) {
                const bool kept = s < limit && keep[s] != 0.0f && maximum > -1e300;
                const double expected = kept ? std::exp(double(x[s]) - maximum) / sum : 0.0;
                CHECK(row[s] == Approx(expected).epsilon(1e-6).margin(1e-12));
            }
            // residual_layer_norm_row: x + x·0.5 + bias, γ and β of order 1.
            std::vector<float> half(n), bias(n), gamma(n), beta(n), out(n);
            for (std::size_t j = 0; j < n; ++j) {
                half[j] = 0.5f * x[j];
                bias[j] = 0.25f * float(j % 4);
                gamma[j] = 1.0f + 0.125f * float(j % 3);
                beta[j] = -0.5f + 0.25f * float(j % 5);
            }
            kernels.residual_layer_norm_row(x.data(), half.data(), bias.data(), gamma.data(), beta.data(), 1e-5f,
                                            out.data(), n);
            double mean = 0.0, variance = 0.0;
            for (std::size_t j = 0; j < n; ++j) mean += double(x[j]) + double(half[j]) + double(bias[j]);
            mean /= double(n);
            for (std::size_t j = 0; j < n; ++j) {
                const double centred = double(x[j]) + double(half[j]) + double(bias[j]) - mean;
                variance += centred * centred;
            }
            variance /= double(n);
            for (std::size_t j = 0; j < n; ++j) {
                const double normal = (double(x[j]) + double(half[j]) + double(bias[j]) - mean) / std::sqrt(variance + 1e-5);
                CHECK(out[j] == Approx(normal * gamma[j] + beta[j]).margin(2e-5));
            }
            // bias_activation_row: relu exactly, gelu as x·Φ(x), gelu_tanh as PyTorch's tanh form.
            std::vector<float> relu = x, gelu = x, gelu_tanh = x;
            kernels.bias_activation_row(relu.data(), bias.data(), n, attn::Activation::relu);
            kernels.bias_activation_row(gelu.data(), bias.data(), n, attn::Activation::gelu);
            kernels.bias_activation_row(gelu_tanh.data(), bias.data(), n, attn::Activation::gelu_tanh);
            for (std::size_t j = 0; j < n; ++j) {
                const float v = x[j] + bias[j];
                CHECK(relu[j] == (v > 0.0f ? v : 0.0f));
                const double exact = 0.5 * double(v) * (1.0 + std::erf(double(v) / std::sqrt(2.0)));
                CHECK(gelu[j] == Approx(exact).margin(4e-6));
                const double cubic = double(v) + 0.044715 * double(v) * double(v) * double(v);
                const double tanh_form = 0.5 * double(v) * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * cubic));
                CHECK(gelu_tanh[j] == Approx(tanh_form).margin(4e-6));
            }
        }
    }
}

TEST_CASE("use_simd chooses among the instruction sets this CPU runs, and refuses the others", "[fast_kernels]") {
    using attn::fast::detail::Simd;
    const auto every = attn::fast::detail::available_simd();
    REQUIRE(every.front() == Simd::baseline);
    CHECK(attn::fast::detail::active_simd() == every.back());
    for (const auto simd : every) {
        attn::fast::detail::use_simd(simd);
        CHECK(attn::fast::detail::active_simd() == simd);
        CHECK(std::string(attn::fast::describe_machine().kernels) == attn::fast::detail::simd_name(simd));
    }
    for (const auto simd : {Simd::avx2, Simd::avx512}) {
        if (std::find(every.begin(), every.end(), simd) == every.end()) {
            CHECK_THROWS_AS(attn::fast::detail::use_simd(simd), attn::InputError);
        }
    }
    attn::fast::detail::use_simd(every.back());
}

TEST_CASE("the machine description counts each physical core once, within the CPUs allowed", "[fast_kernels]") {
    const attn::fast::MachineDescription machine = attn::fast::describe_machine();
    CHECK_FALSE(machine.cpu_model.empty());
    CHECK(machine.logical_cpus >= 1);
    CHECK(machine.physical_cores >= 1);
    CHECK(machine.physical_cores <= machine.logical_cpus);
    CHECK(attn::fast::physical_cores() == machine.physical_cores);
}
