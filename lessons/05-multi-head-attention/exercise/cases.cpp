// Exercise 5's cases: exercise::split_heads and exercise::merge_heads alone, then
// exercise::multi_head_attention, on the lesson's worked example and padded batch (the document's
// values) and on seeded inputs compared with the library — padded batches (B = h, where seed 000's
// mask trap shows), a batch of one without a mask or W_o, cross-attention with T ≠ S, a sentence
// that is all padding, and a single position.
#include <cmath>

#include "05-multi-head-attention/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const std::vector<std::string> step_names = {"q",      "k",       "v",             "q_heads", "k_heads", "v_heads",
                                             "scores", "weights", "context_heads", "context", "output"};

std::vector<DynamicTensor> values_of(const MultiHeadAttentionResult& r) {
    return {r.q, r.k, r.v, r.q_heads, r.k_heads, r.v_heads, r.scores, r.weights, r.context_heads, r.context, r.output};
}

/// One call's arguments.
struct Inputs {
    Tensor3 query, key, value;
    MultiHeadAttentionWeights weights;
    std::size_t heads = 1;
    std::optional<Matrix> attention_mask;
};

MultiHeadAttentionResult right_of(const Inputs& in) {
    AttentionOptions options;
    options.attention_mask = in.attention_mask;
    return multi_head_attention(in.query, in.key, in.value, in.weights, in.heads, options);
}

NamedTensors request_of(const Inputs& in) {
    NamedTensors inputs{{"query", in.query}, {"key", in.key},        {"value", in.value},
                        {"w_q", in.weights.w_q}, {"w_k", in.weights.w_k}, {"w_v", in.weights.w_v},
                        {"b_q", in.weights.b_q}, {"b_k", in.weights.b_k}, {"b_v", in.weights.b_v},
                        {"heads", number(double(in.heads))}};
    if (in.weights.w_o) inputs["w_o"] = *in.weights.w_o;
    if (in.weights.b_o) inputs["b_o"] = *in.weights.b_o;
    if (in.attention_mask) inputs["attention_mask"] = *in.attention_mask;
    return inputs;
}

Case attention_case(std::string name, const Inputs& in, const MultiHeadAttentionResult& right, const StepSelection& steps,
                    tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "multi_head_attention", request_of(in), steps, tolerance);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        const auto& w = in.weights;
        const auto& mask = in.attention_mask;
        const double model_width = double(in.query.shape(2));
        MistakeTable table{
            {"split_by_reshape", steps.pick(values_of(heads_split_by_reshape(right, w, mask)))},
            {"merged_by_reshape", steps.pick(values_of(heads_merged_by_reshape(right, w)))},
            {"split_and_merged_by_reshape", steps.pick(values_of(heads_split_and_merged_by_reshape(right, w, mask)))},
            {"unscaled", steps.pick(values_of(heads_scaled_by(right, w, mask, 1.0)))},
            {"scaled_by_model_width", steps.pick(values_of(heads_scaled_by(right, w, mask, 1.0 / std::sqrt(model_width))))},
            {"unshifted_softmax", steps.pick(values_of(heads_unshifted_softmax(right, w, mask)))}};
        if (mask) {
            table["mask_inverted"] = steps.pick(values_of(mask_inverted(right, w, *mask)));
            table["mask_after_softmax"] = steps.pick(values_of(mask_after_softmax(right, w, *mask)));
            table["nan_for_fully_masked"] = steps.pick(values_of(nan_for_fully_masked_query(right, w, mask)));
            // Seed 000's broadcast is defined only when the batch is as large as the number of heads.
            if (in.query.shape(0) == in.heads) table["mask_on_heads_axis"] = steps.pick(values_of(mask_on_heads_axis(right, w, *mask)));
        }
        if (w.w_o) table["without_output_projection"] = steps.pick(values_of(without_output_projection(right)));
        return table;
    };
    return c;
}

/// split_heads(x, h) and merge_heads(y) in one case; `expected` is either every step or the document's.
Case split_merge_case(std::string name, const Tensor3& x, std::size_t heads, const Tensor4& y, const StepSelection& steps,
                      tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "split_and_merge", {{"x", x}, {"y", y}, {"heads", number(double(heads))}}, steps,
                       tolerance);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        const DynamicTensor split = split_heads(x, heads), merged = merge_heads(y);
        const DynamicTensor wrong_split = split_heads_by_reshape(x, heads), wrong_merge = merge_heads_by_reshape(y);
        return MistakeTable{{"split_by_reshape", steps.pick({wrong_split, merged})},
                            {"merged_by_reshape", steps.pick({split, wrong_merge})},
                            {"split_and_merged_by_reshape", steps.pick({wrong_split, wrong_merge})}};
    };
    return c;
}

