// Exercise 4's cases: exercise::scaled_dot_product_attention on the lesson's worked examples (seed
// 002's causal example, a sequence of one, two queries over four keys, the saturation example
// without a mask) and on seeded inputs compared with the library — causal or not, T ≠ S, a batch
// of one, and scores in the hundreds.
#include "04-causal-self-attention/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const std::vector<std::string> step_names = {"scores", "masked_scores", "weights", "output"};

std::vector<DynamicTensor> values_of(const ScaledDotProductAttentionResult& r) {
    return {r.scores, r.masked_scores, r.weights, r.output};
}

ScaledDotProductAttentionResult right_of(const Tensor3& Q, const Tensor3& K, const Tensor3& V, bool causal) {
    AttentionOptions options;
    options.causal = causal;
    return scaled_dot_product_attention(Q, K, V, options);
}

Case exercise_case(std::string name, const Tensor3& Q, const Tensor3& K, const Tensor3& V, bool causal,
                   const ScaledDotProductAttentionResult& right, const StepSelection& steps, tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "scaled_dot_product_attention",
                       {{"Q", Q}, {"K", K}, {"V", V}, {"causal", number(causal ? 1.0 : 0.0)}}, steps, tolerance);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        MistakeTable table{{"unscaled", steps.pick(values_of(attention_unscaled(Q, K, V, causal)))},
                           {"softmax_over_queries", steps.pick(values_of(softmax_over_queries(right, V)))},
                           {"unshifted_softmax", steps.pick(values_of(attention_unshifted_softmax(right, V)))}};
        if (causal) {
            // Mask mistakes exist only where there is a mask: without one, the same code is right.
            table["mask_on_wrong_triangle"] = steps.pick(values_of(causal_mask_on_wrong_triangle(right, V)));
            table["mask_after_softmax"] = steps.pick(values_of(causal_mask_after_softmax(right, V)));
            table["scores_multiplied_by_mask"] = steps.pick(values_of(causal_scores_multiplied_by_mask(right, V)));
        }
        return table;
    };
    return c;
}

// One example of the document; `q`, `k`, `v` name its inputs (the saturation example has no
// values: its keys stand in for them, as in the lesson, since only its weights are written).
// `suffix` ends the names the document writes the steps under: the KV-cache example writes each
// step for both alignments, and the exercise's causal mask is the top-left one ("_top_left").
Case document_case(const tutor::LessonDocument& document, std::string name, const std::string& example, bool causal,
                   const std::string& suffix = "", const char* q = "Q", const char* k = "K", const char* v = "V") {
    const auto inputs = document.inputs(example);
    const Tensor3 Q = inputs.at(q), K = inputs.at(k), V = inputs.at(v);
    std::vector<std::string> written_names;
    for (const auto& step : step_names) written_names.push_back(step + suffix);
    return exercise_case(std::move(name), Q, K, V, causal, right_of(Q, K, V, causal),
                         document_steps(document, example, step_names, written_names), {1e-6, 1e-6});
}

// `overflowing`: the queries scaled until every row's largest visible score is in the hundreds;
// `rows_apart`: the first sentence's queries scaled until the rows' maxima lie 800 apart.
Case random_case(std::string name, std::size_t B, std::size_t T, std::size_t S, std::size_t d_k, std::size_t d_v, bool causal,
                 unsigned seed, bool overflowing = false, bool rows_apart = false) {
    RandomInputs draw(seed);
    Tensor3 Q = draw.normal<Tensor3>({B, T, d_k});
    const Tensor3 K = draw.normal<Tensor3>({B, S, d_k}), V = draw.normal<Tensor3>({B, S, d_v});
    if (overflowing) Q *= overflowing_scale(right_of(Q, K, V, causal).masked_scores);
    if (rows_apart) {
        auto first_scaled = [&](double factor) {
            Tensor3 scaled = Q;
            for (std::size_t i = 0; i < T * d_k; ++i) scaled.data()[i] *= factor;  // sentence 0 comes first in memory
            return scaled;
        };
        Q = first_scaled(rows_apart_factor([&](double f) { return DynamicTensor(right_of(first_scaled(f), K, V, causal).masked_scores); }));
    }
    const ScaledDotProductAttentionResult right = right_of(Q, K, V, causal);
    return exercise_case(std::move(name), Q, K, V, causal, right, all_steps(step_names, values_of(right)), {1e-9, 1e-9});
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("causal scaled dot-product self-attention");
    e.practised = "attn::scaled_dot_product_attention";
    e.mistakes = {
        {"unscaled", tutor::tr("the 1/√d_k scale is missing: the scores are the raw dot products Q Kᵀ, so the softmax is sharper "
                     "than it should be (d_k is Q's last dimension).")},
        {"mask_on_wrong_triangle", tutor::tr("the causal mask is on the wrong triangle: it hides the keys before each query (s < t) "
                                   "instead of those after it (s > t).")},
        {"softmax_over_queries", tutor::tr("the softmax ran over the queries (down each column, dim=1) instead of over the keys "
                                 "(along each row, dim=2): each row of weights must sum to 1.")},
        {"mask_after_softmax", tutor::tr("the mask was applied after the softmax: multiplying the weights by the 0/1 mask leaves "
                               "rows that no longer sum to 1 — put −∞ in the scores before the softmax instead.")},
        {"scores_multiplied_by_mask", tutor::tr("the scores were multiplied by the 0/1 mask instead of getting −∞: a hidden key's "
                                      "score becomes 0, and e^0 = 1 still gives it weight.")},
        unshifted_softmax_mistake(tutor::tr("Subtract each row's maximum (of the keys it may see) before exponentiating; it "
                                  "changes nothing else.")),
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    e.cases = {
        document_case(document, tutor::tr("the lesson's worked example, causal (expected values from the lesson document)"), "main", true),
        document_case(document, tutor::tr("a sequence of one, causal (the lesson's example \"one\")"), "one", true),
        document_case(document, tutor::tr("two queries over four keys, causal top-left (the lesson's example \"kv_cache\")"),
                      "kv_cache", true, "_top_left"),
        document_case(document, tutor::tr("one query, four keys of width 16, no mask (the lesson's saturation example: weights only)"),
                      "saturation", false, "", "q", "k", "k"),
        random_case(tutor::tr("random inputs, causal, B = 3, T = S = 5, d_k = 4, d_v = 3 (compared with the library)"), 3, 5, 5, 4, 3, true, 1),
        random_case(tutor::tr("random inputs, no mask, B = 2, T = 3 queries over S = 5 keys, d_k = 4, d_v = 2"), 2, 3, 5, 4, 2, false, 2),
        random_case(tutor::tr("a batch of one, causal, B = 1, T = S = 4, d_k = 8, d_v = 3"), 1, 4, 4, 8, 3, true, 3),
        random_case(tutor::tr("scores in the hundreds, causal, B = 2, T = S = 4, d_k = 4, d_v = 2 (e^score overflows without the "
                    "maximum subtracted)"), 2, 4, 4, 4, 2, true, 4, true),
        random_case(tutor::tr("rows hundreds apart, causal, B = 2, T = S = 4, d_k = 4, d_v = 2 (one maximum for the whole batch "
                              "underflows on the lower rows)"),
                    2, 4, 4, 4, 2, true, 5, false, true),
    };
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
