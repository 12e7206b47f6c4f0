// Tests for attn/rotary.hpp: RoPE in both layouts against Hugging Face's rotate_half and GPT-J's
// rotate_every_two (tests/data/positions, tools/make_positions_fixtures.py), values a reader can
// redo, the relative-position property, and the input it refuses.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "attn/error.hpp"
#include "attn/npy.hpp"
#include "attn/rotary.hpp"
#include "support/fixtures.hpp"
#include "support/tensor_match.hpp"

namespace {

std::vector<std::int64_t> load_positions(const std::filesystem::path& path) {
    const attn::NpyArray array = attn::read_npy(path.string(), attn::NpyAccept::floats_bools_integers);
    REQUIRE(array.dtype == attn::NpyDtype::integer);
    return std::vector<std::int64_t>(array.values.begin(), array.values.end());
}

attn::Tensor4 random_heads(std::size_t T, std::size_t d_k, unsigned seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<double> normal;
    attn::Tensor4 x = attn::Tensor4::from_shape({1, 1, T, d_k});
    for (double& value : x) value = normal(generator);
    return x;
}

// q rotated to position m, dotted with k rotated to position n.
double rotated_score(const attn::Tensor4& q, const attn::Tensor4& k, std::int64_t m, std::int64_t n,
                     attn::RopeLayout layout) {
    const attn::Tensor4 q_m = attn::rotary_embedding(q, {m}, layout), k_n = attn::rotary_embedding(k, {n}, layout);
    double score = 0;
    for (std::size_t d = 0; d < q.shape(3); ++d) score += q_m(0, 0, 0, d) * k_n(0, 0, 0, d);
    return score;
}

const attn::RopeLayout both_layouts[] = {attn::RopeLayout::halves, attn::RopeLayout::pairs};

}  // namespace

TEST_CASE("rotary_embedding matches Hugging Face's rotate_half and GPT-J's rotate_every_two",
          "[rotary][pytorch][lesson08]") {
    const auto cases = attn::testing::fixture_cases(ATTN_SOURCE_DIR "/tests/data/positions", "rope");
    REQUIRE(cases.size() == 8);
    for (const auto& dir : cases) {
        INFO(dir.filename().string());
        const auto options = attn::testing::read_key_values(dir / "options.txt");
        const attn::RopeLayout layout = options.at("layout") == "pairs" ? attn::RopeLayout::pairs : attn::RopeLayout::halves;
        CHECK(attn::rope_layout_name(layout) == options.at("layout"));
        const attn::Tensor4 x = attn::testing::load_tensor(dir / "in" / "x.npy");
        const auto positions = load_positions(dir / "in" / "positions.npy");
        const auto expected = attn::testing::load_tensor(dir / "expected" / "output.npy");
        // Angles up to 4096 radians: cos and sin of them agree to about 1e-13 between libraries.
        CHECK_TENSOR_CLOSE(expected, attn::rotary_embedding(x, positions, layout, std::stod(options.at("base"))), 1e-12,
                           0.0);
    }
}

TEST_CASE("rotary frequencies and angles are base^(-2i/d_k) and position times them", "[rotary][lesson08]") {
    CHECK_TENSOR_CLOSE(attn::Vector({1, 0.1, 0.01}), attn::rotary_frequencies(6, 1000.0), 1e-17, 1e-15);
    CHECK_TENSOR_CLOSE(attn::Matrix({{0, 0}, {1, 0.01}, {5, 0.05}}), attn::rotary_angles({0, 1, 5}, 4), 1e-17, 1e-15);
}

TEST_CASE("the two layouts pair different features of the same vector", "[rotary][lesson08]") {
    // q = e_0 at position 1: pair 0 is (0, 2) in halves and (0, 1) in pairs, turned by 1 radian.
    const attn::Tensor4 q = {{{{1, 0, 0, 0}}}};
    const double c = std::cos(1.0), s = std::sin(1.0);
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{c, 0, s, 0}}}}), attn::rotary_embedding(q, {1}, attn::RopeLayout::halves), 1e-16, 0);
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{c, s, 0, 0}}}}), attn::rotary_embedding(q, {1}, attn::RopeLayout::pairs), 1e-16, 0);
    // Feature 1 is in pair 1 (angle 0.01) for halves, the partner of feature 0 (angle 1) for pairs.
    const attn::Tensor4 e1 = {{{{0, 1, 0, 0}}}};
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{0, std::cos(0.01), 0, std::sin(0.01)}}}}),
                       attn::rotary_embedding(e1, {1}, attn::RopeLayout::halves), 1e-16, 0);
    CHECK_TENSOR_CLOSE(attn::Tensor4({{{{-s, c, 0, 0}}}}), attn::rotary_embedding(e1, {1}, attn::RopeLayout::pairs), 1e-16, 0);
}