/// The lesson document's parameters (w_q … b_o) and number of heads, with `x` as query, key and value.
Inputs document_inputs(const tutor::LessonDocument& document, const char* x, const char* mask) {
    const auto inputs = document.inputs("main");
    Inputs in;
    in.weights.w_q = inputs.at("w_q");
    in.weights.w_k = inputs.at("w_k");
    in.weights.w_v = inputs.at("w_v");
    in.weights.b_q = inputs.at("b_q");
    in.weights.b_k = inputs.at("b_k");
    in.weights.b_v = inputs.at("b_v");
    in.weights.w_o = Matrix(inputs.at("w_o"));
    in.weights.b_o = Vector(inputs.at("b_o"));
    in.heads = static_cast<std::size_t>(inputs.at("heads")(0));
    in.query = in.key = in.value = inputs.at(x);
    if (mask) in.attention_mask = Matrix(inputs.at(mask));
    return in;
}

/// A seeded case. `lengths`: the real tokens of each sentence (the rest is padding); empty for no
/// mask. `overflowing`: W_q and b_q scaled until every row's largest visible score is in the hundreds.
Inputs random_inputs(unsigned seed, std::size_t B, std::size_t T, std::size_t S, std::size_t D, std::size_t heads,
                     bool self_attention, bool with_w_o, bool with_b_o, const std::vector<std::size_t>& lengths,
                     bool overflowing = false) {
    RandomInputs draw(seed);
    Inputs in;
    in.query = draw.normal<Tensor3>({B, T, D});
    in.key = self_attention ? in.query : draw.normal<Tensor3>({B, S, D});
    in.value = self_attention ? in.query : draw.normal<Tensor3>({B, S, D});
    in.weights = random_attention_weights(draw, D, with_w_o, with_b_o);
    in.heads = heads;
    if (!lengths.empty()) {
        Matrix mask = Matrix::from_shape({B, in.key.shape(1)});
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t s = 0; s < mask.shape(1); ++s) mask(b, s) = s < lengths.at(b) ? 1.0 : 0.0;
        in.attention_mask = mask;
    }
    if (overflowing) {
        // The scores are linear in q, and q in (W_q, b_q); the padding keys are hidden (−∞) first.
        const MultiHeadAttentionResult right = right_of(in);
        Tensor4 visible = right.scores;
        for (std::size_t b = 0; in.attention_mask && b < B; ++b)
            for (std::size_t j = 0; j < heads; ++j)
                for (std::size_t t = 0; t < T; ++t)
                    for (std::size_t s = 0; s < visible.shape(3); ++s)
                        if ((*in.attention_mask)(b, s) == 0.0) visible(b, j, t, s) = -INFINITY;
        const double scale = overflowing_scale(visible);
        in.weights.w_q *= scale;
        in.weights.b_q *= scale;
    }
    return in;
}

/// `in` with the first sentence's queries scaled until the rows' largest scores lie 800 apart
/// (cross-attention: the scores are nearly linear in the queries).
Inputs rows_apart(Inputs in) {
    auto first_scaled = [&](double factor) {
        Inputs scaled = in;
        const std::size_t first = in.query.size() / in.query.shape(0);  // sentence 0 comes first in memory
        for (std::size_t i = 0; i < first; ++i) scaled.query.data()[i] *= factor;
        return scaled;
    };
    return first_scaled(rows_apart_factor([&](double f) { return DynamicTensor(right_of(first_scaled(f)).scores); }));
}

