// Lesson 8 — embeddings and positions (lessons/08-positions/README.md).
//
// Computes, for each example of the document, depending on its inputs:
//   weight (V, D), ids (B, T)    → embedded (B, T, D)            attn::embedding
//                                  scaled_embedded               embedded · √D
//   x (B, T, D), order (T)       → output, output_swapped, output_reordered (B, T, D): lesson 4's
//                                  attention (Q = K = V = x) on x and on x's tokens reordered;
//                                  largest_difference (1); the same with the sinusoidal table added:
//                                  x_positioned, positioned_output, positioned_output_swapped,
//                                  positioned_difference
//   length [T], d_model [D]      → frequencies (D/2), angles (T, D/2), pe (T, D), pe_dot (T, T)
//                                                                attn::sinusoidal_positions
//     and shift [k]              → rotation (D/2, 2, 2), pe_rotated (T, D): each pair of pe turned
//                                  by k·ω_i; pe_shifted (T, D): rows k … k + T − 1 of a longer table
//   q (B, h, T, d_k), k (B, h, S, d_k), positions_q (T), positions_k (S)
//                                → q_pairs, k_pairs, dots_pairs, scores_pairs and the same for
//                                  halves                        attn::rotary_embedding
//                                  q_converted, k_converted, dots_converted: the pairs layout's
//                                  features reordered for the halves layout
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>
#include <xtensor/xview.hpp>

#include "attn/embedding.hpp"
#include "attn/error.hpp"
#include "attn/matmul.hpp"
#include "attn/positions.hpp"
#include "attn/rotary.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/shape.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

// Sizes and positions in the document are small; these bounds keep `attn check` quick and every
// conversion to an integer defined (LessonInputs::get_counts refuses anything else).
constexpr std::size_t largest_size = 1024;
constexpr std::size_t largest_position = 1000000;

std::size_t read_size(const LessonInputs& inputs, const std::string& name) {
    return static_cast<std::size_t>(inputs.get_counts(name, 1, "(1)", 1, largest_size)(0));
}

std::vector<std::int64_t> read_positions(const LessonInputs& inputs, const std::string& name, const std::string& legend) {
    const DynamicTensor values = inputs.get_counts(name, 1, legend, 0, largest_position);
    return std::vector<std::int64_t>(values.begin(), values.end());
}

NamedTensors embeddings(const LessonInputs& inputs) {
    const Matrix weight = inputs.get("weight", 2, "(V, D)");
    const DynamicTensor ids = inputs.get_counts("ids", 2, "(B, T)", 0, largest_position);
    IdTensor id_table = IdTensor::from_shape({ids.shape(0), ids.shape(1)});
    std::copy(ids.begin(), ids.end(), id_table.begin());
    const Tensor3 embedded = embedding(weight, id_table);  // an id ≥ V is the library's InputError
    // The Annotated Transformer's Embeddings.forward: the looked-up rows times √d_model.
    const Tensor3 scaled = embedded * std::sqrt(static_cast<double>(weight.shape(1)));
    return {{"embedded", embedded}, {"scaled_embedded", scaled}};
}

// ── Why positions: the same attention on a sentence and on its tokens in another order ──────────

// `order` must name each of the T positions once: the second sentence is x's rows in that order.
std::vector<std::size_t> read_permutation(const LessonInputs& inputs, std::size_t T) {
    const DynamicTensor order = inputs.get_counts("order", 1, "(T)", 0, T == 0 ? 0 : T - 1);
    std::vector<std::size_t> permutation(order.begin(), order.end());
    std::vector<bool> seen(T, false);
    for (std::size_t position : permutation) seen[position] = true;
    if (permutation.size() != T || std::find(seen.begin(), seen.end(), false) != seen.end()) {
        throw InputError("input 'order' must list each of the " + std::to_string(T) +
                         " positions of x (B, T, D) once, such as [0, 2, 1]");
    }
    return permutation;
}

