// Exercise 8's cases: the lesson's worked examples with the document's values (step 4's table,
// step 10's query and key turned in both layouts); exercise::sinusoidal_positions on tables
// compared with the library (a few positions of a small width, a long table, an odd width, a
// single position); exercise::rotary_embedding in both layouts on seeded heads: positions
// 0 … T − 1, positions out of order, one pair (d_k = 2, where the layouts agree), and LLaMA 3's
// base with positions in the thousands. Every RoPE input runs in both layouts, so that a layout
// read the wrong way round, or ignored, shows.
//
// Tolerance 1e-9: the exponent computed as exp(−2i · ln 10000 / D) or as a power differs in the
// last bits only, and each mistake changes values by far more. The document's values keep the
// resolution of their written digits.
#include <algorithm>
#include <stdexcept>

#include "08-positions/exercise/mistakes.hpp"
#include "attn/positions.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const tutor::Tolerance tight{1e-9, 1e-9};

Case table_case(std::string name, std::size_t T, std::size_t D, const StepSelection& steps) {
    Case c = make_case(std::move(name), "sinusoidal_positions", {{"T", number(double(T))}, {"d_model", number(double(D))}},
                       steps, tight);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        return MistakeTable{{"sin_cos_swapped", steps.pick({positions_sin_cos_swapped(T, D)})},
                            {"exponent_without_two", steps.pick({positions_exponent_without_two(T, D)})},
                            {"positions_from_one", steps.pick({positions_counted_from_one(T, D)})}};
    };
    return c;
}

Case table_case(std::string name, std::size_t T, std::size_t D) {
    return table_case(std::move(name), T, D, all_steps({"positions"}, {sinusoidal_positions(T, D)}));
}

// What a RoPE case compares: the student's rotary_angles, then rotary_embedding.
const std::vector<std::string> rope_steps = {"angles", "rotated"};

Case rope_case(std::string name, const Tensor4& x, const std::vector<std::int64_t>& positions, RopeLayout layout,
               double base, const StepSelection& steps) {
    DynamicTensor sent = DynamicTensor::from_shape({positions.size()});
    std::copy(positions.begin(), positions.end(), sent.begin());
    Case c = make_case(std::move(name), "rotary_embedding",
                       {{"x", x}, {"positions", sent}, {"pairs", number(layout == RopeLayout::pairs ? 1.0 : 0.0)},
                        {"base", number(base)}},
                       steps, tight);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        const Matrix angles = rotary_angles(positions, x.shape(3), base);  // the first two keep the right angles
        return MistakeTable{
            {layout == RopeLayout::halves ? "pairs_for_halves" : "halves_for_pairs",
             steps.pick({angles, rope_other_layout(x, positions, layout, base)})},
            {"angle_negated", steps.pick({angles, rope_angle_negated(x, positions, layout, base)})},
            {"rope_exponent_without_two", steps.pick({rope_angles_exponent_without_two(positions, x.shape(3), base),
                                                      rope_exponent_without_two(x, positions, layout, base)})}};
    };
    return c;
}

// The same seeded heads in both layouts, compared with the library: two cases.
void add_rope_cases(std::vector<Case>& cases, const std::string& what, unsigned seed, std::size_t B, std::size_t h,
                    std::size_t d_k, const std::vector<std::int64_t>& positions, double base) {
    RandomInputs draw(seed);
    const Tensor4 x = draw.normal<Tensor4>({B, h, positions.size(), d_k});
    for (const RopeLayout layout : {RopeLayout::halves, RopeLayout::pairs}) {
        const std::string name = layout == RopeLayout::halves ? tutor::trf("RoPE halves: {1}", {what})
                                                               : tutor::trf("RoPE pairs: {1}", {what});
        cases.push_back(rope_case(name, x, positions, layout, base,
                                  all_steps(rope_steps, {rotary_angles(positions, d_k, base),
                                                         rotary_embedding(x, positions, layout, base)})));
    }
}

// The steps of `example` the document writes under `written` (one name per step, "" for a step
// it does not write), refusing a document that lacks one of them: a case that compares nothing
// would pass anything.
StepSelection written_steps(const tutor::LessonDocument& document, const std::string& example,
                            const std::vector<std::string>& names, const std::vector<std::string>& written) {
    StepSelection steps = document_steps(document, example, names, written);
    if (steps.expected.size() != std::size_t(std::count_if(written.begin(), written.end(), [](const auto& w) { return !w.empty(); }))) {
        throw std::logic_error("lesson 8's document does not write every block of example " + example + " the exercise needs");
    }
    return steps;
}

std::vector<std::int64_t> whole_numbers(const DynamicTensor& values) { return {values.begin(), values.end()}; }

