// Exercise 1's classic mistakes, as the checker diagnoses them: each one's steps (scores,
// weights, context) computed with the library's deliberately wrong version (attn/mistakes.hpp).
// Shared by check.cpp and tests/test_exercise_diagnosis.cpp.
#pragma once

#include "attn/mistakes.hpp"
#include "exercise_checker.hpp"

namespace exercise01 {

inline std::vector<attn::DynamicTensor> values_of(const attn::AttentionStep& step) {
    return {step.scores, step.weights, step.context};
}

/// The steps of one case, in the order the checker compares them.
inline attn::exercises::Steps steps_of(const attn::AttentionStep& expected, const attn::AttentionStep& got) {
    return {{"scores", expected.scores, got.scores}, {"weights", expected.weights, got.weights}, {"context", expected.context, got.context}};
}

inline attn::exercises::Mistakes known_mistakes(const attn::Tensor3& encoder_outputs, const attn::Matrix& decoder_output) {
    using namespace attn::mistakes;
    return {{"the softmax ran over the batch axis (dim=0) instead of over the source positions (dim=1): "
             "each row of weights must sum to 1.",
             values_of(dot_attention_softmax_over_batch(encoder_outputs, decoder_output))},
            {"the raw scores were used as weights: the softmax step is missing.",
             values_of(dot_attention_without_softmax(encoder_outputs, decoder_output))}};
}

}  // namespace exercise01