Tensor3 reorder_tokens(const Tensor3& x, const std::vector<std::size_t>& permutation) {
    Tensor3 reordered = Tensor3::from_shape(x.shape());
    for (std::size_t b = 0; b < x.shape(0); ++b)
        for (std::size_t t = 0; t < x.shape(1); ++t)
            for (std::size_t d = 0; d < x.shape(2); ++d) reordered(b, t, d) = x(b, permutation[t], d);
    return reordered;
}

Tensor3 self_attention(const Tensor3& x) { return scaled_dot_product_attention(x, x, x).output; }

// The largest |swapped[t'] − original[t]| over the rows, where t' is the place token t moved to.
Vector largest_difference(const Tensor3& original, const Tensor3& swapped, const std::vector<std::size_t>& permutation) {
    double largest = 0.0;
    for (std::size_t b = 0; b < original.shape(0); ++b)
        for (std::size_t t = 0; t < original.shape(1); ++t)
            for (std::size_t d = 0; d < original.shape(2); ++d)
                largest = std::max(largest, std::abs(swapped(b, t, d) - original(b, permutation[t], d)));
    return Vector({largest});
}

NamedTensors word_order(const LessonInputs& inputs) {
    const Tensor3 x = inputs.get("x", 3, "(B, T, D)");
    const std::vector<std::size_t> permutation = read_permutation(inputs, x.shape(1));
    const Tensor3 swapped = reorder_tokens(x, permutation);
    const Tensor3 output = self_attention(x), output_swapped = self_attention(swapped);

    Tensor3 positioned = x, positioned_swapped = swapped;
    const Matrix pe = sinusoidal_positions(x.shape(1), x.shape(2));  // (T, D), the same rows for both sentences
    for (std::size_t b = 0; b < x.shape(0); ++b) {
        xt::view(positioned, b) += pe;
        xt::view(positioned_swapped, b) += pe;
    }
    const Tensor3 positioned_output = self_attention(positioned);
    const Tensor3 positioned_output_swapped = self_attention(positioned_swapped);
    return {{"output", output},
            {"output_swapped", output_swapped},
            {"output_reordered", reorder_tokens(output, permutation)},
            {"largest_difference", largest_difference(output, output_swapped, permutation)},
            {"x_positioned", positioned},
            {"positioned_output", positioned_output},
            {"positioned_output_swapped", positioned_output_swapped},
            {"positioned_difference", largest_difference(positioned_output, positioned_output_swapped, permutation)}};
}

// ── The sinusoidal table ────────────────────────────────────────────────────────────────────────

// Step 7: each pair (sin a, cos a) of `pe` turned by φ_i = shift · ω_i, with the matrix
// [[cos φ, sin φ], [−sin φ, cos φ]], which gives (sin(a + φ), cos(a + φ)).
void add_rotation(const Matrix& pe, const Vector& frequencies, std::size_t shift, NamedTensors& out) {
    const std::size_t T = pe.shape(0), pairs = frequencies.size();
    Tensor3 rotation = Tensor3::from_shape({pairs, 2, 2});
    Matrix rotated = Matrix::from_shape(pe.shape());
    for (std::size_t i = 0; i < pairs; ++i) {
        const double phi = static_cast<double>(shift) * frequencies(i);
        rotation(i, 0, 0) = std::cos(phi), rotation(i, 0, 1) = std::sin(phi);
        rotation(i, 1, 0) = -std::sin(phi), rotation(i, 1, 1) = std::cos(phi);
        for (std::size_t p = 0; p < T; ++p) {
            const double sine = pe(p, 2 * i), cosine = pe(p, 2 * i + 1);
            rotated(p, 2 * i) = rotation(i, 0, 0) * sine + rotation(i, 0, 1) * cosine;
            rotated(p, 2 * i + 1) = rotation(i, 1, 0) * sine + rotation(i, 1, 1) * cosine;
        }
    }
    const Matrix longer = sinusoidal_positions(T + shift, pe.shape(1));
    out["rotation"] = rotation;
    out["pe_rotated"] = rotated;
    out["pe_shifted"] = Matrix(xt::view(longer, xt::range(shift, shift + T), xt::all()));
}

