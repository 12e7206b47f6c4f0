// The exercises' diagnosis (src/exercises/diagnosis.hpp) on every exercise's real cases: each
// known mistake, planted in every case, is named; the right answer passes every case and is named
// nothing; a planted mistake that coincides with another in some cases — or a mistake the
// checker does not know, which coincides with a known one in some cases — is never misnamed;
// numbers that fit nothing get the first diverging step and element; float precision is said.
#include <algorithm>
#include <catch2/catch.hpp>

#include "support/per_lesson.hpp"
#include <cmath>
#include <map>
#include <xtensor/xview.hpp>

#include "01-dot-product/exercise/mistakes.hpp"
#include "02-luong/exercise/mistakes.hpp"
#include "03-bahdanau/exercise/mistakes.hpp"
#include "04-causal-self-attention/exercise/mistakes.hpp"
#include "05-multi-head-attention/exercise/mistakes.hpp"
#include "07-online-softmax/exercise/trace_steps.hpp"
#include "exercises/diagnosis.hpp"
#include "tutor/exercises.hpp"
#include "tutor/named_weights.hpp"

namespace {

using namespace attn;
using namespace attn::exercises;

const Exercise& exercise(int number) {
    static std::map<int, Exercise> loaded;
    auto found = loaded.find(number);
    if (found == loaded.end()) found = loaded.emplace(number, exercise_definition(number, ATTN_SOURCE_DIR)).first;
    return found->second;
}

std::vector<DynamicTensor> expected_values(const Case& c) {
    std::vector<DynamicTensor> values;
    for (const auto& step : c.expected) values.push_back(step.value);
    return values;
}

// What a student's program reports when its values for the compared steps are `values`.
CaseOutcome judged(const Case& c, const std::vector<DynamicTensor>& values) {
    NamedTensors got;
    for (std::size_t k = 0; k < c.expected.size(); ++k) got[c.expected[k].name] = values.at(k);
    return judge_case(c, got);
}

// Every case answered by `student` (the compared steps' values for that case).
template <class Student>
std::vector<CaseOutcome> answers(const Exercise& e, Student student) {
    std::vector<CaseOutcome> outcomes;
    for (const auto& c : e.cases) outcomes.push_back(judged(c, student(c)));
    return outcomes;
}

// A student who made mistake `id`: its values where it is defined, the right ones elsewhere.
std::vector<CaseOutcome> planted(const Exercise& e, const std::string& id) {
    return answers(e, [&](const Case& c) {
        const MistakeTable table = c.mistakes();
        const auto found = table.find(id);
        return found == table.end() ? expected_values(c) : found->second;
    });
}

bool coincide(const Case& c, const std::vector<DynamicTensor>& a, const std::vector<DynamicTensor>& b) {
    for (std::size_t k = 0; k < c.expected.size(); ++k) {
        if (!tutor::compare(a[k], b[k], c.tolerance).passed) return false;
    }
    return true;
}

// Does some case give mistakes `a` and `b` the same (wrong) numbers, and some other case not?
void require_coincidence_in_some_cases_only(const Exercise& e, const std::string& a, const std::string& b) {
    bool same_somewhere = false, different_somewhere = false;
    for (const auto& c : e.cases) {
        const MistakeTable table = c.mistakes();
        if (!table.count(a) || !table.count(b)) continue;
        const bool wrong = !coincide(c, table.at(a), expected_values(c));
        const bool same = coincide(c, table.at(a), table.at(b));
        same_somewhere = same_somewhere || (same && wrong);
        different_somewhere = different_somewhere || !same;
    }
    INFO(a << " and " << b);
    REQUIRE(same_somewhere);
    REQUIRE(different_somewhere);
}

std::size_t failed_cases(const std::vector<CaseOutcome>& outcomes) {
    std::size_t failed = 0;
    for (const auto& o : outcomes) failed += o.status != CaseOutcome::Status::passed;
    return failed;
}

// For each lesson with an exercise: the right answer passes every case and every planted
// mistake is named.
void right_answer_passes_and_mistakes_are_named(const attn::testing::LessonFolder& lesson) {
    const Exercise& e = exercise(lesson.number);
    REQUIRE(e.cases.size() >= 5);
    const auto right = answers(e, expected_values);
    CHECK(failed_cases(right) == 0);
    CHECK(diagnose(e, right).message.empty());
    for (const auto& mistake : e.mistakes) {
        INFO("planted: " << mistake.id);
        const auto outcomes = planted(e, mistake.id);
        CHECK(failed_cases(outcomes) > 0);
        const Diagnosis diagnosis = diagnose(e, outcomes);
        CHECK(diagnosis.mistake == mistake.id);
        CHECK_THAT(diagnosis.message, Catch::Contains(mistake.explanation));
    }
}

}  // namespace

