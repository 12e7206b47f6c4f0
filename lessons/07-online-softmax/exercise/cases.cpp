// Exercise 7's cases: exercise::online_softmax_attention on the lesson's two worked examples (one
// query over two tiles of keys: the trace tile by tile; the causal batch: the skipped tiles and
// each query's m, l and rescale factors), with the document's values, and on seeded inputs
// compared with the library's trace: several tiles, a last tile smaller than the others, causal
// with tiles of unequal sizes (where the skip rule's slips show), T < S and T > S, and scores in
// the hundreds (e^score overflows without the running maximum subtracted).
#include <algorithm>
#include <stdexcept>

#include "07-online-softmax/exercise/mistakes.hpp"
#include "07-online-softmax/exercise/trace_steps.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

struct TiledInputs {
    Tensor3 Q, K, V;
    std::size_t query_tile = 1, key_tile = 1;
    bool causal = false;

    OnlineSoftmaxOptions options() const { return OnlineSoftmaxOptions{query_tile, key_tile, causal}; }
    TraceGeometry geometry() const { return {Q.shape(0), Q.shape(1), K.shape(1), V.shape(2), query_tile, key_tile}; }
    std::vector<DynamicTensor> steps_of(const OnlineSoftmaxResult& result) const { return step_values(trace_steps(result, geometry())); }
};

Case exercise_case(std::string name, const TiledInputs& in, const StepSelection& steps, tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "online_softmax_attention",
                       {{"Q", in.Q}, {"K", in.K}, {"V", in.V}, {"query_tile", number(double(in.query_tile))},
                        {"key_tile", number(double(in.key_tile))}, {"causal", number(in.causal ? 1.0 : 0.0)}},
                       steps, tolerance);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        const OnlineSoftmaxResult right = online_softmax_attention(in.Q, in.K, in.V, in.options());
        MistakeTable table{{"sum_not_rescaled", steps.pick(in.steps_of(online_sum_not_rescaled(right)))},
                           {"accumulator_wrong_factor", steps.pick(in.steps_of(online_accumulator_wrong_factor(right, in.V)))},
                           {"divided_per_tile", steps.pick(in.steps_of(online_divided_per_tile(right, in.V)))}};
        if (in.causal) {
            // The skip rule exists only with the causal mask: without it, no tile is skipped.
            table["tile_skip_off_by_one"] =
                steps.pick(in.steps_of(online_tile_skip_off_by_one(right, in.Q, in.K, in.V, in.options())));
            table["tile_skip_first_query"] =
                steps.pick(in.steps_of(online_tile_skip_first_query(right, in.Q, in.K, in.V, in.options())));
        }
        return table;
    };
    return c;
}

// The values of the document's expect blocks `blocks` of `example`, one after the other, as one
// tensor of `shape` (the per-tile blocks of the one-query example, side by side), with the
// resolution of their written digits.
ExpectedStep written(const tutor::LessonDocument& document, const std::string& example, const std::string& step,
                     const std::vector<std::string>& blocks, const std::vector<std::size_t>& shape) {
    std::vector<double> values, resolution;
    for (const auto& name : blocks) {
        const tutor::LessonBlock* found = nullptr;
        for (const auto& block : document.blocks) {
            if (block.kind == tutor::LessonBlock::Kind::expect && block.example == example && block.name == name) found = &block;
        }
        if (found == nullptr) throw std::logic_error("lesson 7's document has no expect block " + name + " in example " + example);
        const DynamicTensor& tensor = found->literal.tensor;
        values.insert(values.end(), tensor.begin(), tensor.end());
        std::vector<double> digits = found->literal.resolution;
        digits.resize(tensor.size(), 0.0);
        resolution.insert(resolution.end(), digits.begin(), digits.end());
    }
    DynamicTensor value = DynamicTensor::from_shape(shape);
    if (value.size() != values.size()) throw std::logic_error("lesson 7's document: the blocks for " + step + " do not fill its shape");
    std::copy(values.begin(), values.end(), value.begin());
    return {step, value, resolution};
}