NamedTensors sinusoid(const LessonInputs& inputs) {
    const std::size_t T = read_size(inputs, "length"), D = read_size(inputs, "d_model");
    const Matrix pe = sinusoidal_positions(T, D);  // (T, D); an odd D is the library's InputError
    // ω_i = 10000^(−2i/D) and the angles p · ω_i, as step 4 writes them: the table holds only their
    // sines and cosines.
    Vector frequencies = Vector::from_shape({D / 2});
    for (std::size_t i = 0; i < D / 2; ++i) frequencies(i) = std::pow(10000.0, -2.0 * double(i) / double(D));
    Matrix angles = Matrix::from_shape({T, D / 2});
    for (std::size_t p = 0; p < T; ++p)
        for (std::size_t i = 0; i < D / 2; ++i) angles(p, i) = double(p) * frequencies(i);
    NamedTensors out = {{"frequencies", frequencies}, {"angles", angles}, {"pe", pe},
                        {"pe_dot", matmul_transposed(pe, pe)}};
    if (inputs.has("shift")) add_rotation(pe, frequencies, read_size(inputs, "shift"), out);
    return out;
}

// ── RoPE ────────────────────────────────────────────────────────────────────────────────────────

// The features of a pairs-layout row reordered for the halves layout: 2i → i, 2i + 1 → i + d_k/2.
Tensor4 pairs_to_halves(const Tensor4& x) {
    const std::size_t d_k = x.shape(3);
    Tensor4 out = Tensor4::from_shape(x.shape());
    for (std::size_t row = 0; row < x.size() / d_k; ++row)
        for (std::size_t i = 0; i < d_k / 2; ++i) {
            out.data()[row * d_k + i] = x.data()[row * d_k + 2 * i];
            out.data()[row * d_k + i + d_k / 2] = x.data()[row * d_k + 2 * i + 1];
        }
    return out;
}

NamedTensors rope(const LessonInputs& inputs) {
    const Tensor4 q = inputs.get("q", 4, "(B, h, T, d_k)"), k = inputs.get("k", 4, "(B, h, S, d_k)");
    const std::vector<std::int64_t> positions_q = read_positions(inputs, "positions_q", "(T)");
    const std::vector<std::int64_t> positions_k = read_positions(inputs, "positions_k", "(S)");
    // Named here, so that a mismatch speaks of q, k and their positions rather than of a product's operands.
    check_shapes("", {{"q", q, "B,h,T,d_k"},
                      {"k", k, "B,h,S,d_k"},
                      {"positions_q", std::vector<std::size_t>{positions_q.size()}, "T"},
                      {"positions_k", std::vector<std::size_t>{positions_k.size()}, "S"}});
    NamedTensors out;
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.shape(3)));
    for (const auto& [layout, name] : {std::pair{RopeLayout::pairs, "pairs"}, std::pair{RopeLayout::halves, "halves"}}) {
        const Tensor4 q_rotated = rotary_embedding(q, positions_q, layout);
        const Tensor4 k_rotated = rotary_embedding(k, positions_k, layout);
        const Tensor4 dots = matmul_transposed(q_rotated, k_rotated);  // (B, h, T, S): q'_m · k'_n
        out[std::string("q_") + name] = q_rotated;
        out[std::string("k_") + name] = k_rotated;
        out[std::string("dots_") + name] = dots;
        out[std::string("scores_") + name] = Tensor4(dots * scale);  // lesson 4's scores: ÷ √d_k
    }
    const Tensor4 q_converted = pairs_to_halves(q), k_converted = pairs_to_halves(k);
    out["q_converted"] = q_converted;
    out["k_converted"] = k_converted;
    out["dots_converted"] = matmul_transposed(rotary_embedding(q_converted, positions_q, RopeLayout::halves),
                                         rotary_embedding(k_converted, positions_k, RopeLayout::halves));
    return out;
}

NamedTensors compute(const std::string&, const LessonInputs& inputs) {
    if (inputs.has("weight")) return embeddings(inputs);
    if (inputs.has("order")) return word_order(inputs);
    if (inputs.has("q")) return rope(inputs);
    return sinusoid(inputs);
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
