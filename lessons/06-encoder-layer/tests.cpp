// This lesson's own tests: its worked layer against the lesson it builds on, and a step redone by hand.
#include <catch2/catch.hpp>

#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"

namespace {

using attn::testing::computed;
using attn::tutor::LessonRun;

}  // namespace

ATTN_LESSON_TEST_CASE("the worked layer's attention is lesson 5's, and its norm statistics are norm1's",
                      "[lesson05]") {
    // The document takes its example from the multi-head attention lesson, named here by its slug.
    const LessonRun five = attn::testing::run_source_lesson("multi-head-attention"), six = attn::testing::run_this_lesson();
    const attn::DynamicTensor output5 = computed(five, "main", "output"), attention6 = computed(six, "main", "attention_output");
    REQUIRE(output5.shape() == attention6.shape());
    for (std::size_t i = 0; i < output5.size(); ++i) CHECK(attention6.data()[i] == Approx(output5.data()[i]).margin(1e-14));
    const bool same_weights = computed(six, "main", "attention_weights") == computed(five, "main", "weights");
    CHECK(same_weights);
    // Step 5 by hand: mean 8.4375 / 4 of row 0 of x + attention(x), to the written digits.
    CHECK(computed(six, "main", "norm1_mean")(0, 0) == Approx(2.1094).margin(5e-5));
    CHECK(computed(six, "main", "norm1_variance")(0, 0) == Approx(2.1092).margin(5e-5));
}
