// Tests for attn/dropout.hpp: the identity at p = 0, zeros at p = 1, the masks' draws against
// numpy's MT19937 with the same recipe, the kept fraction of a large mask, the backward.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "attn/dropout.hpp"
#include "attn/error.hpp"
#include "support/tensor_match.hpp"

namespace {

// Values of both signs, none zero, so that a dropped value can be told from a kept one.
attn::Tensor3 sample(std::size_t B, std::size_t T, std::size_t D) {
    attn::Tensor3 x = attn::Tensor3::from_shape({B, T, D});
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = (i % 2 == 0 ? 1.0 : -1.0) * (0.5 + 0.25 * double(i));
    return x;
}

}  // namespace

TEST_CASE("dropout: p = 0 and a dropout that is off are the identity bit for bit and draw nothing", "[dropout]") {
    const attn::Tensor3 x = sample(2, 3, 4);
    std::mt19937 generator(7), untouched(7);
    const auto off = attn::dropout(x, attn::Dropout());
    const auto zero = attn::dropout(x, attn::Dropout(0.0, generator));
    CHECK((off.output == x));
    CHECK((zero.output == x));
    CHECK(off.mask.identity());
    CHECK(zero.mask.identity());
    CHECK(generator() == untouched());  // p = 0 consumed no draw
    const attn::Tensor3 dy = sample(2, 3, 4) * 3.0;
    CHECK((attn::dropout_backward(zero.mask, dy) == dy));
}

TEST_CASE("dropout: p = 1 zeroes every value (infinite ones included) and their gradient", "[dropout]") {
    attn::Tensor3 x = sample(2, 3, 4);
    x(1, 2, 3) = std::numeric_limits<double>::infinity();
    std::mt19937 generator(7);
    const auto step = attn::dropout(x, attn::Dropout(1.0, generator));
    CHECK((step.output == attn::Tensor3(xt::zeros<double>({2, 3, 4}))));
    CHECK((attn::dropout_backward(step.mask, sample(2, 3, 4)) == attn::Tensor3(xt::zeros<double>({2, 3, 4}))));
}

TEST_CASE("dropout: the mask follows the seeded recipe as numpy's MT19937 draws it", "[dropout]") {
    // numpy: r = RandomState(7).randint(0, 2**32, size=24, dtype=uint32); kept = (r + 0.5) / 2**32 < 0.75.
    // Its first three draws are 327741615, 976413892, 3349725721 (u = 0.076, 0.227, 0.780: kept, kept, dropped).
    const std::vector<double> expected_kept = {1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1};
    const attn::Tensor3 x = sample(2, 3, 4);
    std::mt19937 generator(7);
    const auto step = attn::dropout(x, attn::Dropout(0.25, generator));
    REQUIRE(step.mask.kept.size() == expected_kept.size());
    CHECK(step.mask.scale == Approx(4.0 / 3.0).epsilon(1e-15));
    for (std::size_t i = 0; i < expected_kept.size(); ++i) {
        INFO("value " << i << ": x = " << x.data()[i]);
        CHECK(step.mask.kept.data()[i] == expected_kept[i]);
        // y = kept · x / (1 − p), with 1 / 0.75 = 4 / 3.
        CHECK(step.output.data()[i] == Approx(expected_kept[i] * x.data()[i] * 4.0 / 3.0).epsilon(1e-15));
    }
    // The same seed gives the same mask; the generator went on, so the next mask is another.
    std::mt19937 again(7);
    const attn::Dropout second(0.25, again);
    CHECK((attn::dropout(x, second).mask.kept == step.mask.kept));
    CHECK((attn::dropout(x, second).mask.kept != step.mask.kept));
}

TEST_CASE("dropout: the kept fraction of a large mask is 1 - p within a binomial bound", "[dropout]") {
    // N = 200 000 values, p = 0.1: the kept count is Binomial(N, 0.9), mean 180 000, standard deviation
    // σ = √(N · 0.9 · 0.1) = √18 000 ≈ 134.2. Six σ, 805 values, is a fraction of 0.004: a fair
    // generator is outside it with a probability below 2e-9; a mask drawn with p and 1 − p swapped
    // (kept fraction 0.1) or scaled wrongly is far outside.
    const std::size_t N = 200000;
    const attn::Matrix x = xt::ones<double>({N / 100, std::size_t(100)});
    std::mt19937 generator(2024);
    const auto step = attn::dropout(x, attn::Dropout(0.1, generator));
    double kept = 0.0, output_sum = 0.0;
    for (std::size_t i = 0; i < N; ++i) {
        kept += step.mask.kept.data()[i];
        output_sum += step.output.data()[i];
    }
    const double sigma = std::sqrt(double(N) * 0.9 * 0.1);
    INFO("kept " << kept << " of " << N << ", expected 180000 ± " << 6 * sigma);
    CHECK(std::abs(kept - 180000.0) <= 6.0 * sigma);
    // Inverted dropout keeps the expectation: the output's mean is kept / N / 0.9, about 1.
    // (2e5 additions of 1 / 0.9 round to about 2e-11 relative.)
    CHECK(output_sum == Approx(kept / 0.9).epsilon(1e-10));
}

TEST_CASE("dropout_backward: the gradient is mask ∘ scale ∘ dY and shapes are checked", "[dropout]") {
    const attn::Tensor3 x = sample(2, 3, 4);
    std::mt19937 generator(11);
    const auto step = attn::dropout(x, attn::Dropout(0.5, generator));
    attn::Tensor3 dy = sample(2, 3, 4);
    for (double& value : dy) value = 1.0 / value;
    const attn::Tensor3 dx = attn::dropout_backward(step.mask, dy);
    attn::Tensor3 expected = attn::Tensor3::from_shape(dy.shape());
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < dy.size(); ++i) {
        expected.data()[i] = step.mask.kept.data()[i] * 2.0 * dy.data()[i];  // 1 / (1 − 0.5) = 2
        dropped += step.mask.kept.data()[i] == 0.0;
    }
    CHECK(dropped > 0);
    CHECK(dropped < dy.size());
    CHECK_TENSOR_CLOSE(expected, dx, 0.0, 1e-15);

    const attn::Tensor3 wrong = sample(2, 4, 3);
    CHECK_THROWS_AS(attn::dropout_backward(step.mask, wrong), attn::ShapeError);
    CHECK_THROWS_WITH(attn::dropout_backward(step.mask, wrong),
                      Catch::Contains("grad_output") && Catch::Contains("(2, 4, 3)") && Catch::Contains("(2, 3, 4)"));
    CHECK_THROWS_AS(attn::Dropout(1.5, generator), attn::InputError);
    CHECK_THROWS_AS(attn::Dropout(-0.1, generator), attn::InputError);
    CHECK_THROWS_AS(attn::Dropout(std::nan(""), generator), attn::InputError);
}
