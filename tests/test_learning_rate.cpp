// Tests for attn/learning_rate.hpp: the warm-up and the decay by hand, the rates LambdaLR gives
// the first 10 updates of torch.optim.Adam (tests/data/training, tools/make_training_fixtures.py),
// and the arguments it refuses.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "attn/error.hpp"
#include "attn/learning_rate.hpp"
#include "support/fixtures.hpp"
#include "support/training_fixtures.hpp"

TEST_CASE("noam_learning_rate by hand: linear to the peak at warmup, then 1/sqrt(step)", "[learning_rate][training]") {
    const double peak = 1.0 / std::sqrt(512.0 * 400.0);  // d_model^(−1/2) · warmup^(−1/2)
    CHECK(attn::noam_learning_rate(400, 512, 1.0, 400) == Approx(peak).epsilon(1e-15));
    CHECK(attn::noam_learning_rate(200, 512, 1.0, 400) == Approx(peak / 2).epsilon(1e-15));   // half way up
    CHECK(attn::noam_learning_rate(1600, 512, 1.0, 400) == Approx(peak / 2).epsilon(1e-15));  // 4 × warmup: 1/√4
    CHECK(attn::noam_learning_rate(1600, 512, 2.0, 400) == Approx(peak).epsilon(1e-15));      // factor scales it
    // Step 0 counts as 1: 512^(−1/2) · 400^(−3/2) = 1 / (√512 · 8000).
    const double first = 1.0 / (std::sqrt(512.0) * 8000.0);
    CHECK(attn::noam_learning_rate(1, 512, 1.0, 400) == Approx(first).epsilon(1e-15));
    CHECK(attn::noam_learning_rate(0, 512, 1.0, 400) == attn::noam_learning_rate(1, 512, 1.0, 400));
}

TEST_CASE("noam_learning_rate(k - 1) is the rate LambdaLR gives update k", "[learning_rate][training][pytorch]") {
    for (const auto& dir : attn::testing::training_cases("learning-rate")) {
        INFO(dir.filename().string());
        const auto options = attn::testing::read_key_values(dir / "options.txt");
        const std::size_t d_model = std::stoul(options.at("d_model")), warmup = std::stoul(options.at("warmup"));
        const double factor = std::stod(options.at("factor")), base_lr = std::stod(options.at("base_lr"));
        const attn::DynamicTensor rates = attn::testing::load_tensor(dir / "expected" / "rates.npy");
        REQUIRE(rates.size() == 10);
        for (std::size_t k = 1; k <= rates.size(); ++k) {
            const double expected = rates(k - 1), got = base_lr * attn::noam_learning_rate(k - 1, d_model, factor, warmup);
            INFO("update " << k << ": expected " << expected << ", got " << got << ", |Δ| " << std::abs(expected - got));
            // One pow, one min and two products, as rate() computes them: equal to the last bits but one.
            CHECK(std::abs(expected - got) <= 1e-15 * expected);
        }
        // The consequence of LambdaLR starting at 0: the first two updates share a rate.
        CHECK(rates(0) == rates(1));
    }
}

TEST_CASE("noam_learning_rate refuses a zero d_model or warmup and a factor that is not a positive number",
          "[learning_rate][training][errors]") {
    using Catch::Contains;
    CHECK_THROWS_WITH(attn::noam_learning_rate(1, 0, 1.0, 400), Contains("d_model = 0"));
    CHECK_THROWS_WITH(attn::noam_learning_rate(1, 512, 1.0, 0), Contains("warmup = 0"));
    CHECK_THROWS_WITH(attn::noam_learning_rate(1, 512, 0.0, 400), Contains("factor = 0 must be a finite number > 0"));
    CHECK_THROWS_WITH(attn::noam_learning_rate(1, 512, -1.0, 400), Contains("factor = -1"));
    CHECK_THROWS_WITH(attn::noam_learning_rate(1, 512, std::nan(""), 400), Contains("factor = nan"));
    CHECK_THROWS_AS(attn::noam_learning_rate(1, 512, std::numeric_limits<double>::infinity(), 400), attn::InputError);
}