// Step `step` (a name of trace_step_names()) expected as `expected`.
void add_step(StepSelection& steps, ExpectedStep expected) {
    const auto& names = trace_step_names();
    steps.kept.push_back(std::size_t(std::find(names.begin(), names.end(), expected.name) - names.begin()));
    steps.expected.push_back(std::move(expected));
}

TiledInputs document_inputs(const tutor::LessonDocument& document, const std::string& example, bool causal) {
    const auto inputs = document.inputs(example);
    return {inputs.at("Q"), inputs.at("K"), inputs.at("V"), std::size_t(inputs.at("query_tile")(0)),
            std::size_t(inputs.at("key_tile")(0)), causal};
}

// Step 2's example: one query, four keys in two tiles of two, each tile's state as written.
Case one_query_case(const tutor::LessonDocument& document) {
    const TiledInputs in = document_inputs(document, "main", false);
    StepSelection steps;
    add_step(steps, written(document, "main", "running_max", {"m_tile0", "m_tile1"}, {1, 1, 2}));
    add_step(steps, written(document, "main", "rescale", {"rescale_tile0", "rescale_tile1"}, {1, 1, 2}));
    add_step(steps, written(document, "main", "exponentials", {"exp_tile0", "exp_tile1"}, {1, 1, 4}));
    add_step(steps, written(document, "main", "running_sum", {"l_tile0", "l_tile1"}, {1, 1, 2}));
    add_step(steps, written(document, "main", "accumulator", {"acc_tile0", "acc_tile1"}, {1, 1, 2, 2}));
    add_step(steps, written(document, "main", "output", {"online_output"}, {1, 1, 2}));
    return exercise_case(tutor::tr("the lesson's worked example: one query, four keys in two tiles of two (expected values "
                                   "from the lesson document)"),
                         in, steps, {1e-6, 1e-6});
}

// Step 8's example: six tokens, causal, tiles of two queries and two keys.
Case causal_case(const tutor::LessonDocument& document) {
    const TiledInputs in = document_inputs(document, "causal", true);
    const TraceGeometry g = in.geometry();
    StepSelection steps;
    add_step(steps, written(document, "causal", "tile_computed", {"tile_computed"}, {1, g.query_tiles(), g.key_tiles()}));
    // The document writes how many tiles were skipped; the others, of the n_T · n_S, were computed.
    ExpectedStep counts = written(document, "causal", "tile_counts", {"tiles_skipped", "tiles_skipped"}, {2});
    counts.value(0) = double(g.query_tiles() * g.key_tiles()) - counts.value(0);
    add_step(steps, counts);
    add_step(steps, written(document, "causal", "running_max", {"m_after_tile"}, {1, g.T, g.key_tiles()}));
    add_step(steps, written(document, "causal", "rescale", {"rescale_at_tile"}, {1, g.T, g.key_tiles()}));
    add_step(steps, written(document, "causal", "running_sum", {"l_after_tile"}, {1, g.T, g.key_tiles()}));
    add_step(steps, written(document, "causal", "output", {"online_output"}, {1, g.T, g.d_v}));
    return exercise_case(tutor::tr("the lesson's causal example: six tokens, tiles of two queries and two keys, three "
                                   "tiles skipped (the lesson document's values)"),
                         in, steps, {1e-6, 1e-6});
}

