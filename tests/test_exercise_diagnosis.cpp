// The exercise checker's diagnosis (exercises/support/exercise_checker.hpp): for every exercise,
// an implementation with a planted classic mistake — its steps computed by the library's version
// of that mistake — is named correctly; the right answer matches no mistake; and numbers that fit
// no mistake get the first step and element that diverge.
#include <catch2/catch.hpp>
#include <random>

#include "exercise_checker.hpp"
#include "support/tensor_match.hpp"

#include "../exercises/01-dot-product/known_mistakes.hpp"
#include "../exercises/02-luong/known_mistakes.hpp"
#include "../exercises/03-bahdanau/known_mistakes.hpp"
#include "../exercises/04-causal-self-attention/known_mistakes.hpp"
#include "../exercises/05-multi-head-attention/known_mistakes.hpp"
#include "../exercises/06-encoder-layer/known_mistakes.hpp"
#include "document_steps.hpp"

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

namespace {

// Seeded standard normal entries for a tensor of the given shape: the random cases of exercises 2 to 4.
template <class Tensor>
Tensor random_tensor(std::mt19937& generator, const typename Tensor::shape_type& shape, double spread = 1.0) {
    std::normal_distribution<double> normal(0.0, spread);
    Tensor tensor = Tensor::from_shape(shape);
    for (double& x : tensor) x = normal(generator);
    return tensor;
}

}  // namespace

TEST_CASE("exercise 2 - each planted mistake is named", "[exercises][diagnosis]") {
    // Lesson 2's worked example: W_a is not symmetric, so the weight layout shows.
    const Matrix W = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 1}};
    const LuongGeneralStep right = luong_general_attention(A, b, W);
    check_every_mistake_is_named(exercise02::steps_of(right, right), exercise02::known_mistakes(A, b, W));
    // And a random case of the checker's size (B = 3, S = 5, H = 4).
    std::mt19937 generator(7);
    const auto encoder_outputs = random_tensor<Tensor3>(generator, {3, 5, 4});
    const auto decoder_output = random_tensor<Matrix>(generator, {3, 4});
    const auto random_W = random_tensor<Matrix>(generator, {4, 4});
    const LuongGeneralStep random_right = luong_general_attention(encoder_outputs, decoder_output, random_W);
    check_every_mistake_is_named(exercise02::steps_of(random_right, random_right),
                                 exercise02::known_mistakes(encoder_outputs, decoder_output, random_W));
}

TEST_CASE("exercise 3 - each planted mistake is named", "[exercises][diagnosis]") {
    // Lesson 3's worked example.
    const Matrix W1 = {{0.5, 0, 0, -0.1, 0, 0}, {0, 0.2, 0, 0, -0.1, 0}, {0, 0, 0.1, 0, 0, -0.1},
                       {-0.3, 0, 0, 0.1, 0, 0}, {0, 0.1, 0, 0, 0.1, 0},  {0, 0, -0.2, 0, 0, 0.1}};
    const Vector b1 = {0.1, 0, -0.1, 0.2, 0, 0}, b2 = {0.3};
    const Matrix w2 = {{1, -1, 0.5, 1, 0.5, -0.5}};
    const BahdanauStep right = bahdanau_attention(A, b, W1, b1, w2, b2);
    check_every_mistake_is_named(exercise03::steps_of(right, right), exercise03::known_mistakes(A, b, W1, b1, w2, b2));
    std::mt19937 generator(8);
    const auto encoder_outputs = random_tensor<Tensor3>(generator, {3, 5, 4});
    const auto decoder_output = random_tensor<Matrix>(generator, {3, 4});
    const auto random_W1 = random_tensor<Matrix>(generator, {8, 8}, 0.35);
    const auto random_b1 = random_tensor<Vector>(generator, {8}, 0.35);
    const auto random_w2 = random_tensor<Matrix>(generator, {1, 8});
    const auto random_b2 = random_tensor<Vector>(generator, {1});
    const BahdanauStep random_right =
        bahdanau_attention(encoder_outputs, decoder_output, random_W1, random_b1, random_w2, random_b2);
    check_every_mistake_is_named(
        exercise03::steps_of(random_right, random_right),
        exercise03::known_mistakes(encoder_outputs, decoder_output, random_W1, random_b1, random_w2, random_b2));
}

