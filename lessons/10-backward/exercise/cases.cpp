// Exercise 10's cases: exercise::softmax_backward_rows on a row a reader can redo by hand, on
// seeded rows (one of them all zeros, a query that saw nothing), and against finite differences;
// then exercise::attention_backward on seeded self-attention (no mask, a causal mask with padding,
// a query whose keys are all hidden, padding only), and against finite differences.
//
// The right values: the library's backward, attn::softmax_backward and
// attn::scaled_dot_product_attention_backward (tested against PyTorch's autograd, tests/data/backward),
// with P from attn::scaled_dot_product_attention and dP = dO Vᵀ. Tolerance 1e-9: the cases compute
// in double.
//
// The finite-difference cases differentiate the library's forward, not the student's: the
// checker never runs the student's code itself (the student's program only answers the cases it
// is sent), and a student's forward and backward wrong in the same way would agree with each
// other. The loss is L = Σ O ∘ dO, whose gradient with respect to O is exactly dO, so the
// student's gradient of each input must equal ∂L/∂x_i ≈ (L(x + h e_i) − L(x − h e_i)) / 2h. The
// step h = 1e-5: the truncation error h²/6 · L''' and the rounding error ε |L| / h (ε = 2.2e-16)
// are both near 1e-10 for these O(1) inputs, a thousand times below the tolerance of 1e-7.
//
// Which case tells which mistake: the 1/√d_k left out scales dQ and dK by √d_k (d_k ≥ 2 in every
// case); dS = P ∘ dP shows in every softmax case; swapped dQ and dK, and dV = P dO, show in the
// numbers because P is not symmetric (random Q ≠ K, causal masks) — the attention cases are
// square (T = S) since P dO has no meaning otherwise, so the cases cannot tell T from S; a mask
// left out of the recomputed weights shows wherever a key is hidden; NaN for a fully masked query
// only in the cases that have one.
#include <cmath>
#include <functional>

#include "10-backward/exercise/mistakes.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/softmax.hpp"
#include "attn/softmax_backward.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const tutor::Tolerance tight{1e-9, 1e-9};
const tutor::Tolerance finite_difference{1e-7, 1e-7};  // see the step h above
constexpr double step_h = 1e-5;

// ∂loss/∂x by central differences: each value of x perturbed by ±h in place, loss() read, restored.
template <class Tensor>
Tensor central_differences(Tensor& x, const std::function<double()>& loss) {
    Tensor gradient = Tensor::from_shape(x.shape());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double original = x.data()[i];
        x.data()[i] = original + step_h;
        const double above = loss();
        x.data()[i] = original - step_h;
        const double below = loss();
        x.data()[i] = original;
        gradient.data()[i] = (above - below) / (2.0 * step_h);
    }
    return gradient;
}

template <class Tensor>
double weighted_sum(const Tensor& output, const Tensor& upstream) {
    double sum = 0.0;
    for (std::size_t i = 0; i < output.size(); ++i) sum += output.data()[i] * upstream.data()[i];
    return sum;
}

// ---- the softmax's backward ----

Case softmax_case(std::string name, const Matrix& weights, const Matrix& grad_weights, const DynamicTensor& right,
                  tutor::Tolerance tolerance) {
    Case c = make_case(std::move(name), "softmax_backward_rows", {{"weights", weights}, {"grad_weights", grad_weights}},
                       all_steps({"softmax_grad"}, {right}), tolerance);
    c.mistakes = [=] {
        return MistakeTable{{"row_sum_forgotten", {mistakes::softmax_backward_without_row_sum(weights, grad_weights)}}};
    };
    return c;
}

Case softmax_library_case(std::string name, const Matrix& weights, const Matrix& grad_weights) {
    return softmax_case(std::move(name), weights, grad_weights, softmax_backward(weights, grad_weights), tight);
}

// Seeded scores (R, S) turned into weights by the library's softmax, row `hidden_row` (if < R)
// hidden entirely (all zeros), and a seeded upstream gradient.
Case random_softmax_case(std::string name, unsigned seed, std::size_t R, std::size_t S, std::size_t hidden_row) {
    RandomInputs draw(seed);
    Matrix scores = draw.normal<Matrix>({R, S});
    const Matrix grad_weights = draw.normal<Matrix>({R, S});
    for (std::size_t s = 0; s < S && hidden_row < R; ++s) scores(hidden_row, s) = -INFINITY;
    return softmax_library_case(std::move(name), softmax_last_axis(scores), grad_weights);
}