// Seeded inputs compared with the library's trace. `overflowing`: the queries scaled until every
// row's largest visible score is in the hundreds; `rows_apart`: the first sentence's queries
// scaled until the rows' maxima lie 800 apart.
Case random_case(std::string name, std::size_t B, std::size_t T, std::size_t S, std::size_t d_k, std::size_t d_v,
                 std::size_t query_tile, std::size_t key_tile, bool causal, unsigned seed, bool overflowing = false,
                 bool rows_apart = false) {
    RandomInputs draw(seed);
    TiledInputs in{draw.normal<Tensor3>({B, T, d_k}), draw.normal<Tensor3>({B, S, d_k}), draw.normal<Tensor3>({B, S, d_v}),
                   query_tile, key_tile, causal};
    AttentionOptions options;
    options.causal = causal;
    if (overflowing) in.Q *= overflowing_scale(scaled_dot_product_attention(in.Q, in.K, in.V, options).masked_scores);
    if (rows_apart) {
        auto first_scaled = [&](double factor) {
            Tensor3 scaled = in.Q;
            for (std::size_t i = 0; i < T * d_k; ++i) scaled.data()[i] *= factor;  // sentence 0 comes first in memory
            return scaled;
        };
        in.Q = first_scaled(rows_apart_factor(
            [&](double f) { return DynamicTensor(scaled_dot_product_attention(first_scaled(f), in.K, in.V, options).masked_scores); }));
    }
    const OnlineSoftmaxResult right = online_softmax_attention(in.Q, in.K, in.V, in.options());
    return exercise_case(std::move(name), in, all_steps(trace_step_names(), in.steps_of(right)), {1e-9, 1e-9});
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("the online softmax");
    e.practised = "attn::online_softmax_attention";
    e.mistakes = {
        {"sum_not_rescaled", tutor::tr("l was not rescaled when m grew: each tile must multiply both l and the accumulator by "
                             "e^(m_old − m_new) before adding its own terms, or the old terms stay measured against the "
                             "old maximum and l ends too large.")},
        {"accumulator_wrong_factor", tutor::tr("the accumulator was multiplied by e^(m_new − m_old), the inverse of the rescale "
                                     "factor: when m grows the old terms must shrink, by e^(m_old − m_new) ≤ 1 (before "
                                     "the first key, e^(m_new − (−∞)) = ∞, and ∞ · 0 is NaN).")},
        {"divided_per_tile", tutor::tr("the accumulator was divided by l after every tile instead of once after the last one: the "
                             "next tile then adds its terms to a mean, not to a sum (lesson 7, step 6). Keep the "
                             "accumulator unnormalised and divide once at the end.")},
        {"tile_skip_off_by_one", tutor::tr("the causal tile skip is off by one: skip a tile only when its first key comes after "
                                 "its last query (first_key > last_query); with ≥, the tile that begins with the last "
                                 "query's own key is skipped and that query loses it.")},
        {"tile_skip_first_query", tutor::tr("the causal tile skip compares the tile's first key with its first query instead of "
                                  "its last (lesson 7, step 8): a later query of the tile may still see some of its "
                                  "keys. Skip only when first_key > last_query.")},
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    e.cases = {
        one_query_case(document),
        causal_case(document),
        random_case(tutor::tr("random inputs, no mask, B = 2, T = 3 queries over S = 7 keys, tiles of 2 queries and 3 keys (the last "
                    "key tile holds one key; compared with the library)"), 2, 3, 7, 4, 3, 2, 3, false, 1),
        random_case(tutor::tr("causal, B = 2, T = S = 7, tiles of 2 queries and 3 keys"), 2, 7, 7, 4, 2, 2, 3, true, 2),
        random_case(tutor::tr("causal, B = 1, T = S = 8, tiles of 4 queries and 3 keys"), 1, 8, 8, 3, 2, 4, 3, true, 3),
        random_case(tutor::tr("causal, T = 5 queries over S = 8 keys, tiles of 3 queries and 2 keys"), 2, 5, 8, 4, 3, 3, 2, true, 4),
        random_case(tutor::tr("causal, T = 7 queries over S = 4 keys, tiles of 2 queries and 3 keys"), 1, 7, 4, 4, 2, 2, 3, true, 5),
        random_case(tutor::tr("scores in the hundreds, causal, B = 2, T = S = 6, tiles of 2 queries and 4 keys (e^score overflows "
                    "without the running maximum subtracted)"), 2, 6, 6, 4, 2, 2, 4, true, 6, true),
        random_case(tutor::tr("rows hundreds apart, causal, B = 2, T = S = 6, tiles of 2 queries and 4 keys (one maximum for "
                              "the whole batch underflows on the lower rows)"),
                    2, 6, 6, 4, 2, 2, 4, true, 7, false, true),
    };
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
