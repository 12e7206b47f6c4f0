// Exercise 4's classic mistakes, as the checker diagnoses them: each one's steps (scores,
// masked_scores, weights, output) computed with the library's deliberately wrong version
// (attn/mistakes.hpp). The mask mistakes are only candidates when the case is causal. Shared by
// check.cpp and tests/test_exercise_diagnosis.cpp.
#pragma once

#include <string>
#include <vector>

#include "attn/mistakes.hpp"
#include "exercise_checker.hpp"

namespace exercise04 {

/// The exercise's steps, in the order the checker compares them.
inline std::vector<std::string> step_names() { return {"scores", "masked_scores", "weights", "output"}; }

inline std::vector<attn::DynamicTensor> values_of(const attn::ScaledDotProductAttentionResult& result) {
    return {result.scores, result.masked_scores, result.weights, result.output};
}

/// The steps of one case: the expected values and the student's.
inline attn::exercises::Steps steps_of(const attn::ScaledDotProductAttentionResult& expected,
                                       const attn::ScaledDotProductAttentionResult& got) {
    const auto names = step_names();
    const auto expected_values = values_of(expected), got_values = values_of(got);
    attn::exercises::Steps steps;
    for (std::size_t i = 0; i < names.size(); ++i) steps.push_back({names[i], expected_values[i], got_values[i]});
    return steps;
}

inline attn::exercises::Mistakes known_mistakes(const attn::Tensor3& Q, const attn::Tensor3& K, const attn::Tensor3& V,
                                                bool causal) {
    using namespace attn::mistakes;
    attn::exercises::Mistakes mistakes;
    mistakes.push_back({"the 1/√d_k scale is missing: the scores are the raw dot products Q Kᵀ, so the softmax is "
                        "sharper than it should be (d_k is Q's last dimension).",
                        values_of(scaled_dot_product_attention_unscaled(Q, K, V, causal))});
    if (causal) {
        mistakes.push_back({"the causal mask is on the wrong triangle: it hides the keys before each query (s < t) "
                            "instead of those after it (s > t).",
                            values_of(causal_attention_mask_on_wrong_triangle(Q, K, V))});
    }
    mistakes.push_back({"the softmax ran over the queries (down each column, dim=1) instead of over the keys (along "
                        "each row, dim=2): each row of weights must sum to 1.",
                        values_of(scaled_dot_product_attention_softmax_over_queries(Q, K, V, causal))});
    if (causal) {
        mistakes.push_back({"the mask was applied after the softmax: multiplying the weights by the 0/1 mask leaves "
                            "rows that no longer sum to 1 — put −∞ in the scores before the softmax instead.",
                            values_of(causal_attention_mask_after_softmax(Q, K, V))});
        mistakes.push_back({"the scores were multiplied by the 0/1 mask instead of getting −∞: a hidden key's score "
                            "becomes 0, and e^0 = 1 still gives it weight.",
                            values_of(causal_attention_scores_multiplied_by_mask(Q, K, V))});
    }
    return mistakes;
}

}  // namespace exercise04
