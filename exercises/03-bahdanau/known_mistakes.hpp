// Exercise 3's classic mistakes, as the checker diagnoses them: each one's steps (concatenated,
// preactivation, hidden, scores, weights, context) computed with the library's deliberately
// wrong version (attn/mistakes.hpp). Shared by check.cpp and tests/test_exercise_diagnosis.cpp.
#pragma once

#include <string>
#include <vector>

#include "attn/mistakes.hpp"
#include "exercise_checker.hpp"

namespace exercise03 {

/// The exercise's steps, in the order the checker compares them.
inline std::vector<std::string> step_names() {
    return {"concatenated", "preactivation", "hidden", "scores", "weights", "context"};
}

inline std::vector<attn::DynamicTensor> values_of(const attn::BahdanauStep& step) {
    return {step.concatenated, step.preactivation, step.hidden, step.scores, step.weights, step.context};
}

/// The steps of one case: the expected values and the student's.
inline attn::exercises::Steps steps_of(const attn::BahdanauStep& expected, const attn::BahdanauStep& got) {
    const auto names = step_names();
    const auto expected_values = values_of(expected), got_values = values_of(got);
    attn::exercises::Steps steps;
    for (std::size_t i = 0; i < names.size(); ++i) steps.push_back({names[i], expected_values[i], got_values[i]});
    return steps;
}

inline attn::exercises::Mistakes known_mistakes(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output,
                                                const attn::Matrix& W1, const attn::Vector& b1, const attn::Matrix& w2,
                                                const attn::Vector& b2) {
    using namespace attn::mistakes;
    return {{"the concatenation is in the wrong order: h = [h_t ; h̄_s] instead of [h̄_s ; h_t], so W1's first H "
             "columns meet the decoder state instead of the encoder output.",
             values_of(bahdanau_attention_concatenation_swapped(encoder_outputs, decoder_output, W1, b1, w2, b2))},
            {"h was reshaped to (2H, S) instead of transposed (the seed's first BaAttention): each column fed to W1 "
             "mixes numbers of several positions and of h_t — take concatenated(b, s, ·) for position s.",
             values_of(bahdanau_attention_reshape_not_transpose(encoder_outputs, decoder_output, W1, b1, w2, b2))},
            {"the softmax ran over the batch axis (dim=0) instead of over the source positions (dim=1): "
             "each row of weights must sum to 1.",
             values_of(bahdanau_attention_softmax_over_batch(encoder_outputs, decoder_output, W1, b1, w2, b2))}};
}

}  // namespace exercise03