// The expected dS: central differences of L = Σ softmax(scores) ∘ dP with respect to the scores.
Case finite_difference_softmax_case(std::string name, unsigned seed, std::size_t R, std::size_t S) {
    RandomInputs draw(seed);
    Matrix scores = draw.normal<Matrix>({R, S});
    const Matrix grad_weights = draw.normal<Matrix>({R, S});
    const Matrix weights = softmax_last_axis(scores);
    const Matrix numerical =
        central_differences(scores, [&] { return weighted_sum(Matrix(softmax_last_axis(scores)), grad_weights); });
    return softmax_case(std::move(name), weights, grad_weights, numerical, finite_difference);
}

// ---- attention's backward ----

const std::vector<std::string> attention_steps = {"weights",    "grad_weights", "grad_scores",
                                                  "grad_query", "grad_key",     "grad_value"};

struct AttentionInputs {
    Tensor3 query, key, value, grad_output;
    std::optional<Tensor3> mask;  // (B, T, S) 1 = visible
};

std::vector<DynamicTensor> attention_values(const AttentionInputs& in, mistakes::BackwardSlip slip) {
    const auto s = mistakes::attention_backward_with(in.query, in.key, in.value, in.mask, in.grad_output, slip);
    return {s.weights, s.grad_weights, s.grad_scores, s.grad_query, s.grad_key, s.grad_value};
}

// Which keys each query sees: every key (no mask), or the keys s ≤ t (`causal`) that are not
// past each sentence's `lengths`; `fully_hidden` (B, T pairs) queries see nothing at all.
enum class Masking { none, causal, padding };

AttentionInputs random_attention(unsigned seed, std::size_t B, std::size_t T, std::size_t d_k, std::size_t d_v,
                                 Masking masking, const std::vector<std::size_t>& lengths = {},
                                 const std::vector<std::pair<std::size_t, std::size_t>>& fully_hidden = {}) {
    RandomInputs draw(seed);
    AttentionInputs in;
    in.query = draw.normal<Tensor3>({B, T, d_k});
    in.key = draw.normal<Tensor3>({B, T, d_k});
    in.value = draw.normal<Tensor3>({B, T, d_v});
    in.grad_output = draw.normal<Tensor3>({B, T, d_v});
    if (masking == Masking::none) return in;
    Tensor3 mask = Tensor3::from_shape({B, T, T});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t)
            for (std::size_t s = 0; s < T; ++s) {
                const bool future = masking == Masking::causal && s > t;
                const bool padding = !lengths.empty() && s >= lengths.at(b);
                mask(b, t, s) = future || padding ? 0.0 : 1.0;
            }
    for (const auto& [b, t] : fully_hidden)
        for (std::size_t s = 0; s < T; ++s) mask(b, t, s) = 0.0;
    in.mask = mask;
    return in;
}

NamedTensors attention_inputs(const AttentionInputs& in) {
    NamedTensors inputs{{"query", in.query}, {"key", in.key}, {"value", in.value}, {"grad_output", in.grad_output}};
    if (in.mask) inputs["mask"] = *in.mask;
    return inputs;
}

// Each mistake's steps in this case, cut down to `steps`.
std::function<MistakeTable()> attention_mistakes(const AttentionInputs& in, const StepSelection& steps) {
    return [=] {
        using mistakes::BackwardSlip;
        MistakeTable table;
        const std::pair<const char*, BackwardSlip> slips[] = {
            {"scale_left_out", BackwardSlip::scale_left_out},
            {"row_sum_forgotten", BackwardSlip::row_sum_forgotten},
            {"query_key_swapped", BackwardSlip::query_key_swapped},
            {"value_transpose_forgotten", BackwardSlip::value_transpose_forgotten},
            {"mask_ignored", BackwardSlip::mask_ignored},
            {"nan_for_fully_masked", BackwardSlip::nan_for_fully_masked}};
        for (const auto& [id, slip] : slips) table[id] = steps.pick(attention_values(in, slip));
        return table;
    };
}

Case attention_case(std::string name, const AttentionInputs& in) {
    const StepSelection steps = all_steps(attention_steps, attention_values(in, mistakes::BackwardSlip::none));
    Case c = make_case(std::move(name), "attention_backward", attention_inputs(in), steps, tight);
    c.mistakes = attention_mistakes(in, steps);
    return c;
}

// The expected dQ, dK, dV: central differences of L = Σ O ∘ dO, O the library's forward.
Case finite_difference_attention_case(std::string name, AttentionInputs in) {
    AttentionOptions options;
    if (in.mask) options.additive_mask = mistakes::additive_mask_of(*in.mask);
    const auto loss = [&] {
        return weighted_sum(scaled_dot_product_attention(in.query, in.key, in.value, options).output, in.grad_output);
    };
    StepSelection steps;
    steps.expected = {{"grad_query", central_differences(in.query, loss)},
                      {"grad_key", central_differences(in.key, loss)},
                      {"grad_value", central_differences(in.value, loss)}};
    steps.kept = {3, 4, 5};
    Case c = make_case(std::move(name), "attention_backward", attention_inputs(in), steps, finite_difference);
    c.mistakes = attention_mistakes(in, steps);
    return c;
}