TEST_CASE("exercise 4 - each planted mistake is named with and without the causal mask", "[exercises][diagnosis]") {
    // Lesson 4's worked example, seed 002's queries, keys and values, causal: all five mistakes.
    const Tensor3 Q = {{{0.0, 0.0, 0.0}, {1, 1, 1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}}};
    const Tensor3 K = {{{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}, {0.4, 0.4, 0.4}}};
    const Tensor3 V = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}}};
    AttentionOptions causal;
    causal.causal = true;
    const auto right = scaled_dot_product_attention(Q, K, V, causal);
    const Mistakes causal_mistakes = exercise04::known_mistakes(Q, K, V, true);
    CHECK(causal_mistakes.size() == 5);
    check_every_mistake_is_named(exercise04::steps_of(right, right), causal_mistakes);
    // Random, causal (T = S = 5), then without a mask and T ≠ S: only the scale and the softmax's axis apply.
    std::mt19937 generator(9);
    const auto Qc = random_tensor<Tensor3>(generator, {3, 5, 4}), Kc = random_tensor<Tensor3>(generator, {3, 5, 4}),
               Vc = random_tensor<Tensor3>(generator, {3, 5, 3});
    const auto causal_right = scaled_dot_product_attention(Qc, Kc, Vc, causal);
    check_every_mistake_is_named(exercise04::steps_of(causal_right, causal_right), exercise04::known_mistakes(Qc, Kc, Vc, true));
    const auto Qn = random_tensor<Tensor3>(generator, {2, 3, 4}), Kn = random_tensor<Tensor3>(generator, {2, 5, 4}),
               Vn = random_tensor<Tensor3>(generator, {2, 5, 2});
    const auto unmasked_right = scaled_dot_product_attention(Qn, Kn, Vn);
    const Mistakes unmasked_mistakes = exercise04::known_mistakes(Qn, Kn, Vn, false);
    CHECK(unmasked_mistakes.size() == 2);
    check_every_mistake_is_named(exercise04::steps_of(unmasked_right, unmasked_right), unmasked_mistakes);
}

namespace exercises56 {

// A document case of the checker: only the steps the document writes are compared (document_steps
// says which), so each mistake is cut down to those steps too. `right` holds every step's right value.
struct WrittenCase {
    Steps correct;
    Mistakes mistakes;
};

WrittenCase written_case(const tutor::LessonDocument& document, const std::string& example,
                         const std::vector<std::string>& written_names, const std::vector<DynamicTensor>& right,
                         const Mistakes& all) {
    const DocumentSteps written = document_steps(document, example, written_names, right);
    WrittenCase c;
    for (std::size_t index : written.kept) c.correct.push_back({written_names[index], right[index], right[index]});
    c.mistakes = written.mistakes(all);
    return c;
}

std::vector<std::string> prefixed(const std::string& prefix, const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& name : names) out.push_back(prefix + name);
    return out;
}

}  // namespace exercises56

TEST_CASE("exercise 5 - each planted mistake is named in every case of the checker", "[exercises][diagnosis]") {
    using namespace exercise05;
    using exercises56::written_case;
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/05-multi-head-attention/README.md");
    const Inputs example = worked_example(document);
    const MultiHeadAttentionResult right = library_result(example);

    // split_heads and merge_heads: on the worked example's q and context_heads, then at random.
    const auto split_merge = written_case(document, "main", {"q_heads", "context"}, {right.q_heads, right.context},
                                          known_split_merge_mistakes(right.q, example.heads, right.context_heads));
    CHECK(split_merge.correct.size() == 2);
    check_every_mistake_is_named(split_merge.correct, split_merge.mistakes);
    const auto random_tensors = random_split_merge_inputs();
    const Tensor4 split = split_heads(random_tensors.first, 3);
    const Tensor3 merged = merge_heads(random_tensors.second);
    check_every_mistake_is_named({{"split_heads", split, split}, {"merge_heads", merged, merged}},
                                 known_split_merge_mistakes(random_tensors.first, 3, random_tensors.second));

    // multi_head_attention: the worked example (every step written; no mask, so 6 mistakes), the
    // padded batch (weights and output written; all 8), and the random cases.
    const auto worked = written_case(document, "main", step_names(), values_of(right), known_mistakes(example));
    CHECK(worked.correct.size() == 11);
    CHECK(worked.mistakes.size() == 6);
    check_every_mistake_is_named(worked.correct, worked.mistakes);
    const Inputs batch = padded_batch(document);
    const auto padded = written_case(document, "main", exercises56::prefixed("batch_", step_names()),
                                     values_of(library_result(batch)), known_mistakes(batch));
    CHECK(padded.correct.size() == 2);
    CHECK(padded.mistakes.size() == 8);
    check_every_mistake_is_named(padded.correct, padded.mistakes);
    for (const auto& random : random_cases()) {
        INFO(random.name);
        const MultiHeadAttentionResult random_right = library_result(random.inputs);
        check_every_mistake_is_named(steps_of(random_right, random_right), known_mistakes(random.inputs));
    }
}

