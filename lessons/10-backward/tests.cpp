// This lesson's own tests: its finite differences agree with the library's backward to a relative
// 1e-7, the tiled (FlashAttention) backward equals the plain one, and a fully hidden query gets
// exact zeros, never NaN; and its program on hostile documents, through the real
// `attn check --lessons-dir`: exit 2 naming the input. The multi-head layer's backward, chained
// step by step from the library's pieces, equals the library's one-call backward.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "attn/multi_head_attention.hpp"
#include "attn/multi_head_attention_backward.hpp"
#include "support/hostile_checks.hpp"
#include "support/run_command.hpp"
#include "support/lesson_runs.hpp"
#include "support/lesson_test_case.hpp"

namespace {

using attn::testing::computed;

std::string values_of(const attn::DynamicTensor& tensor) {
    std::ostringstream text;
    text.precision(17);
    for (std::size_t i = 0; i < tensor.size(); ++i) text << (i ? ", " : "") << tensor.data()[i];
    return "[" + text.str() + "]";
}

// max |got − expected| / max |expected|, printed with both tensors' values on failure.
void check_relative(const attn::DynamicTensor& expected, const attn::DynamicTensor& got, double limit) {
    REQUIRE(expected.shape() == got.shape());
    double largest = 0.0, difference = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        largest = std::max(largest, std::abs(expected.data()[i]));
        difference = std::max(difference, std::abs(got.data()[i] - expected.data()[i]));
    }
    INFO("expected " << values_of(expected) << "\ngot " << values_of(got) << "\nmax difference " << difference);
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

ATTN_LESSON_TEST_CASE("the layer's backward chained step by step equals the library's one call", "[lesson05]") {
    const auto run = attn::testing::run_this_lesson();
    const auto inputs = run.document.inputs("layer");
    const auto matrix = [&](const char* name) { return attn::Matrix(inputs.at(name)); };
    const auto vector = [&](const char* name) {
        const attn::DynamicTensor values = inputs.at(name);
        attn::Vector result = attn::Vector::from_shape({values.size()});
        std::copy(values.begin(), values.end(), result.begin());
        return result;
    };
    attn::MultiHeadAttentionWeights w;
    w.w_q = matrix("w_q"), w.w_k = matrix("w_k"), w.w_v = matrix("w_v"), w.w_o = matrix("w_o");
    w.b_q = vector("b_q"), w.b_k = vector("b_k"), w.b_v = vector("b_v"), w.b_o = vector("b_o");
    const attn::Tensor3 x = inputs.at("x"), doutput = inputs.at("doutput");
    const std::size_t heads = std::size_t(inputs.at("heads")(0));
    const auto forward = attn::multi_head_attention(x, x, x, w, heads);
    const auto grad = attn::multi_head_attention_backward(x, x, x, w, heads, forward, doutput);
    const std::pair<std::string, attn::DynamicTensor> expected[] = {
        {"dx", attn::Tensor3(grad.query + grad.key + grad.value)},
        {"dW_q", grad.weights.w_q}, {"dW_k", grad.weights.w_k}, {"dW_v", grad.weights.w_v}, {"dW_o", *grad.weights.w_o},
        {"db_q", grad.weights.b_q}, {"db_v", grad.weights.b_v}, {"db_o", *grad.weights.b_o}};
    for (const auto& [name, values] : expected) {
        INFO("gradient " << name);
        check_relative(values, computed(run, "layer", name), 1e-13);
    }
    // b_k's gradient is zero in exact arithmetic (the softmax ignores a shift of a whole row):
    // both sides hold rounding noise only.
    const attn::DynamicTensor db_k = computed(run, "layer", "db_k");
    for (std::size_t i = 0; i < db_k.size(); ++i) CHECK(std::abs(db_k(i)) < 1e-14);
}

ATTN_LESSON_TEST_CASE("the layer's finite differences are measured, and within 1e-7 of the backward", "[lesson05]") {
    const auto run = attn::testing::run_this_lesson();
    const attn::DynamicTensor errors = computed(run, "layer", "fd_relative_error");
    REQUIRE(errors.size() == 9);  // x and the eight parameters
    INFO("errors " << values_of(errors));
    // Measured, not written: rounding leaves a trace on the weights' gradients (exactly 0 would
    // mean no difference was taken), and none reaches 1e-7.
    CHECK(*std::max_element(errors.begin(), errors.end()) > 0.0);
    for (const double error : errors) CHECK(error < 1e-7);
}

namespace {

using attn::testing::TempDir;
using attn::testing::document_with_inputs;
using attn::testing::expect_check_refused;

}  // namespace

ATTN_LESSON_TEST_CASE("hostile - weights that are not positive, rows of different lengths", "[cli][hostile]") {
    for (const std::string p : {"[[0.5, 0, 0.5]]", "[[0.5, -1, 0.5]]", "[[-0.5, 1, 0.5]]"}) {
        INFO("p " << p);
        expect_check_refused(document_with_inputs("softmax", {{"p", p}, {"dp", "[[1, 0, 0]]"}}),
                             {"input 'p' must hold positive finite weights"});
    }
    // ±∞ and NaN are refused earlier, by the document's reader, with the file and line.
    expect_check_refused(document_with_inputs("softmax", {{"p", "[[0.5, inf, 0.5]]"}, {"dp", "[[1, 0, 0]]"}}),
                         {"README.md:5", "input 'p' holds inf"});
    expect_check_refused(document_with_inputs("softmax", {{"p", "[[0.5, 0.5]]"}, {"dp", "[[1, 0, 0]]"}}),
                         {"inputs 'p' and 'dp' must both be one row"});
}

ATTN_LESSON_TEST_CASE("hostile - attention inputs of the wrong shapes, a mask in the tiled example", "[cli][hostile]") {
    const std::string Q = "[[[1, 0], [0, 1]]]", K = "[[[1, 0], [0, 1], [1, 1]]]", V = "[[[1], [2], [3]]]";
    expect_check_refused(document_with_inputs("main", {{"Q", Q}, {"K", K}, {"V", V}, {"dO", "[[[1, 0], [0, 1]]]"}}),
                         {"grad_output", "(1, 2, 2)"});
    expect_check_refused(document_with_inputs("tiled", {{"Q", Q}, {"K", K}, {"V", V}, {"dO", "[[[1], [0]]]"},
                                                 {"attention_mask", "[[1, 1, 0]]"}, {"query_tile", "[1]"}, {"key_tile", "[2]"}}),
                         {"example 'tiled' takes no attention_mask"});
    expect_check_refused(document_with_inputs("tiled", {{"Q", Q}, {"K", K}, {"V", V}, {"dO", "[[[1], [0]]]"},
                                                 {"query_tile", "[0]"}, {"key_tile", "[2]"}}),
                         {"query_tile"});
}

ATTN_LESSON_TEST_CASE("hostile - an example too large for the finite differences is refused, not run for hours",
                      "[cli][hostile]") {
    // 400 queries and keys of width 2: 2 · 2400 entries moved, each costing a forward of 400 × 400 × 4.
    std::string rows;
    for (int i = 0; i < 400; ++i) rows += std::string(i ? ", " : "") + "[1, 0]";
    const std::string tensor = "[[" + rows + "]]";
    expect_check_refused(document_with_inputs("main", {{"Q", tensor}, {"K", tensor}, {"V", tensor}, {"dO", tensor}}),
                         {"Q (1, 400, 2), K (1, 400, 2) and V (1, 400, 2) are too large for the finite-difference check"});
}

ATTN_LESSON_TEST_CASE("hostile - a layer whose heads, doutput or size do not fit", "[cli][hostile]") {
    const std::string identity = "[[1, 0], [0, 1]]", zeros = "[0, 0]";
    std::vector<std::pair<std::string, std::string>> layer = {
        {"x", "[[[1, 0], [0, 1]]]"}, {"doutput", "[[[1, 0], [0, 1]]]"}, {"heads", "[2]"}};
    for (const char* name : {"w_q", "w_k", "w_v", "w_o"}) layer.push_back({name, identity});
    for (const char* name : {"b_q", "b_k", "b_v", "b_o"}) layer.push_back({name, zeros});
    auto with = [&](const std::string& name, const std::string& values) {
        auto changed = layer;
        for (auto& [input, text] : changed)
            if (input == name) text = values;
        return document_with_inputs("layer", changed);
    };
    expect_check_refused(with("heads", "[3]"), {"heads"});
    expect_check_refused(with("heads", "[0]"), {"heads"});
    expect_check_refused(with("doutput", "[[[1, 0, 0], [0, 1, 0]]]"), {"grad_output", "(1, 2, 3)"});
    expect_check_refused(with("w_k", "[[1, 0]]"), {"w_k", "(1, 2)"});
    {  // doutput all zeros: every gradient is zero, and the errors are measured, not 0 / 0 = NaN
        TempDir dir;
        const std::string document = with("doutput", "[[[0, 0], [0, 0]]]") +
                                     "```attn expect fd_relative_error example=layer atol=1e-7\n"
                                     "tensor([0., 0., 0., 0., 0., 0., 0., 0., 0.])\n```\n";
        const auto result = attn::testing::run_attn(
            {"--lessons-dir", attn::testing::this_lesson_with_document(dir, document), "check", attn::testing::this_lesson_number()});
        INFO(result.out << result.err);
        CHECK(result.exit_code == 0);
        CHECK(result.out.find("1 passed, 0 failed") != std::string::npos);
    }
    // 600 positions of width 2: 2 · 1224 numbers moved, each costing a forward of 600 × 600 × 2 and more.
    std::string rows;
    for (int i = 0; i < 600; ++i) rows += std::string(i ? ", " : "") + "[1, 0]";
    auto large = layer;
    large[0].second = large[1].second = "[[" + rows + "]]";
    expect_check_refused(document_with_inputs("layer", large),
                         {"x (1, 600, 2) and the (D, D) weights are too large for the finite-difference check"});
}
