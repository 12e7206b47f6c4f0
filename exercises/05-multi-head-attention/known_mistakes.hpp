// Exercise 5's classic mistakes, as the checker diagnoses them: each one's steps computed with the
// library's deliberately wrong version (attn/mistakes.hpp). The mask mistakes are candidates only
// when the case has a padding mask, the missing output projection only when it has a W_o. Also
// the exercise's cases (the lesson's examples and the seeded random ones), so that
// tests/test_exercise_diagnosis.cpp plants every mistake in exactly the cases the checker runs.
// Shared by check.cpp and tests/test_exercise_diagnosis.cpp.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attn/mistakes.hpp"
#include "exercise_checker.hpp"
#include "tutor/lesson_document.hpp"

namespace exercise05 {

// ---------------------------------------------------------------------------------------------
// split_heads and merge_heads on their own

/// The two steps of a split/merge case: split_heads(x, h) and merge_heads(y).
inline std::vector<std::string> split_merge_step_names() { return {"split_heads", "merge_heads"}; }

inline attn::exercises::Mistakes known_split_merge_mistakes(const attn::Tensor3& x, std::size_t heads, const attn::Tensor4& y) {
    return {{"a reshape where a transpose was meant: split_heads views (B, T, D) as (B, T, h, d_k) and then swaps the "
             "T and h axes (transpose(1, 2)), and merge_heads swaps them back before viewing the result as (B, T, D); "
             "copied in memory order, each head gets whole positions instead of d_k features of every position.",
             {attn::mistakes::split_heads_by_reshape(x, heads), attn::mistakes::merge_heads_by_reshape(y)}}};
}

// ---------------------------------------------------------------------------------------------
// multi_head_attention

/// One call's arguments.
struct Inputs {
    attn::Tensor3 query, key, value;
    attn::MultiHeadAttentionWeights weights;
    std::size_t heads = 1;
    std::optional<attn::Matrix> attention_mask;
};

/// The steps of multi_head_attention, in the order the checker compares them.
inline std::vector<std::string> step_names() {
    return {"q", "k", "v", "q_heads", "k_heads", "v_heads", "scores", "weights", "context_heads", "context", "output"};
}

inline std::vector<attn::DynamicTensor> values_of(const attn::MultiHeadAttentionResult& r) {
    return {r.q, r.k, r.v, r.q_heads, r.k_heads, r.v_heads, r.scores, r.weights, r.context_heads, r.context, r.output};
}

/// The steps of one case: the expected values and the student's.
inline attn::exercises::Steps steps_of(const attn::MultiHeadAttentionResult& expected,
                                       const attn::MultiHeadAttentionResult& got) {
    const auto names = step_names();
    const auto expected_values = values_of(expected), got_values = values_of(got);
    attn::exercises::Steps steps;
    for (std::size_t i = 0; i < names.size(); ++i) steps.push_back({names[i], expected_values[i], got_values[i]});
    return steps;
}

/// The right result, from the library.
inline attn::MultiHeadAttentionResult library_result(const Inputs& in) {
    attn::AttentionOptions options;
    options.attention_mask = in.attention_mask;
    return attn::multi_head_attention(in.query, in.key, in.value, in.weights, in.heads, options);
}

inline attn::exercises::Mistakes known_mistakes(const Inputs& in) {
    using namespace attn::mistakes;
    const auto& [query, key, value, weights, heads, mask] = in;
    attn::exercises::Mistakes mistakes;
    mistakes.push_back({"split_heads and merge_heads used a reshape where a transpose was meant: view (B, T, D) as "
                        "(B, T, h, d_k), then swap the T and h axes (transpose(1, 2)), and swap them back before "
                        "merging; copied in memory order, each head gets whole positions instead of d_k features of "
                        "every position.",
                        values_of(multi_head_attention_split_and_merge_by_reshape(query, key, value, weights, heads, mask))});
    mistakes.push_back({"split_heads used a reshape where a transpose was meant: view (B, T, D) as (B, T, h, d_k), then "
                        "swap the T and h axes (transpose(1, 2)); copied in memory order, each head gets whole "
                        "positions instead of d_k features of every position.",
                        values_of(multi_head_attention_split_by_reshape(query, key, value, weights, heads, mask))});
    mistakes.push_back({"merge_heads used a reshape where a transpose was meant: swap the h and T axes back "
                        "(transpose(1, 2)) before viewing the heads as (B, T, D); copied in memory order, row t of "
                        "the context holds other positions' numbers.",
                        values_of(multi_head_attention_merge_by_reshape(query, key, value, weights, heads, mask))});
    mistakes.push_back({"the 1/√d_k scale is missing: each head's scores are the raw dot products q_j k_jᵀ, so every "
                        "softmax is too sharp.",
                        values_of(multi_head_attention_unscaled(query, key, value, weights, heads, mask))});
    mistakes.push_back({"the scores were divided by √D instead of √d_k: d_k = D / h is the width of one head, not of "
                        "the model.",
                        values_of(multi_head_attention_scaled_by_model_width(query, key, value, weights, heads, mask))});
    if (mask) {
        mistakes.push_back({"the padding mask is inverted: attention_mask is 1 for a real token (attend to it) and 0 "
                            "for padding (hide it) — the opposite of PyTorch's key_padding_mask, where True means "
                            "ignore.",
                            values_of(multi_head_attention_mask_inverted(query, key, value, weights, heads, *mask))});
        mistakes.push_back({"the padding mask was applied after the softmax: multiplying the weights by the 0/1 mask "
                            "leaves rows that no longer sum to 1 — put −∞ in the scores of padding keys before the "
                            "softmax instead.",
                            values_of(multi_head_attention_mask_after_softmax(query, key, value, weights, heads, *mask))});
    }
    if (weights.w_o) {
        mistakes.push_back({"the output projection is missing: when w_o is given, output = context W_oᵀ + b_o (only "
                            "without w_o is the output the context itself).",
                            values_of(multi_head_attention_without_output_projection(query, key, value, weights, heads, mask))});
    }
    return mistakes;
}

// ---------------------------------------------------------------------------------------------
// The cases

/// The lesson document's parameters (w_q … b_o) and number of heads.
inline void read_parameters(const std::map<std::string, attn::DynamicTensor>& inputs, Inputs& in) {
    in.weights.w_q = inputs.at("w_q");
    in.weights.w_k = inputs.at("w_k");
    in.weights.w_v = inputs.at("w_v");
    in.weights.b_q = inputs.at("b_q");
    in.weights.b_k = inputs.at("b_k");
    in.weights.b_v = inputs.at("b_v");
    in.weights.w_o = attn::Matrix(inputs.at("w_o"));
    in.weights.b_o = attn::Vector(inputs.at("b_o"));
    in.heads = static_cast<std::size_t>(inputs.at("heads")(0));
}

/// Steps 1 to 7 of the lesson: "the cat sat", self-attention, no mask.
inline Inputs worked_example(const attn::tutor::LessonDocument& document) {
    const auto inputs = document.inputs("main");
    Inputs in;
    read_parameters(inputs, in);
    in.query = in.key = in.value = inputs.at("x");
    return in;
}

/// Step 9 of the lesson: two sentences, the second padded, with its attention_mask.
inline Inputs padded_batch(const attn::tutor::LessonDocument& document) {
    const auto inputs = document.inputs("main");
    Inputs in;
    read_parameters(inputs, in);
    in.query = in.key = in.value = inputs.at("batch");
    in.attention_mask = attn::Matrix(inputs.at("attention_mask"));
    return in;
}

/// A seeded random case. `lengths`: the real tokens of each sentence (the rest is padding); empty
/// for no mask. Each padded sentence should keep a real token and a padding key, so that the
/// inverted mask never hides every key (a row of zeros, or NaN in a student's own softmax).
inline Inputs random_inputs(unsigned seed, std::size_t B, std::size_t T, std::size_t S, std::size_t D, std::size_t heads,
                            bool self_attention, bool with_w_o, bool with_b_o, const std::vector<std::size_t>& lengths) {
    std::mt19937 generator(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    const double spread = 1.0 / std::sqrt(double(D));  // keeps the scores near 1: softmaxes that are not one-hot
    auto fill = [&](auto& tensor, double scale) {
        for (double& v : tensor) v = scale * normal(generator);
    };
    Inputs in;
    in.query = attn::Tensor3::from_shape({B, T, D});
    fill(in.query, 1.0);
    if (self_attention) {
        in.key = in.value = in.query;
    } else {
        in.key = attn::Tensor3::from_shape({B, S, D});
        in.value = attn::Tensor3::from_shape({B, S, D});
        fill(in.key, 1.0);
        fill(in.value, 1.0);
    }
    for (attn::Matrix* w : {&in.weights.w_q, &in.weights.w_k, &in.weights.w_v}) {
        *w = attn::Matrix::from_shape({D, D});
        fill(*w, 2.0 * spread);
    }
    for (attn::Vector* b : {&in.weights.b_q, &in.weights.b_k, &in.weights.b_v}) {
        *b = attn::Vector::from_shape({D});
        fill(*b, 0.5);
    }
    if (with_w_o) {
        attn::Matrix w_o = attn::Matrix::from_shape({D, D});
        fill(w_o, 2.0 * spread);
        in.weights.w_o = w_o;
        if (with_b_o) {
            attn::Vector b_o = attn::Vector::from_shape({D});
            fill(b_o, 0.5);
            in.weights.b_o = b_o;
        }
    }
    in.heads = heads;
    if (!lengths.empty()) {
        attn::Matrix mask = attn::Matrix::from_shape({B, in.key.shape(1)});
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t s = 0; s < mask.shape(1); ++s) mask(b, s) = s < lengths.at(b) ? 1.0 : 0.0;
        in.attention_mask = mask;
    }
    return in;
}

struct RandomCase {
    std::string name;
    Inputs inputs;
};

/// The checker's seeded random cases of multi_head_attention, compared with the library.
inline std::vector<RandomCase> random_cases() {
    return {{"a padded batch, B = 3, T = S = 4, D = 6, h = 3, with W_o (compared with the library)",
             random_inputs(1, 3, 4, 4, 6, 3, true, true, true, {3, 2, 1})},
            {"a batch of one without a mask or W_o (where seed 000's block stops), B = 1, T = 5, D = 8, h = 2",
             random_inputs(2, 1, 5, 5, 8, 2, true, false, false, {})},
            {"cross-attention, T = 2 queries over S = 5 keys, B = 2, D = 4, h = 2, padded, W_o without b_o",
             random_inputs(3, 2, 2, 5, 4, 2, false, true, false, {4, 3})}};
}

/// The checker's seeded random split/merge case: x (B, T, D) = (2, 5, 6) for split_heads with
/// h = 3, y (B, h, T, d_k) = (2, 3, 5, 2) for merge_heads.
inline std::pair<attn::Tensor3, attn::Tensor4> random_split_merge_inputs() {
    std::mt19937 generator(4);
    std::normal_distribution<double> normal(0.0, 1.0);
    attn::Tensor3 x = attn::Tensor3::from_shape({2, 5, 6});
    attn::Tensor4 y = attn::Tensor4::from_shape({2, 3, 5, 2});
    for (double& v : x) v = normal(generator);
    for (double& v : y) v = normal(generator);
    return {x, y};
}

}  // namespace exercise05
