// `attn run mha`: seed 000's example at its full size — a batch of 8 sequences of 300 random
// tokens, d_model 768, 8 heads — through the library's multi_head_attention, printing the shape
// of every intermediate and how long the computation took.
//
// Why: the lessons use tiny tensors so that every number can be read. This command shows the
// same code on the shapes of a real model, output (8, 300, 768) and attention (8, 8, 300, 300),
// and what they cost. The inputs imitate the seed's: x uniform in [0, 1) (torch.rand), an
// attention_mask of ones, and weights and biases uniform in [−1/√D, 1/√D] (nn.Linear's default
// initialisation), all drawn from std::mt19937 seeded with --seed (default 0). Like seed 000's
// block there is no output projection.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

#include "attn/error.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/shape.hpp"
#include "cli/commands.hpp"
#include "tutor/language.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;
using tutor::trn;

namespace {

// The memory the run needs, counted before anything is allocated, in double arithmetic so that
// no product of the options can wrap: the inputs x (B, T, D), the weights 3·(D, D), every
// intermediate multi_head_attention keeps — q, k, v and their split heads 6·(B, T, D), the
// context, the heads' contexts and the output 3·(B, T, D) — and the scores and weights 2·(B, h, T, T).
// The limit (8 GiB) is documented in `attn run --help`; an option past it is named, not an
// "out of memory" after the fact.
void check_memory(const RunOptions& o) {
    const double B = double(o.batch), T = double(o.seq), D = double(o.d_model), h = double(o.heads);
    const double values = B * T * D * 10 + 3 * D * D + 2 * B * h * T * T;
    const double bytes = values * sizeof(double);
    constexpr double limit = 8.0 * 1024 * 1024 * 1024;
    if (bytes > limit) {
        char text[64];
        std::snprintf(text, sizeof text, "%.3g GiB", bytes / (1024.0 * 1024 * 1024));
        throw InputError(trf("run mha: --batch {1} --seq {2} --d-model {3} --heads {4} would need {5} of memory (the limit is "
                             "8 GiB: the (B, h, T, T) scores and weights, (D, D) weights and (B, T, D) intermediates); "
                             "choose smaller sizes",
                             {std::to_string(o.batch), std::to_string(o.seq), std::to_string(o.d_model),
                              std::to_string(o.heads), text}));
    }
}

template <class Tensor>
void fill_uniform(Tensor& tensor, std::mt19937& generator, double low, double high) {
    std::uniform_real_distribution<double> uniform(low, high);
    for (auto& value : tensor) value = uniform(generator);
}

void print_shape(const std::string& name, const std::vector<std::size_t>& shape, const std::string& note) {
    std::cout << "  " << name << " " << shape_string(shape) << (note.empty() ? "" : "  " + note) << "\n";
}

template <class Tensor>
std::vector<std::size_t> shape_of(const Tensor& t) {
    return std::vector<std::size_t>(t.shape().begin(), t.shape().end());
}

// Seed 000's block: q, k, v projections drawn as nn.Linear initialises them, no W_o.
MultiHeadAttentionWeights random_weights(std::mt19937& generator, std::size_t D) {
    const double bound = 1.0 / std::sqrt(double(D));
    MultiHeadAttentionWeights w;
    for (Matrix* m : {&w.w_q, &w.w_k, &w.w_v}) {
        *m = Matrix::from_shape({D, D});
        fill_uniform(*m, generator, -bound, bound);
    }
    for (Vector* b : {&w.b_q, &w.b_k, &w.b_v}) {
        *b = Vector::from_shape({D});
        fill_uniform(*b, generator, -bound, bound);
    }
    w.no_output_projection = true;  // seed 000's block: BERT's self-attention has no W_o
    return w;
}

// Every row of weights should sum to 1: a cheap sanity check at full size. The largest |sum - 1|.
double worst_row_sum_error(const Tensor4& weights, std::size_t S) {
    double worst = 0.0;
    const std::size_t rows = weights.size() / S;
    for (std::size_t row = 0; row < rows; ++row) {
        double sum = 0.0;
        for (std::size_t s = 0; s < S; ++s) sum += weights.data()[row * S + s];
        worst = std::max(worst, std::abs(sum - 1.0));
    }
    return worst;
}

}  // namespace

int run_seed_example(const GlobalOptions&, const RunOptions& o) {
    if (o.example != "mha") {
        throw InputError(trf("unknown example '{1}'; attn run knows: mha (seed 000's multi-head attention)", {o.example}));
    }
    if (o.d_model % o.heads != 0) {
        throw ShapeError(trf("run mha: --d-model {1} is not a multiple of --heads {2}; each head gets d_k = D / h features, "
                             "so h must divide D",
                             {std::to_string(o.d_model), std::to_string(o.heads)}));
    }
    check_memory(o);
    const std::size_t B = o.batch, T = o.seq, D = o.d_model;

    std::mt19937 generator(o.seed);
    Tensor3 x = Tensor3::from_shape({B, T, D});
    fill_uniform(x, generator, 0.0, 1.0);
    const MultiHeadAttentionWeights w = random_weights(generator, D);
    AttentionOptions options;
    options.attention_mask = Matrix(xt::ones<double>({B, T}));

    const auto start = std::chrono::steady_clock::now();
    const MultiHeadAttentionResult r = multi_head_attention(x, x, x, w, o.heads, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    char sums[32];
    std::snprintf(sums, sizeof sums, "%.1e", worst_row_sum_error(r.weights, T));

    std::cout << tr("attn run mha: seed 000's multi-head attention on seeded random inputs") << "\n  "
              << trn("B = {1}, T = S = {2}, D = {3}, h = {4} head of d_k = {5}, seed {6}; no output projection, as in seed 000",
                     "B = {1}, T = S = {2}, D = {3}, h = {4} heads of d_k = {5}, seed {6}; no output projection, as in seed 000",
                     o.heads,
                     {std::to_string(B), std::to_string(T), std::to_string(D), std::to_string(o.heads),
                      std::to_string(D / o.heads), std::to_string(o.seed)})
              << "\n\n";
    print_shape("x", shape_of(x), tr("query = key = value, uniform in [0, 1)"));
    print_shape("attention_mask", shape_of(*options.attention_mask), tr("all ones: every key attended"));
    print_shape("q", shape_of(r.q), "");
    print_shape("k", shape_of(r.k), "");
    print_shape("v", shape_of(r.v), "");
    print_shape("q_heads", shape_of(r.q_heads), "split_heads: (B, h, T, d_k)");
    print_shape("k_heads", shape_of(r.k_heads), "");
    print_shape("v_heads", shape_of(r.v_heads), "");
    print_shape("scores", shape_of(r.scores), "q_heads k_headsᵀ / √d_k");
    print_shape("attention", shape_of(r.weights), trf("the weights, per head; every row sums to 1 (max |sum - 1| = {1})", {sums}));
    print_shape("context_heads", shape_of(r.context_heads), "");
    print_shape("output", shape_of(r.output), tr("merge_heads: the heads side by side"));
    char took[32];
    std::snprintf(took, sizeof took, "%.3f", seconds);
    std::cout << "\n" << trf("multi_head_attention took {1} s (float64; drawing the inputs is not counted)", {took}) << "\n";
    return exit_success;
}

}  // namespace attn::cli
