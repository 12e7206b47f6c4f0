// src/exercises/case_steps.hpp — which steps a case compares, with which expected values.
//
// Why: a random case compares every step of the exercise with the library's values; a document case
// compares only the steps the lesson writes out for that example
// (lessons/04-causal-self-attention's "one" example writes only the weights and the output), with
// the document's values and written digits, never recomputed. A mistake's values (every step) are
// cut down to the same steps with pick().
//
//   const auto names = {"projected", "scores", "weights", "context"};
//   StepSelection steps = document_steps(document, "identity", names);   // scores and context
//   steps.pick(values_of(wrong));                                         // those two of the mistake's
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "attn/multi_head_attention.hpp"
#include "exercise_case.hpp"
#include "tutor/language.hpp"  // tr() and N_() for the cases' names and the mistakes' explanations
#include "tutor/document/lesson_document.hpp"

namespace attn::exercises {

struct StepSelection {
    std::vector<ExpectedStep> expected;
    std::vector<std::size_t> kept;  // indices into the exercise's step names, in order

    /// `all` (one tensor per step of the exercise) cut down to the compared steps.
    std::vector<DynamicTensor> pick(const std::vector<DynamicTensor>& all) const;
};

/// Every step, expected to equal `right` (the library's values).
StepSelection all_steps(const std::vector<std::string>& names, const std::vector<DynamicTensor>& right);

/// The steps of `names` that `example` of the document writes, under `written_names[i]` (the
/// document's name for step i; "" for a step it never writes), expected as written. A block's own
/// atol= and rtol= widen its resolution, as they do in the lesson.
StepSelection document_steps(const tutor::LessonDocument& document, const std::string& example,
                             const std::vector<std::string>& names, const std::vector<std::string>& written_names);

/// The factor that makes a softmax without the maximum subtracted fail on every row of `scores`
/// (along the last axis; −∞ entries are hidden keys, rows with none visible are skipped): after
/// multiplying the scores by it, each row's largest visible score is above 709.8 (e^x = ∞) or, if
/// negative, below −745.2 (every e^x = 0). For the cases "scores in the hundreds", whose inputs
/// are scaled by it where the scores are linear in them. At least 1.
double overflowing_scale(const DynamicTensor& scores);

/// The factor (a power of 2, at least 1) that puts the rows' largest scores 800 apart: the
/// largest row maximum minus the smallest, along the last axis of `scores_with(factor)` (the
/// scores with some of the case's inputs multiplied by it). A softmax that subtracts one maximum
/// for the whole batch instead of each row's then underflows (e^−800 = 0 in double) on the
/// lowest row: 0 / 0. For the cases "rows hundreds apart".
double rows_apart_factor(const std::function<DynamicTensor(double)>& scores_with);

/// Seeded multi-head attention weights of width D, drawn from `draw` in this order: w_q, w_k, w_v
/// (spread 2/√D, which keeps the scores near 1: softmaxes that are not one-hot), b_q, b_k, b_v
/// (spread 0.5), then w_o when `with_w_o` (no_output_projection otherwise) and b_o when both flags
/// are set. For the exercises whose cases run multi-head attention (5, 9).
MultiHeadAttentionWeights random_attention_weights(RandomInputs& draw, std::size_t D, bool with_w_o, bool with_b_o);

/// A seeded random case of the encoder-decoder lessons (1 to 3): B sentences of S source
/// positions of H features; `overflowing`: inputs scaled so that every row's largest score is in
/// the hundreds. The same shapes for the three exercises: a batch of three, a batch of one, a
/// single source position, scores that overflow e^x.
struct EncoderDecoderShape {
    const char* name;
    std::size_t B, S, H;
    unsigned seed;
    bool overflowing;
    bool rows_apart = false;  // the first sentence's scores (or all of them) scaled until the rows' maxima are 800 apart
};
const std::vector<EncoderDecoderShape>& encoder_decoder_shapes();

/// A case: its name, what the student's program runs, its inputs, the compared steps and their
/// tolerance. The caller adds `mistakes`.
Case make_case(std::string name, std::string call, NamedTensors inputs, const StepSelection& steps, tutor::Tolerance tolerance);

/// lessons/01-dot-product's softmax slips, which the later lessons' exercises can make again: one
/// explanation each.
KnownMistake softmax_over_batch_mistake();
/// `remedy`: how to fix it in this exercise ("Subtract each row's maximum before exponentiating").
KnownMistake unshifted_softmax_mistake(const std::string& remedy);

/// `names` with `prefix` in front of each: the document's names for a variant ("prenorm_").
std::vector<std::string> prefixed(const std::string& prefix, const std::vector<std::string>& names);

}  // namespace attn::exercises