TEST_CASE("position 0 leaves x as it is and every rotation keeps each pair's length", "[rotary][lesson08]") {
    const attn::Tensor4 x = random_heads(3, 8, 1);
    for (const auto layout : both_layouts) {
        CHECK_TENSOR_CLOSE(x, attn::rotary_embedding(x, {0, 0, 0}, layout), 0.0, 0.0);
        const attn::Tensor4 turned = attn::rotary_embedding(x, {1, 17, 300}, layout);
        for (std::size_t t = 0; t < 3; ++t) {
            double before = 0, after = 0;
            for (std::size_t d = 0; d < 8; ++d) {
                before += x(0, 0, t, d) * x(0, 0, t, d);
                after += turned(0, 0, t, d) * turned(0, 0, t, d);
            }
            CHECK(after == Approx(before).epsilon(1e-14));
        }
    }
}

TEST_CASE("q_m · k_n depends only on m − n, in both layouts", "[rotary][lesson08]") {
    const attn::Tensor4 q = random_heads(1, 8, 2), k = random_heads(1, 8, 3);
    for (const auto layout : both_layouts) {
        INFO(attn::rope_layout_name(layout));
        const double score_1_0 = rotated_score(q, k, 1, 0, layout);
        CHECK(rotated_score(q, k, 5, 4, layout) == Approx(score_1_0).margin(1e-13));
        CHECK(rotated_score(q, k, 1000, 999, layout) == Approx(score_1_0).margin(1e-12));
        CHECK(rotated_score(q, k, 7, 3, layout) == Approx(rotated_score(q, k, 4, 0, layout)).margin(1e-13));
        // Not a property of any dot product: another distance gives another score.
        CHECK(rotated_score(q, k, 2, 0, layout) != Approx(score_1_0).margin(1e-3));
    }
    // The layouts are not interchangeable: same q, k and positions, different scores.
    CHECK(rotated_score(q, k, 1, 0, attn::RopeLayout::halves) !=
          Approx(rotated_score(q, k, 1, 0, attn::RopeLayout::pairs)).margin(1e-3));
}

TEST_CASE("rotary_embedding refuses odd widths, a wrong number of positions and negative ones",
          "[rotary][errors][lesson08]") {
    const attn::Tensor4 x = random_heads(2, 4, 4);
    const auto halves = attn::RopeLayout::halves;
    CHECK_THROWS_WITH(attn::rotary_embedding(random_heads(2, 3, 5), {0, 1}, halves),
                      Catch::Contains("d_k = 3") && Catch::Contains("even"));
    CHECK_THROWS_WITH(attn::rotary_frequencies(5), Catch::Contains("d_k = 5"));
    CHECK_THROWS_WITH(attn::rotary_embedding(x, {0, 1, 2}, halves),
                      Catch::Contains("x (1, 1, 2, 4) (B, h, T, d_k) has T = 2 but positions (3) (T) has T = 3"));
    CHECK_THROWS_WITH(attn::rotary_embedding(x, {0, -1}, halves), Catch::Contains("positions[1] = -1 is negative"));
    CHECK_THROWS_AS(attn::rotary_angles({}, 4), attn::InputError);
    CHECK_THROWS_WITH(attn::rotary_embedding(x, {0, 1}, halves, 0.0), Catch::Contains("base"));
    CHECK_THROWS_WITH(attn::rotary_embedding(x, {0, 1}, halves, std::numeric_limits<double>::infinity()),
                      Catch::Contains("base"));
    attn::Tensor4 with_nan = x;
    with_nan(0, 0, 1, 2) = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH(attn::rotary_embedding(with_nan, {0, 1}, halves), Catch::Contains("x[0, 0, 1, 2]"));
}

TEST_CASE("rotate_feature_pairs turns by the angles given and checks their shape", "[rotary][lesson08]") {
    const attn::Tensor4 x = random_heads(2, 4, 6);
    const attn::Matrix angles = {{0.5, -2.0}, {3.0, 0.25}};
    for (const auto layout : both_layouts) {
        // With RoPE's own angles it is rotary_embedding; turning back by −angles undoes it.
        CHECK_TENSOR_CLOSE(attn::rotary_embedding(x, {4, 9}, layout),
                           attn::rotate_feature_pairs(x, attn::rotary_angles({4, 9}, 4), layout), 0.0, 0.0);
        const attn::Matrix back = -angles;
        CHECK_TENSOR_CLOSE(x, attn::rotate_feature_pairs(attn::rotate_feature_pairs(x, angles, layout), back, layout), 1e-15, 0);
    }
    CHECK_THROWS_WITH(attn::rotate_feature_pairs(x, attn::Matrix({{0.5}, {3.0}}), attn::RopeLayout::pairs),
                      Catch::Contains("angles must be (T, d_k/2) = (2, 2)"));
    CHECK_THROWS_WITH(attn::rotate_feature_pairs(x, attn::Matrix({{0.5, 1.0}}), attn::RopeLayout::pairs),
                      Catch::Contains("angles (1, 2) (T, pairs) has T = 1"));
}
