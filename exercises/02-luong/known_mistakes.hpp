// Exercise 2's classic mistakes, as the checker diagnoses them: each one's steps (projected,
// scores, weights, context) computed with the library's deliberately wrong version
// (attn/mistakes.hpp). Shared by check.cpp and tests/test_exercise_diagnosis.cpp.
#pragma once

#include <string>
#include <vector>

#include "attn/mistakes.hpp"
#include "exercise_checker.hpp"

namespace exercise02 {

/// The exercise's steps, in the order the checker compares them.
inline std::vector<std::string> step_names() { return {"projected", "scores", "weights", "context"}; }

inline std::vector<attn::DynamicTensor> values_of(const attn::LuongGeneralStep& step) {
    return {step.projected, step.scores, step.weights, step.context};
}

/// The steps of one case: the expected values and the student's.
inline attn::exercises::Steps steps_of(const attn::LuongGeneralStep& expected, const attn::LuongGeneralStep& got) {
    const auto names = step_names();
    const auto expected_values = values_of(expected), got_values = values_of(got);
    attn::exercises::Steps steps;
    for (std::size_t i = 0; i < names.size(); ++i) steps.push_back({names[i], expected_values[i], got_values[i]});
    return steps;
}

inline attn::exercises::Mistakes known_mistakes(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                                const attn::Matrix& W_a) {
    using namespace attn::mistakes;
    return {{"W where Wᵀ was meant: encoder_outputs @ W_a computes h̄_sᵀ W_a h_t (the seed's first LuAttention), "
             "but W_a is stored as nn.Linear stores it, so projected[i] = Σ_j W_a[i, j] · h̄_s[j] (row i of W_a).",
             values_of(luong_general_attention_weight_transposed(encoder_outputs, decoder_output, W_a))},
            {"the softmax ran over the batch axis (dim=0) instead of over the source positions (dim=1): "
             "each row of weights must sum to 1.",
             values_of(luong_general_attention_softmax_over_batch(encoder_outputs, decoder_output, W_a))},
            {"the context averaged the projected encoder outputs W_a h̄_s instead of the original h̄_s: W_a only "
             "changes how the positions are scored.",
             values_of(luong_general_attention_context_of_projected(encoder_outputs, decoder_output, W_a))}};
}

}  // namespace exercise02