TEST_CASE("exercise 6 - each planted mistake is named in every case of the checker", "[exercises][diagnosis]") {
    using namespace exercise06;
    using exercises56::written_case;
    const auto document = tutor::read_lesson_document(ATTN_SOURCE_DIR "/lessons/06-encoder-layer/README.md");

    // layer_norm: the lesson's rows 0 … 9 (mean, variance and output written), then the random rows.
    const LayerNormInputs rows = layer_norm_example(document, "layer_norm");
    const auto rows_case = written_case(document, "layer_norm", {"mean", "variance", "", "pytorch"},
                                        values_of(attn::layer_norm(rows.x, rows.weight, rows.bias, rows.eps)),
                                        known_layer_norm_mistakes(rows));
    CHECK(rows_case.correct.size() == 3);
    check_every_mistake_is_named(rows_case.correct, rows_case.mistakes);
    for (const auto& random : random_layer_norm_cases()) {
        INFO(random.name);
        const LayerNormInputs& in = random.inputs;
        const LayerNormStep random_right = attn::layer_norm(in.x, in.weight, in.bias, in.eps);
        check_every_mistake_is_named(steps_of(random_right, random_right), known_layer_norm_mistakes(in));
    }
    // Why the lesson's row [1, 0, 0, 0] is not a case: its unbiased std is 0.5, where √(v + eps)
    // and √v + eps agree to 1e-10, so two of the mistakes give the same numbers there.
    const LayerNormInputs one_hot = layer_norm_example(document, "one_hot");
    CHECK(attn::tutor::compare(
              attn::mistakes::layer_norm_unbiased_variance(one_hot.x, one_hot.weight, one_hot.bias).output,
              attn::mistakes::layer_norm_annotated_transformer(one_hot.x, one_hot.weight, one_hot.bias).output, {1e-9, 1e-9})
              .passed);

    // The encoder layer: the worked layer post-norm, pre-norm and with GELU (the steps each writes),
    // then the random layers.
    const LayerInputs post_norm = layer_worked_example(document);
    LayerInputs pre_norm = post_norm, with_gelu = post_norm;
    pre_norm.options.norm_first = true;
    with_gelu.options.activation = Activation::gelu;
    const std::vector<std::pair<std::string, const LayerInputs*>> written = {
        {"", &post_norm}, {"prenorm_", &pre_norm}, {"gelu_", &with_gelu}};
    const std::vector<std::size_t> written_counts = {8, 4, 1};
    for (std::size_t i = 0; i < written.size(); ++i) {
        const auto& [prefix, in] = written[i];
        INFO("the document's " << prefix << "steps");
        const auto layer_case = written_case(document, "main", exercises56::prefixed(prefix, layer_step_names()),
                                             values_of(attn::transformer_encoder_layer(in->x, in->weights, in->options)),
                                             known_layer_mistakes(*in));
        CHECK(layer_case.correct.size() == written_counts[i]);
        CHECK(layer_case.mistakes.size() == 5);
        check_every_mistake_is_named(layer_case.correct, layer_case.mistakes);
    }
    for (const auto& random : random_layer_cases()) {
        INFO(random.name);
        const LayerInputs& in = random.inputs;
        const EncoderLayerStep random_right = attn::transformer_encoder_layer(in.x, in.weights, in.options);
        check_every_mistake_is_named(steps_of(random_right, random_right), known_layer_mistakes(in));
    }
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