ATTN_PER_LESSON_TEST("the right answer passes every case and every planted mistake is named",
                     "[exercises][diagnosis]", right_answer_passes_and_mistakes_are_named, attn::testing::with_exercise)

TEST_CASE("exercise 1 - all weights 1 (the squeeze trap) is never named as the softmax over the batch axis",
          "[exercises][diagnosis][lesson01]") {
    const Exercise& e = exercise(1);
    // With B = 1 both make every weight 1; with B > 1 they differ.
    require_coincidence_in_some_cases_only(e, "weights_all_one", "softmax_over_batch");
    CHECK(diagnose(e, planted(e, "weights_all_one")).mistake == "weights_all_one");
    CHECK(diagnose(e, planted(e, "softmax_over_batch")).mistake == "softmax_over_batch");
}

namespace {

// The compared steps of case `c`, taken by name from `all`.
std::vector<DynamicTensor> by_name(const Case& c, const NamedTensors& all) {
    std::vector<DynamicTensor> values;
    for (const auto& step : c.expected) values.push_back(all.at(step.name));
    return values;
}

// Does the student's answer coincide, in some failed case, with the values of the listed mistake `id`?
bool coincides_with_somewhere(const Exercise& e, const std::vector<CaseOutcome>& outcomes, const std::string& id) {
    for (std::size_t i = 0; i < e.cases.size(); ++i) {
        if (outcomes[i].status != CaseOutcome::Status::failed) continue;
        const MistakeTable table = e.cases[i].mistakes();
        if (table.count(id) && coincide(e.cases[i], by_name(e.cases[i], outcomes[i].got), table.at(id))) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("exercise 2 - all weights 1, a mistake exercise 2 does not list, is not named as the softmax over the batch",
          "[exercises][diagnosis][lesson02]") {
    const Exercise& e = exercise(2);
    const auto outcomes = answers(e, [](const Case& c) {
        const Tensor3 A = c.inputs.at("encoder_outputs");
        const LuongGeneralStep right = luong_general_attention(A, c.inputs.at("decoder_output"), c.inputs.at("W_a"));
        const LuongGeneralStep all_one = mistakes::weights_all_one(right, A);
        return by_name(c, {{"projected", all_one.projected}, {"scores", all_one.scores}, {"weights", all_one.weights},
                           {"context", all_one.context}});
    });
    // With B = 1 the softmax over the batch makes every weight 1 too.
    REQUIRE(coincides_with_somewhere(e, outcomes, "softmax_over_batch"));
    const Diagnosis diagnosis = diagnose(e, outcomes);
    CHECK(diagnosis.mistake.empty());
    CHECK_THAT(diagnosis.message, Catch::Contains("No classic mistake explains your numbers in every case"));
}

TEST_CASE("exercise 3 - all weights 1 is not named as the softmax over the batch, and the reshape is named though S = 1 hides it",
          "[exercises][diagnosis][lesson03]") {
    const Exercise& e = exercise(3);
    const auto outcomes = answers(e, [](const Case& c) {
        const Tensor3 A = c.inputs.at("encoder_outputs");
        const BahdanauStep right = bahdanau_attention(A, c.inputs.at("decoder_output"), c.inputs.at("W1"), c.inputs.at("b1"),
                                                      c.inputs.at("w2"), c.inputs.at("b2"));
        const BahdanauStep all_one = mistakes::weights_all_one(right, A);
        return by_name(c, {{"concatenated", all_one.concatenated}, {"preactivation", all_one.preactivation},
                           {"hidden", all_one.hidden}, {"scores", all_one.scores}, {"weights", all_one.weights},
                           {"context", all_one.context}});
    });
    REQUIRE(coincides_with_somewhere(e, outcomes, "softmax_over_batch"));
    CHECK(diagnose(e, outcomes).mistake.empty());
    // The seed's reshape is a transpose when S = 1: that case is no evidence, the others are.
    bool reshape_invisible_somewhere = false;
    for (const auto& c : e.cases) {
        reshape_invisible_somewhere = reshape_invisible_somewhere || coincide(c, c.mistakes().at("reshape_not_transpose"), expected_values(c));
    }
    REQUIRE(reshape_invisible_somewhere);
    CHECK(diagnose(e, planted(e, "reshape_not_transpose")).mistake == "reshape_not_transpose");
}

TEST_CASE("exercise 4 - a mask applied after the softmax and renormalised is not named (its weights are right)",
          "[exercises][diagnosis][lesson04]") {
    const Exercise& e = exercise(4);
    // Renormalised, the weights equal the right ones; only masked_scores (the scores unmasked) differ,
    // where the listed mistake "mask after the softmax" has the same values.
    const auto outcomes = answers(e, [](const Case& c) {
        std::vector<DynamicTensor> values = expected_values(c);
        if (c.inputs.at("causal")(0) == 0.0) return values;
        AttentionOptions options;
        options.causal = true;
        const auto right = scaled_dot_product_attention(c.inputs.at("Q"), c.inputs.at("K"), c.inputs.at("V"), options);
        for (std::size_t k = 0; k < c.expected.size(); ++k) {
            if (c.expected[k].name == "masked_scores") values[k] = right.scores;
        }
        return values;
    });
    REQUIRE(failed_cases(outcomes) > 0);
    const Diagnosis diagnosis = diagnose(e, outcomes);
    CHECK(diagnosis.mistake.empty());
    CHECK(diagnosis.failing_step == "masked_scores");
    CHECK_THAT(diagnosis.message, Catch::Contains("The first step that differs is 'masked_scores'"));
}

TEST_CASE("exercise 5 - scores divided by d_k are never named as divided by the square root of D",
          "[exercises][diagnosis][lesson05]") {
    const Exercise& e = exercise(5);
    bool coincides_somewhere = false;
    const auto outcomes = answers(e, [&](const Case& c) {
        if (c.call != "multi_head_attention") return expected_values(c);
        MultiHeadAttentionWeights w = tutor::attention_weights_from(c.inputs, !c.inputs.count("w_o"));
        std::optional<Matrix> mask;
        if (c.inputs.count("attention_mask")) mask = Matrix(c.inputs.at("attention_mask"));
        const std::size_t heads = static_cast<std::size_t>(c.inputs.at("heads")(0));
        AttentionOptions options;
        options.attention_mask = mask;
        const Tensor3 query = c.inputs.at("query"), key = c.inputs.at("key"), value = c.inputs.at("value");
        const auto right = multi_head_attention(query, key, value, w, heads, options);
        const double d_k = double(query.shape(2) / heads);
        const auto by_d_k = mistakes::heads_scaled_by(right, w, mask, 1.0 / d_k);
        const std::vector<DynamicTensor> all = {by_d_k.q, by_d_k.k, by_d_k.v, by_d_k.q_heads, by_d_k.k_heads, by_d_k.v_heads,
                                                by_d_k.scores, by_d_k.weights, by_d_k.context_heads, by_d_k.context, by_d_k.output};
        const std::vector<std::string> names = {"q", "k", "v", "q_heads", "k_heads", "v_heads", "scores", "weights",
                                                "context_heads", "context", "output"};
        std::vector<DynamicTensor> values;
        for (const auto& step : c.expected) {
            values.push_back(all[static_cast<std::size_t>(std::find(names.begin(), names.end(), step.name) - names.begin())]);
        }
        const MistakeTable table = c.mistakes();
        coincides_somewhere = coincides_somewhere || (!coincide(c, values, expected_values(c)) &&
                                                      coincide(c, values, table.at("scaled_by_model_width")));
        return values;
    });
    REQUIRE(coincides_somewhere);  // the worked example: D = 4, h = 2, so √D = d_k = 2
    const Diagnosis diagnosis = diagnose(e, outcomes);
    CHECK(diagnosis.mistake.empty());
    CHECK(diagnosis.failing_step == "scores");
}

TEST_CASE("exercise 6 - the Annotated Transformer's norm and the unbiased variance, equal on one row, are told apart",
          "[exercises][diagnosis][lesson06]") {
    const Exercise& e = exercise(6);
    // On the lesson's row [1, 0, 0, 0] the unbiased std is 0.5 and √(v + eps) ≈ √v + eps: the same numbers.
    require_coincidence_in_some_cases_only(e, "annotated_transformer", "unbiased_variance");
    CHECK(diagnose(e, planted(e, "annotated_transformer")).mistake == "annotated_transformer");
    CHECK(diagnose(e, planted(e, "unbiased_variance")).mistake == "unbiased_variance");
    // The whole-tensor norm is the right one on a single row: it is named from the other cases.
    CHECK(diagnose(e, planted(e, "whole_tensor")).mistake == "whole_tensor");
}

TEST_CASE("exercise 7 - the two causal tile skips, equal in some cases, are told apart", "[exercises][diagnosis][lesson07]") {
    const Exercise& e = exercise(7);
    // With tiles of 2 queries and 3 keys both skip queries 2-3 × keys 3-5; ≥ also skips the last
    // query's own tile where the first-query test does not, and square tiles hide both.
    require_coincidence_in_some_cases_only(e, "tile_skip_off_by_one", "tile_skip_first_query");
    CHECK(diagnose(e, planted(e, "tile_skip_off_by_one")).mistake == "tile_skip_off_by_one");
    CHECK(diagnose(e, planted(e, "tile_skip_first_query")).mistake == "tile_skip_first_query");
    // l rescaled but not the accumulator: a mistake lessons/07-online-softmax's exercise does not
    // list, and no listed one is named.
    const auto outcomes = answers(e, [](const Case& c) {
        const Tensor3 Q = c.inputs.at("Q"), K = c.inputs.at("K"), V = c.inputs.at("V");
        const OnlineSoftmaxOptions options{std::size_t(c.inputs.at("query_tile")(0)), std::size_t(c.inputs.at("key_tile")(0)),
                                           c.inputs.at("causal")(0) != 0.0};
        const OnlineSoftmaxResult right = online_softmax_attention(Q, K, V, options);
        OnlineSoftmaxResult wrong = right;
        for (std::size_t n = 0; n < wrong.trace.size(); ++n) {
            OnlineSoftmaxTile& tile = wrong.trace[n];
            if (tile.first_key != 0) {
                // The tile's own terms added to the accumulator before it, which is not rescaled.
                const Matrix terms = right.trace[n].accumulator - right.trace[n - 1].accumulator *
                                                                      xt::view(tile.rescale, xt::all(), xt::newaxis());
                tile.accumulator = wrong.trace[n - 1].accumulator + terms;
            }
            const bool last = n + 1 == wrong.trace.size() || wrong.trace[n + 1].first_key == 0;
            for (std::size_t i = 0; last && i < tile.query_count; ++i)
                for (std::size_t x = 0; x < tile.accumulator.shape(1); ++x)
                    wrong.output(tile.batch, tile.first_query + i, x) = tile.accumulator(i, x) / tile.running_sum(i);
        }
        std::vector<DynamicTensor> values;
        const TraceGeometry g{Q.shape(0), Q.shape(1), K.shape(1), V.shape(2), options.query_tile, options.key_tile};
        const auto all = step_values(trace_steps(wrong, g));
        for (const auto& step : c.expected) {
            const auto& names = trace_step_names();
            values.push_back(all[std::size_t(std::find(names.begin(), names.end(), step.name) - names.begin())]);
        }
        return values;
    });
    REQUIRE(failed_cases(outcomes) > 0);
    const Diagnosis diagnosis = diagnose(e, outcomes);
    CHECK(diagnosis.mistake.empty());
    CHECK(diagnosis.failing_step == "accumulator");
}

TEST_CASE("a mistake seen in some cases and contradicted by another is not named", "[exercises][diagnosis]") {
    const Exercise& e = exercise(1);
    auto outcomes = planted(e, "softmax_over_batch");
    // The last case where the mistake shows gets the right numbers instead: the evidence disagrees.
    for (std::size_t i = e.cases.size(); i-- > 0;) {
        if (outcomes[i].status != CaseOutcome::Status::failed) continue;
        outcomes[i] = judged(e.cases[i], expected_values(e.cases[i]));
        break;
    }
    const Diagnosis diagnosis = diagnose(e, outcomes);
    CHECK(diagnosis.mistake.empty());
    CHECK_THAT(diagnosis.message, Catch::Contains("No classic mistake explains your numbers in every case"));
}

TEST_CASE("numbers that fit nothing get the first step, case and element that diverge", "[exercises][diagnosis]") {
    const Exercise& e = exercise(1);
    auto outcomes = answers(e, expected_values);
    const std::size_t last = e.cases.size() - 1;
    std::vector<DynamicTensor> values = expected_values(e.cases[last]);
    values[1](1, 2) += 0.25;  // one wrong weight
    outcomes[last] = judged(e.cases[last], values);
    const Diagnosis diagnosis = diagnose(e, outcomes);
    CHECK(diagnosis.mistake.empty());
    CHECK(diagnosis.failing_step == "weights");
    CHECK_THAT(diagnosis.message, Catch::Contains("'weights' in case \"" + e.cases[last].name + "\", first at [1, 2]"));
    // A wrong shape is said as such.
    values = expected_values(e.cases[last]);
    values[0] = xt::zeros<double>({3, 2});
    outcomes[last] = judged(e.cases[last], values);
    CHECK_THAT(diagnose(e, outcomes).message, Catch::Contains("'scores' in case") && Catch::Contains("its shape is (3, 2)"));
}

TEST_CASE("differences within a millionth of the values are called float precision", "[exercises][diagnosis]") {
    const Exercise& e = exercise(4);
    auto nudged = [&](double relative) {
        return answers(e, [&](const Case& c) {
            std::vector<DynamicTensor> values = expected_values(c);
            if (c.tolerance.absolute < 1e-8) {  // the cases compared with the library at 1e-9
                for (auto& v : values)
                    for (double& x : v) x = std::isfinite(x) ? x * (1.0 + relative) : x;
            }
            return values;
        });
    };
    const Diagnosis float_like = diagnose(e, nudged(2e-7));
    CHECK(float_like.float_precision);
    CHECK_THAT(float_like.message, Catch::Contains("float (single) precision") && Catch::Contains("computes in double"));
    const Diagnosis far = diagnose(e, nudged(1e-3));
    CHECK_FALSE(far.float_precision);
    CHECK_THAT(far.message, Catch::Contains("No classic mistake explains"));
}

TEST_CASE("a case without numbers gives no mistake's name", "[exercises][diagnosis]") {
    const Exercise& e = exercise(1);
    auto outcomes = planted(e, "softmax_over_batch");
    outcomes[0] = CaseOutcome{};
    outcomes[0].status = CaseOutcome::Status::threw;
    const Diagnosis diagnosis = diagnose(e, outcomes);
    CHECK(diagnosis.mistake.empty());
    CHECK_FALSE(diagnosis.failing_step.empty());
}

TEST_CASE("every exercise - each step a hint names is a step of the exercise, and in one hint only", "[exercises][hints]") {
    for (const auto& info : tutor::list_exercises(ATTN_SOURCE_DIR)) {
        const auto order = step_order(exercise(info.number));
        for (const std::string& path : {info.hints_path, info.hints_path.substr(0, info.hints_path.size() - 3) + ".es.md"}) {
            INFO(path);
            std::map<std::string, int> hints_naming;
            for (const auto& hint : tutor::read_hints(path)) {
                for (const auto& step : hint.steps) {
                    CHECK(std::find(order.begin(), order.end(), step) != order.end());
                    ++hints_naming[step];
                }
            }
            for (const auto& [step, count] : hints_naming) {
                INFO(step);
                CHECK(count == 1);
            }
        }
    }
}

TEST_CASE("every exercise - the pointer names the earliest failing step over every failing case, not the first case's",
          "[exercises][lesson07]") {
    // lessons/07-online-softmax's exercise: the worked example wrong from running_sum on, every
    // other case wrong from exponentials on: the pointer is exponentials, in a case where it
    // differs.
    const Exercise& e = exercise(7);
    const auto order = step_order(e);
    const auto position = [&](const std::string& step) { return std::find(order.begin(), order.end(), step) - order.begin(); };
    REQUIRE(position("exponentials") < position("running_sum"));
    const auto outcomes = answers(e, [&](const Case& c) {
        std::vector<DynamicTensor> values = expected_values(c);
        const std::string from = &c == &e.cases.front() ? "running_sum" : "exponentials";
        for (std::size_t k = 0; k < c.expected.size(); ++k) {
            if (position(step_key(e, c, c.expected[k].name)) >= position(from)) values[k] = DynamicTensor(values[k] + 1.0);
        }
        return values;
    });
    const Diagnosis d = diagnose(e, outcomes);
    CHECK(d.failing_step == "exponentials");
    CHECK_THAT(d.message, Catch::Contains("The first step that differs is 'exponentials' in case \"") &&
                              !Catch::Contains(e.cases.front().name));
    // lessons/06-encoder-layer's exercise: two functions name a step "output": qualified, each in
    // its own place.
    const Exercise& six = exercise(6);
    const auto six_order = step_order(six);
    CHECK(std::find(six_order.begin(), six_order.end(), "layer_norm.output") != six_order.end());
    CHECK(std::find(six_order.begin(), six_order.end(), "transformer_encoder_layer.output") != six_order.end());
    CHECK(std::find(six_order.begin(), six_order.end(), "output") == six_order.end());
}