std::vector<KnownMistake> known_mistakes() {
    return {
        {"scale_left_out",
         tutor::tr("your dQ and dK are √d_k times too large: the forward's scores are Q Kᵀ / √d_k, so the chain rule "
                   "carries that factor into both, dQ = dS K / √d_k and dK = dSᵀ Q / √d_k.")},
        {"row_sum_forgotten",
         tutor::tr("your softmax's backward is dS = P ∘ dP: every weight of a row depends on every score of the row "
                   "(they share one sum), so subtract the row's dP · P first, dS = P ∘ (dP − rowsum(dP ∘ P)).")},
        {"query_key_swapped",
         tutor::tr("your dQ and dK are in each other's place: the queries are the rows of dS (dQ = dS K / √d_k), the "
                   "keys its columns (dK = dSᵀ Q / √d_k).")},
        {"value_transpose_forgotten",
         tutor::tr("your dV is P dO: value row s reaches every output row t with weight P(t, s), so its gradient sums "
                   "over the queries, a column of P: dV = Pᵀ dO.")},
        {"mask_ignored",
         tutor::tr("your backward recomputes the weights without the mask, so gradient flows into keys the forward hid: "
                   "put −∞ in the scores where mask(b, t, s) is 0 before the softmax; a hidden key then has P = 0 and gets "
                   "nothing from that query.")},
        {"nan_for_fully_masked",
         tutor::tr("a query whose keys are all hidden got NaN weights (e^(−∞ − (−∞))), and the NaN spread to dS, dQ, dK "
                   "and dV: give such a row weights of zero (attn::softmax_last_axis does), and its gradients are zero.")},
    };
}

Exercise define(const std::string&) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("the backward pass: the softmax's gradient and attention's");
    e.practised = "softmax_backward_rows and attention_backward";
    e.library_allowed = {"attn::softmax_last_axis"};
    e.mistakes = known_mistakes();
    e.cases = {
        softmax_library_case(tutor::tr("the softmax's backward by hand: P = [0.25, 0.25, 0.5] with dP = [1, 0, 0] "
                                       "(dP · P = 0.25), and P = [0.1, 0.2, 0.7] with dP = [0.5, −1, 2]"),
                             Matrix{{0.25, 0.25, 0.5}, {0.1, 0.2, 0.7}}, Matrix{{1, 0, 0}, {0.5, -1, 2}}),
        random_softmax_case(tutor::tr("the softmax's backward, 4 seeded rows of 5, row 2 all zeros (a query that "
                                      "sees nothing)"),
                            21, 4, 5, 2),
        finite_difference_softmax_case(tutor::tr("the softmax's backward against central finite differences, 3 rows of 4"),
                                       22, 3, 4),
        attention_case(tutor::tr("attention's backward, no mask, B = 2, T = S = 3, d_k = 2, d_v = 3"),
                       random_attention(31, 2, 3, 2, 3, Masking::none)),
        attention_case(tutor::tr("attention's backward, a causal mask and padding (lengths 4 and 3), B = 2, T = S = 4, "
                                 "d_k = 3, d_v = 2"),
                       random_attention(32, 2, 4, 3, 2, Masking::causal, {4, 3})),
        attention_case(tutor::tr("attention's backward, query 1 sees no key (its mask row all 0), a batch of one, "
                                 "T = S = 3, d_k = d_v = 4"),
                       random_attention(33, 1, 3, 4, 4, Masking::padding, {}, {{0, 1}})),
        attention_case(tutor::tr("attention's backward, padding only (lengths 5 and 2), B = 2, T = S = 5, d_k = 2, d_v = 3"),
                       random_attention(34, 2, 5, 2, 3, Masking::padding, {5, 2})),
        finite_difference_attention_case(tutor::tr("attention's backward against central finite differences of the "
                                                   "library's forward, no mask, B = 2, T = S = 4, d_k = 3, d_v = 2"),
                                         random_attention(35, 2, 4, 3, 2, Masking::none)),
        finite_difference_attention_case(tutor::tr("attention's backward against central finite differences, a causal "
                                                   "mask, query 0 hidden from every key, B = 1, T = S = 3, d_k = d_v = 2"),
                                         random_attention(36, 1, 3, 2, 2, Masking::causal, {}, {{0, 0}})),
    };
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