Case random_case(std::string name, const Inputs& in) {
    const MultiHeadAttentionResult right = right_of(in);
    return attention_case(std::move(name), in, right, all_steps(step_names, values_of(right)), {1e-9, 1e-9});
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("multi-head attention");
    e.practised = "split_heads, merge_heads and multi_head_attention";
    e.library_allowed = {"attn::linear", "attn::softmax_last_axis"};
    e.mistakes = {
        {"split_and_merged_by_reshape",
         tutor::tr("split_heads and merge_heads used a reshape where a transpose was meant: view (B, T, D) as "
         "(B, T, h, d_k), then swap the T and h axes (transpose(1, 2)), and swap them back before merging; copied in memory order, each head "
         "gets whole positions instead of d_k features of every position.")},
        {"split_by_reshape",
         tutor::tr("split_heads used a reshape where a transpose was meant: view (B, T, D) as (B, T, h, d_k), then "
         "swap the T and h axes (transpose(1, 2)); copied in memory order, each head gets whole positions instead of d_k features of every "
         "position.")},
        {"merged_by_reshape",
         tutor::tr("merge_heads used a reshape where a transpose was meant: swap the h and T axes back "
         "(transpose(1, 2)) before viewing the heads as (B, T, D); copied in memory order, row t of the context holds other positions' numbers.")},
        {"unscaled", tutor::tr("the 1/√d_k scale is missing: each head's scores are the raw dot products q_j k_jᵀ, so every softmax "
                     "is too sharp.")},
        {"scaled_by_model_width", tutor::tr("the scores were divided by √D instead of √d_k: d_k = D / h is the width of one head, "
                                  "not of the model.")},
        {"mask_inverted", tutor::tr("the padding mask is inverted: attention_mask is 1 for a real token (attend to it) and 0 for "
                          "padding (hide it) — the opposite of PyTorch's key_padding_mask, where True means ignore.")},
        {"mask_after_softmax", tutor::tr("the padding mask was applied after the softmax: multiplying the weights by the 0/1 mask "
                               "leaves rows that no longer sum to 1 — put −∞ in the scores of padding keys before the "
                               "softmax instead.")},
        {"mask_on_heads_axis", tutor::tr("the mask went to the heads axis, seed 000's trap: head j of every sentence got sentence j's "
                               "mask (attention_mask(j, s) where attention_mask(b, s) was meant; in PyTorch, a (B, 1, S) "
                               "mask broadcast against (B, h, T, S) scores). Sentence b's mask hides keys in every head "
                               "of sentence b.")},
        {"nan_for_fully_masked", tutor::tr("a query whose keys are all padding got NaN weights: the softmax of a row of −∞ is "
                                 "e^(−∞ − (−∞)) = NaN. The lesson gives such a row weights of zero (and the query the "
                                 "output b_o): check for a row with no visible key, or use attn::softmax_last_axis, "
                                 "which does.")},
        unshifted_softmax_mistake(tutor::tr("Subtract each row's maximum before exponentiating, or use attn::softmax_last_axis.")),
        {"without_output_projection", tutor::tr("the output projection is missing: when w_o is given, output = context W_oᵀ + b_o "
                                      "(only without w_o is the output the context itself).")},
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    const Inputs example = document_inputs(document, "x", nullptr);
    const MultiHeadAttentionResult example_right = right_of(example);
    RandomInputs draw(4);
    const Tensor3 x = draw.normal<Tensor3>({2, 5, 6});
    const Tensor4 y = draw.normal<Tensor4>({2, 3, 5, 2});
    const Inputs padded = document_inputs(document, "batch", "attention_mask");
    e.cases = {
        split_merge_case(tutor::tr("split_heads(q) and merge_heads(context_heads) on the worked example (expected values from the "
                         "lesson document)"),
                         example_right.q, example.heads, example_right.context_heads,
                         document_steps(document, "main", {"split_heads", "merge_heads"}, {"q_heads", "context"}), {1e-6, 1e-6}),
        split_merge_case(tutor::tr("split_heads and merge_heads on random tensors, B = 2, T = 5, D = 6, h = 3 (compared with the library)"),
                         x, 3, y, all_steps({"split_heads", "merge_heads"}, {split_heads(x, 3), merge_heads(y)}), {1e-9, 1e-9}),
        attention_case(tutor::tr("the lesson's worked example, \"the cat sat\", D = 4, h = 2, with W_o (expected values from the "
                       "lesson document)"),
                       example, example_right, document_steps(document, "main", step_names, step_names), {1e-6, 1e-6}),
        attention_case(tutor::tr("the lesson's padded batch, attention_mask [[1, 1, 1], [1, 1, 0]] (the document's weights and output)"),
                       padded, right_of(padded), document_steps(document, "main", step_names, prefixed("batch_", step_names)),
                       {1e-6, 1e-6}),
        random_case(tutor::tr("a padded batch, B = 3, T = S = 4, D = 6, h = 3, with W_o (compared with the library)"),
                    random_inputs(1, 3, 4, 4, 6, 3, true, true, true, {3, 2, 1})),
        random_case(tutor::tr("a batch of one without a mask or W_o (where seed 000's block stops), B = 1, T = 5, D = 8, h = 2"),
                    random_inputs(2, 1, 5, 5, 8, 2, true, false, false, {})),
        random_case(tutor::tr("cross-attention, T = 2 queries over S = 5 keys, B = 2, D = 4, h = 2, padded, W_o without b_o"),
                    random_inputs(3, 2, 2, 5, 4, 2, false, true, false, {4, 3})),
        random_case(tutor::tr("a sentence that is all padding, B = 2, T = S = 3, D = 4, h = 2, scores in the hundreds (its queries see "
                    "no key: weights 0, output b_o)"),
                    random_inputs(5, 2, 3, 3, 4, 2, true, true, true, {3, 0}, true)),
        random_case(tutor::tr("scores in the hundreds, B = 2, T = S = 3, D = 4, h = 2, no mask (e^score overflows without the maximum "
                    "subtracted)"),
                    random_inputs(6, 2, 3, 3, 4, 2, true, true, true, {}, true)),
        random_case(tutor::tr("rows hundreds apart, cross-attention, B = 2, T = 3 queries over S = 4 keys, D = 4, h = 2 (one maximum "
                              "for the whole batch underflows on the lower rows)"),
                    rows_apart(random_inputs(8, 2, 3, 4, 4, 2, false, true, true, {}))),
        random_case(tutor::tr("a single position, B = 2, T = S = 1, D = 4, h = 2"), random_inputs(7, 2, 1, 1, 4, 2, true, true, true, {})),
    };
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