// Step 4's table (the document's `pe`), and step 10's query and key turned in both layouts (its
// q_pairs, q_halves, k_pairs and k_halves; the document writes no angles for them), with the
// values the document writes.
void add_document_cases(std::vector<Case>& cases, const tutor::LessonDocument& document) {
    const auto table = document.inputs("sinusoid");
    const auto T = std::size_t(table.at("length")(0)), D = std::size_t(table.at("d_model")(0));
    cases.push_back(table_case(tutor::trf("the lesson's table by hand: T = {1}, d_model = {2} (the lesson document's pe)",
                                          {std::to_string(T), std::to_string(D)}),
                               T, D, written_steps(document, "sinusoid", {"positions"}, {"pe"})));
    const auto rope = document.inputs("rope");
    for (const char* side : {"q", "k"}) {
        const Tensor4 x = rope.at(side);
        const auto positions = whole_numbers(rope.at(std::string("positions_") + side));
        for (const RopeLayout layout : {RopeLayout::halves, RopeLayout::pairs}) {
            const std::string written = std::string(side) + (layout == RopeLayout::halves ? "_halves" : "_pairs");
            cases.push_back(rope_case(tutor::trf("the lesson's RoPE example: {1} (the lesson document's values)", {written}), x,
                                      positions, layout, default_rope_base,
                                      written_steps(document, "rope", rope_steps, {"", written})));
        }
    }
}

Exercise define(const std::string& source) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("positions: the sinusoidal table and RoPE");
    e.practised = "sinusoidal_positions, rotary_angles and rotary_embedding";
    e.mistakes = {
        {"sin_cos_swapped", tutor::tr("in your table, sine and cosine are swapped: the even columns 2i hold the sine and the odd "
                            "columns 2i+1 the cosine, so row 0 is [0, 1, 0, 1, …].")},
        {"exponent_without_two", tutor::tr("in your table, the exponent is i/d_model with i the pair's number: it is 2i/d_model "
                                 "(the column 2i of the sine), so pair i's wavelength is 10000^(2i/d_model).")},
        {"positions_from_one", tutor::tr("your table counts positions from 1: the first row is position 0, sin(0) = 0 and "
                               "cos(0) = 1, so row 0 is [0, 1, 0, 1, …].")},
        {"pairs_for_halves", tutor::tr("RoPE with layout halves turned the pairs (2i, 2i+1): halves, Hugging Face's rotate_half, "
                             "pairs feature i with feature i + d_k/2.")},
        {"halves_for_pairs", tutor::tr("RoPE with layout pairs turned the pairs (i, i + d_k/2): pairs, as in RoFormer and GPT-J, "
                             "pairs the adjacent features 2i and 2i+1.")},
        {"angle_negated", tutor::tr("your RoPE turns the other way: with φ = position · θ_i, a' = a cos φ − b sin φ and "
                          "b' = b cos φ + a sin φ (a is the pair's first feature, b its second).")},
        {"rope_exponent_without_two", tutor::tr("in your rotary_angles, θ_i = base^(−i/d_k): the exponent is −2i/d_k, so "
                                      "θ_i = base^(−2i/d_k), the same frequencies as the sinusoidal table's.")},
    };
    const auto document = tutor::read_lesson_document(source + "/lessons/" ATTN_LESSON_FOLDER "/README.md");
    add_document_cases(e.cases, document);
    e.cases.insert(e.cases.end(), {
        table_case(tutor::tr("the table for T = 4 positions, d_model = 6 (compared with the library)"), 4, 6),
        table_case(tutor::tr("a long table, T = 50, d_model = 16"), 50, 16),
        table_case(tutor::tr("an odd width, T = 6, d_model = 5 (the last column is the sine of its pair)"), 6, 5),
        table_case(tutor::tr("a single position, T = 1, d_model = 8"), 1, 8),
    });
    add_rope_cases(e.cases, tutor::tr("B = 2, h = 2, positions 0 … 4, d_k = 8"), 1, 2, 2, 8, {0, 1, 2, 3, 4}, 10000.0);
    add_rope_cases(e.cases, tutor::tr("positions 3, 7, 0, 11 (out of order), d_k = 6"), 2, 1, 2, 6, {3, 7, 0, 11}, 10000.0);
    add_rope_cases(e.cases, tutor::tr("one pair, d_k = 2 (both layouts agree)"), 3, 1, 1, 2, {0, 1, 2}, 10000.0);
    add_rope_cases(e.cases, tutor::tr("base 500000 (LLaMA 3), positions 0, 100, 4096"), 4, 1, 2, 16, {0, 100, 4096},
                   500000.0);
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
