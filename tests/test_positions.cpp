// Tests for attn/positions.hpp: the sinusoidal table against the Annotated Transformer's code
// (tests/data/positions, tools/make_positions_fixtures.py), values a reader can redo, the
// properties lesson 8 shows, the odd-width rule and the sizes refused.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>

#include "attn/error.hpp"
#include "attn/positions.hpp"
#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"

TEST_CASE("sinusoidal_positions matches the Annotated Transformer's PositionalEncoding", "[positions][pytorch][lesson08]") {
    const auto cases = attn::testing::fixture_cases(ATTN_SOURCE_DIR "/tests/data/positions", "positions");
    REQUIRE(cases.size() == 5);
    for (const auto& dir : cases) {
        INFO(dir.filename().string());
        const auto options = attn::testing::read_key_values(dir / "options.txt");
        const std::size_t T = std::stoul(options.at("T")), D = std::stoul(options.at("d_model"));
        const auto expected = attn::testing::load_tensor(dir / "expected" / "positions.npy");
        // exp(−2i·ln(10000)/D) there, 1/10000^(2i/D) here: the angles differ in the last bits,
        // times positions up to 127.
        CHECK_TENSOR_CLOSE(expected, attn::sinusoidal_positions(T, D), 1e-13, 0.0);
    }
}

TEST_CASE("sinusoidal_positions for D = 4 is what a reader computes by hand", "[positions][lesson08]") {
    // Pair 0 has wavelength 10000^0 = 1, pair 1 has 10000^(2/4) = 100.
    const attn::Matrix expected = {{0, 1, 0, 1},
                                   {std::sin(1.0), std::cos(1.0), std::sin(0.01), std::cos(0.01)},
                                   {std::sin(2.0), std::cos(2.0), std::sin(0.02), std::cos(0.02)}};
    CHECK_TENSOR_CLOSE(expected, attn::sinusoidal_positions(3, 4), 1e-16, 0.0);
    // The printed digits: sin 1 = 0.8415, cos 1 = 0.5403, sin 0.01 = 0.0100.
    const attn::Matrix pe = attn::sinusoidal_positions(2, 4);
    CHECK(pe(1, 0) == Approx(0.8415).margin(5e-5));
    CHECK(pe(1, 1) == Approx(0.5403).margin(5e-5));
    CHECK(pe(1, 2) == Approx(0.0100).margin(5e-5));
}

TEST_CASE("PE(p) · PE(q) depends only on |p − q|", "[positions][lesson08]") {
    // Σ_i sin a sin b + cos a cos b = Σ_i cos((p − q)·ω_i): the same for every pair at one distance.
    const std::size_t T = 40, D = 16;
    const attn::Matrix pe = attn::sinusoidal_positions(T, D);
    const auto dot = [&](std::size_t p, std::size_t q) {
        double sum = 0;
        for (std::size_t d = 0; d < D; ++d) sum += pe(p, d) * pe(q, d);
        return sum;
    };
    for (std::size_t distance = 0; distance < 10; ++distance) {
        const double first = dot(0, distance);
        for (std::size_t p = 1; p + distance < T; ++p) {
            INFO("distance " << distance << ", p " << p);
            CHECK(dot(p, p + distance) == Approx(first).margin(1e-12));
            CHECK(dot(p + distance, p) == Approx(first).margin(1e-12));
        }
    }
    CHECK(dot(3, 3) == Approx(D / 2.0).margin(1e-12));  // sin² + cos² = 1 per pair
    CHECK(dot(0, 1) != Approx(dot(0, 2)).margin(1e-3));   // and it does change with the distance
}

TEST_CASE("PE(p + k) is PE(p) turned by the angle k·ω_i in every pair", "[positions][lesson08]") {
    const std::size_t D = 8, k = 3;
    const attn::Matrix pe = attn::sinusoidal_positions(12, D);
    for (std::size_t i = 0; i < D / 2; ++i) {
        const double omega = 1.0 / std::pow(10000.0, 2.0 * double(i) / double(D));
        const double c = std::cos(double(k) * omega), s = std::sin(double(k) * omega);
        for (std::size_t p = 0; p + k < 12; ++p) {
            // (sin, cos) of a + kω from (sin, cos) of a: the rotation by kω.
            CHECK(pe(p + k, 2 * i) == Approx(pe(p, 2 * i) * c + pe(p, 2 * i + 1) * s).margin(1e-12));
            CHECK(pe(p + k, 2 * i + 1) == Approx(pe(p, 2 * i + 1) * c - pe(p, 2 * i) * s).margin(1e-12));
        }
    }
}

TEST_CASE("an odd d_model ends with the sine of its last pair", "[positions][lesson08]") {
    const attn::Matrix pe = attn::sinusoidal_positions(7, 5);
    REQUIRE(pe.shape(1) == 5);
    for (std::size_t p = 0; p < 7; ++p) {
        CHECK(pe(p, 4) == Approx(std::sin(double(p) / std::pow(10000.0, 4.0 / 5.0))).margin(1e-15));
        CHECK(pe(p, 3) == Approx(std::cos(double(p) / std::pow(10000.0, 2.0 / 5.0))).margin(1e-15));
    }
}

TEST_CASE("sinusoidal_positions refuses sizes of 0 and tables too large to allocate", "[positions][errors][lesson08]") {
    CHECK_THROWS_WITH(attn::sinusoidal_positions(0, 4), Catch::Contains("T = 0"));
    CHECK_THROWS_WITH(attn::sinusoidal_positions(3, 0), Catch::Contains("d_model = 0"));
    CHECK_THROWS_WITH(attn::sinusoidal_positions(std::size_t(1) << 20, std::size_t(1) << 20),
                      Catch::Contains("too large"));
}
