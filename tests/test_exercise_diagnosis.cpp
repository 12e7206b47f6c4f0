// The exercise checker's diagnosis (exercises/support/exercise_checker.hpp): for every exercise,
// an implementation with a planted classic mistake — its steps computed by the library's version
// of that mistake — is named correctly; the right answer matches no mistake; and numbers that fit
// no mistake get the first step and element that diverge.
#include <catch2/catch.hpp>

#include "exercise_checker.hpp"
#include "support/tensor_match.hpp"

#include "../exercises/01-dot-product/known_mistakes.hpp"

namespace {

using namespace attn;
using namespace attn::exercises;

// Replaces each step's `got` with the mistake's values: what a student who made it would hand in.
Steps planted(Steps steps, const Mistake& mistake) {
    for (std::size_t i = 0; i < steps.size(); ++i) steps[i].got = mistake.steps[i];
    return steps;
}

// Every mistake of `mistakes` is diagnosed as itself, on the case whose correct steps are `correct`.
void check_every_mistake_is_named(const Steps& correct, const Mistakes& mistakes) {
    REQUIRE_FALSE(mistakes.empty());
    CHECK(diagnose(correct, mistakes, {1e-9, 1e-9}).mistake == nullptr);
    for (const auto& mistake : mistakes) {
        INFO("planted: " << mistake.explanation);
        const Diagnosis diagnosis = diagnose(planted(correct, mistake), mistakes, {1e-9, 1e-9});
        REQUIRE(diagnosis.mistake != nullptr);
        CHECK(diagnosis.mistake->explanation == mistake.explanation);
        CHECK_THAT(diagnosis.message, Catch::Contains(mistake.explanation));
    }
}

// Lesson 1's worked example.
const Tensor3 A = {{{1, 2, 3}, {2, 2, 3}}, {{4, 5, 6}, {4, 5, 6}}};
const Matrix b = {{7, 8, 9}, {2, 1, 1}};

}  // namespace

TEST_CASE("exercise 1 - each planted mistake is named", "[exercises][diagnosis]") {
    const AttentionStep right = dot_attention(A, b);
    check_every_mistake_is_named(exercise01::steps_of(right, right), exercise01::known_mistakes(A, b));
}

TEST_CASE("numbers that match no mistake get the first step and element that diverge", "[exercises][diagnosis]") {
    const AttentionStep right = dot_attention(A, b);
    Steps steps = exercise01::steps_of(right, right);
    steps[1].got(1, 0) = 0.25;  // one wrong weight
    steps[2].got(1, 2) = 7.0;   // and a wrong context value
    const Diagnosis diagnosis = diagnose(steps, exercise01::known_mistakes(A, b), {1e-9, 1e-9});
    CHECK(diagnosis.mistake == nullptr);
    CHECK_THAT(diagnosis.message, Catch::Contains("No classic mistake matches") &&
                                      Catch::Contains("'weights', first at [1, 0]") && Catch::Contains("got 0.250000"));
    steps[0].got = xt::zeros<double>({3, 2});
    CHECK_THAT(diagnose(steps, {}, {1e-9, 1e-9}).message, Catch::Contains("'scores': its shape is (3, 2), expected (2, 2)"));
}
