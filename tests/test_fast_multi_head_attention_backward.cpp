// Tests of attn/fast/multi_head_attention_backward.hpp against the lesson path's double backward
// (attn::multi_head_attention_backward, itself checked against finite differences and PyTorch's
// autograd): the same random inputs in float32 and in double, self- and cross-attention (T ≠ S),
// causal, a padding mask with a batch item whose keys are all padding, no biases, no output
// projection, tiles that divide neither T nor S, 1 and 2 threads, every instruction set this CPU
// runs; the saved log-sum-exp; the policies (zeros for a query with no key, no gradient into a
// padded key); the errors.
//
// Tolerance: 2e-5 absolute plus 2e-5 relative. Why: the inputs are uniform in [-1, 1] and the
// weights in ±1/√D, so every value is of order 1 and every gradient a sum of at most
// B·max(T, S) ≈ 50 products of such values; float32's rounding (6e-8 relative per operation,
// growing as √n over n terms, e^(S − L) recomputed from an L rounded to float32) leaves errors
// near 1e-6 — every case below passes at 3e-6 absolute plus 3e-6 relative — and a wrong formula
// (a transpose, a missing scale, a mask ignored) is off by far more than 1e-2.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include <xtensor/xview.hpp>

#include "attn/error.hpp"
#include "attn/fast.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/multi_head_attention_backward.hpp"
#include "support/fast_guards.hpp"
#include "support/fast_inputs.hpp"
#include "support/tensor_match.hpp"

using attn::testing::error_message;
using attn::testing::lesson_weights;
using attn::testing::random_fast_parameters;
using attn::testing::random_float;
using attn::testing::widen;

namespace {

constexpr double tolerance = 2e-5;

struct Inputs {
    attn::fast::Tensor3 query, key, value, grad_output;
    attn::fast::AttentionParameters parameters;
    std::optional<attn::fast::Matrix> mask;
    bool causal = false;
};

// The lesson path's forward and backward on the same numbers in double.
attn::MultiHeadAttentionGradients expected_gradients(const Inputs& in, std::size_t heads) {
    attn::AttentionOptions options;
    options.causal = in.causal;
    if (in.mask) options.attention_mask = attn::Matrix(widen(*in.mask));
    const attn::MultiHeadAttentionWeights weights = lesson_weights(in.parameters);
    const attn::Tensor3 query = widen(in.query), key = widen(in.key), value = widen(in.value);
    const auto forward = attn::multi_head_attention(query, key, value, weights, heads, options);
    return attn::multi_head_attention_backward(query, key, value, weights, heads, forward, widen(in.grad_output), options);
}

attn::fast::AttentionOptions fast_options(const Inputs& in, std::size_t heads, std::size_t query_tile, std::size_t key_tile) {
    attn::fast::AttentionOptions options(heads);
    options.causal = in.causal;
    options.attention_mask = in.mask;
    options.query_tile = query_tile;
    options.key_tile = key_tile;
    return options;
}

attn::fast::AttentionGradients fast_gradients(const Inputs& in, const attn::fast::AttentionOptions& options) {
    const auto forward = attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters, options);
    return attn::fast::multi_head_attention_backward(in.query, in.key, in.value, in.parameters, options, forward,
                                                     in.grad_output);
}

// Every gradient the fast path returns against the lesson path's; the biases the fast parameters
// lack must be absent from its gradients too.
void check_gradients(const attn::MultiHeadAttentionGradients& expected, const attn::fast::AttentionGradients& got,
                     const attn::fast::AttentionParameters& parameters) {
    CHECK_TENSOR_CLOSE(expected.query, got.query, tolerance, tolerance);
    CHECK_TENSOR_CLOSE(expected.key, got.key, tolerance, tolerance);
    CHECK_TENSOR_CLOSE(expected.value, got.value, tolerance, tolerance);
    const attn::fast::AttentionParameters& g = got.parameters;
    CHECK_TENSOR_CLOSE(expected.weights.w_q, g.w_q, tolerance, tolerance);
    CHECK_TENSOR_CLOSE(expected.weights.w_k, g.w_k, tolerance, tolerance);
    CHECK_TENSOR_CLOSE(expected.weights.w_v, g.w_v, tolerance, tolerance);
    const std::pair<const attn::Vector*, const std::optional<attn::fast::Vector>*> biases[] = {
        {&expected.weights.b_q, &g.b_q}, {&expected.weights.b_k, &g.b_k}, {&expected.weights.b_v, &g.b_v}};
    const std::optional<attn::fast::Vector>* given[] = {&parameters.b_q, &parameters.b_k, &parameters.b_v};
    for (std::size_t i = 0; i < 3; ++i) {
        REQUIRE(biases[i].second->has_value() == given[i]->has_value());
        if (*biases[i].second) CHECK_TENSOR_CLOSE(*biases[i].first, **biases[i].second, tolerance, tolerance);
    }
    REQUIRE(g.w_o.has_value() == parameters.w_o.has_value());
    REQUIRE(g.b_o.has_value() == parameters.b_o.has_value());
    CHECK(g.no_output_projection == parameters.no_output_projection);
    if (g.w_o) CHECK_TENSOR_CLOSE(*expected.weights.w_o, *g.w_o, tolerance, tolerance);
    if (g.b_o) CHECK_TENSOR_CLOSE(*expected.weights.b_o, *g.b_o, tolerance, tolerance);
}

enum class Projections { all, no_bias, no_output_projection };

Inputs random_inputs(std::mt19937& generator, std::size_t B, std::size_t T, std::size_t S, std::size_t D,
                     Projections projections, bool self_attention) {
    Inputs in;
    in.query = random_float<3>(generator, {B, T, D});
    in.key = self_attention ? in.query : random_float<3>(generator, {B, S, D});
    in.value = self_attention ? in.query : random_float<3>(generator, {B, S, D});
    in.grad_output = random_float<3>(generator, {B, T, D});
    in.parameters = random_fast_parameters(generator, D, projections != Projections::no_output_projection);
    if (projections == Projections::no_bias) in.parameters.b_q = in.parameters.b_k = in.parameters.b_v = in.parameters.b_o = std::nullopt;
    return in;
}

// Batch item 1 loses its last keys, batch item 2 every key (its queries see none).
attn::fast::Matrix padding_mask(std::size_t B, std::size_t S) {
    attn::fast::Matrix mask = xt::ones<float>({B, S});
    for (std::size_t s = S / 2; s < S; ++s) mask(1, s) = 0.0f;
    for (std::size_t s = 0; s < S; ++s) mask(2, s) = 0.0f;
    return mask;
}

}  // namespace

TEST_CASE("the fast backward agrees with the lesson path's in every form, tile and thread count", "[fast_backward]") {
    attn::testing::ThreadsGuard threads;
    std::mt19937 generator(29);
    const std::size_t B = 3, D = 32, h = 4;
    struct Shape {
        std::size_t T, S;
        bool self_attention;
    };
    struct Tiles {
        std::size_t query, key;
    };
    for (const Shape shape : {Shape{13, 13, true}, Shape{11, 17, false}, Shape{17, 11, false}}) {
        for (const Projections projections : {Projections::all, Projections::no_bias, Projections::no_output_projection}) {
            Inputs in = random_inputs(generator, B, shape.T, shape.S, D, projections, shape.self_attention);
            for (const bool padding : {false, true}) {
                in.mask = padding ? std::optional<attn::fast::Matrix>(padding_mask(B, shape.S)) : std::nullopt;
                for (const bool causal : {false, true}) {
                    in.causal = causal;
                    const auto expected = expected_gradients(in, h);
                    for (const Tiles tiles : {Tiles{3, 5}, Tiles{4, 16}, Tiles{64, 512}}) {
                        for (const int thread_count : {1, 2}) {
                            INFO("T " << shape.T << " S " << shape.S << " self " << shape.self_attention << " projections "
                                      << int(projections) << " padding " << padding << " causal " << causal << " tiles "
                                      << tiles.query << " x " << tiles.key << " threads " << thread_count);
                            attn::fast::set_threads(thread_count);
                            const auto got = fast_gradients(in, fast_options(in, h, tiles.query, tiles.key));
                            check_gradients(expected, got, in.parameters);
                        }
                    }
                }
            }
        }
    }
}

// A training loop keeps one result, one gradient and one workspace from call to call: each call
// must overwrite every value the one before left, whatever the shapes and projections were.
TEST_CASE("the fast backward into kept buffers agrees with the lesson path's after any earlier call", "[fast_backward]") {
    attn::testing::ThreadsGuard threads;
    std::mt19937 generator(31);
    const std::size_t B = 3, D = 16, h = 2;
    attn::fast::AttentionTrainingResult forward;
    attn::fast::AttentionGradients got;
    attn::fast::AttentionTrainingWorkspace workspace;
    struct Call {
        std::size_t T, S;
        Projections projections;
        bool padding, causal;
    };
    const Call calls[] = {{9, 10, Projections::all, true, false},    {10, 10, Projections::no_bias, false, true},
                          {9, 10, Projections::no_output_projection, false, false},
                          {9, 10, Projections::all, false, true},    {12, 7, Projections::all, true, false}};
    for (const int thread_count : {1, 2}) {
        attn::fast::set_threads(thread_count);
        for (const Call& call : calls) {
            INFO("T " << call.T << " S " << call.S << " projections " << int(call.projections) << " padding "
                      << call.padding << " causal " << call.causal << " threads " << thread_count);
            Inputs in = random_inputs(generator, B, call.T, call.S, D, call.projections, call.T == call.S);
            in.mask = call.padding ? std::optional<attn::fast::Matrix>(padding_mask(B, call.S)) : std::nullopt;
            in.causal = call.causal;
            const auto options = fast_options(in, h, 4, 4);
            attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters, options, forward,
                                                          workspace);
            const auto fresh = attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters,
                                                                             options);
            CHECK_TENSOR_CLOSE(fresh.output, forward.output, 0.0, 0.0);
            CHECK_TENSOR_CLOSE(fresh.log_sum_exp, forward.log_sum_exp, 0.0, 0.0);
            attn::fast::multi_head_attention_backward(in.query, in.key, in.value, in.parameters, options, forward,
                                                      in.grad_output, got, workspace);
            check_gradients(expected_gradients(in, h), got, in.parameters);
        }
    }
}

// The attention weights' dropout: the lesson path draws a mask (B, h, T, S) from a seeded
// generator; the fast path is given the same mask as factors (0 or 1/(1 − p)) and must give the
// same output and gradients (the lesson path's own gradients with a mask are checked against
// central differences in tests/test_seq2seq_dropout.cpp).
TEST_CASE("the fast training passes with the weights' dropout agree with the lesson path's given the same mask",
          "[fast_backward][dropout]") {
    attn::testing::ThreadsGuard threads;
    std::mt19937 generator(37);
    const std::size_t B = 3, D = 16, h = 2;
    struct Call {
        std::size_t T, S;
        double p;
        bool causal, padding;
    };
    for (const Call call : {Call{9, 10, 0.1, false, true}, Call{10, 10, 0.5, true, false}, Call{7, 13, 1.0, false, false}}) {
        Inputs in = random_inputs(generator, B, call.T, call.S, D, Projections::all, call.T == call.S);
        in.mask = call.padding ? std::optional<attn::fast::Matrix>(padding_mask(B, call.S)) : std::nullopt;
        in.causal = call.causal;
        // The lesson path with the dropout drawn from a seeded generator.
        std::mt19937 masks(call.T * 100 + call.S);
        attn::MultiHeadAttentionOptions lesson_options;
        lesson_options.causal = in.causal;
        if (in.mask) lesson_options.attention_mask = attn::Matrix(widen(*in.mask));
        lesson_options.weights_dropout = attn::Dropout(call.p, masks);
        const attn::MultiHeadAttentionWeights weights = lesson_weights(in.parameters);
        const attn::Tensor3 query = widen(in.query), key = widen(in.key), value = widen(in.value);
        const auto expected_forward = attn::multi_head_attention(query, key, value, weights, h, lesson_options);
        const auto expected = attn::multi_head_attention_backward(query, key, value, weights, h, expected_forward,
                                                                  widen(in.grad_output), lesson_options);
        const auto& mask = expected_forward.weights_dropout;
        REQUIRE(mask.kept.size() == B * h * call.T * call.S);
        std::vector<float> factors(mask.kept.size());
        for (std::size_t i = 0; i < factors.size(); ++i) factors[i] = static_cast<float>(mask.kept.data()[i] * mask.scale);
        for (const int thread_count : {1, 2}) {
            INFO("T " << call.T << " S " << call.S << " p " << call.p << " causal " << call.causal << " padding "
                      << call.padding << " threads " << thread_count);
            attn::fast::set_threads(thread_count);
            attn::fast::AttentionTrainingResult forward;
            attn::fast::AttentionGradients got;
            attn::fast::AttentionTrainingWorkspace workspace;
            const auto options = fast_options(in, h, 4, 4);
            attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters, options, forward,
                                                          workspace, &factors);
            CHECK_TENSOR_CLOSE(expected_forward.output, forward.output, tolerance, tolerance);
            attn::fast::multi_head_attention_backward(in.query, in.key, in.value, in.parameters, options, forward,
                                                      in.grad_output, got, workspace, &factors);
            check_gradients(expected, got, in.parameters);
        }
    }
    // Factors of the wrong size are named.
    Inputs in = random_inputs(generator, 2, 5, 5, D, Projections::all, true);
    const std::vector<float> short_factors(2 * h * 5 * 5 - 1, 1.0f);
    attn::fast::AttentionTrainingResult forward;
    attn::fast::AttentionTrainingWorkspace workspace;
    CHECK_THROWS_WITH(attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters,
                                                                    fast_options(in, h, 4, 4), forward, workspace,
                                                                    &short_factors),
                      Catch::Contains("weights_dropout holds 99 factors") && Catch::Contains("(2, 2, 5, 5) need 100"));
}

TEST_CASE("the fast backward agrees with the lesson path's with every instruction set", "[fast_backward]") {
    attn::testing::ThreadsGuard threads;
    attn::testing::SimdGuard simd_guard;
    std::mt19937 generator(30);
    Inputs in = random_inputs(generator, 3, 21, 21, 32, Projections::all, true);
    in.mask = padding_mask(3, 21);
    in.causal = true;
    const auto expected = expected_gradients(in, 4);
    for (const auto simd : attn::fast::detail::available_simd()) {
        for (const int thread_count : {1, 2}) {
            INFO("instruction set " << int(simd) << " threads " << thread_count);
            attn::fast::detail::use_simd(simd);
            attn::fast::set_threads(thread_count);
            check_gradients(expected, fast_gradients(in, fast_options(in, 4, 8, 7)), in.parameters);
        }
    }
}

TEST_CASE("the training forward gives the tiled output and L = log Σ e^score per query", "[fast_backward]") {
    std::mt19937 generator(31);
    const std::size_t B = 3, T = 9, S = 6, D = 16, h = 2, dk = D / h;
    Inputs in = random_inputs(generator, B, T, S, D, Projections::all, false);
    in.mask = padding_mask(B, S);
    auto options = fast_options(in, h, 4, 4);
    const auto forward = attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters, options);
    options.need_weights = false;
    const auto plain = attn::fast::multi_head_attention(in.query, in.key, in.value, in.parameters, options);
    CHECK_TENSOR_CLOSE(plain.output, forward.output, 0.0, 0.0);  // the same computation, bit for bit
    // L recomputed here in double from the saved q and k: log Σ_s e^(q_t · k_s / √d_k) over the kept keys.
    attn::Tensor3 expected = xt::zeros<double>({B, h, T});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < h; ++j)
            for (std::size_t t = 0; t < T; ++t) {
                double sum = 0;
                for (std::size_t s = 0; s < S; ++s) {
                    if ((*in.mask)(b, s) == 0.0f) continue;
                    double score = 0;
                    for (std::size_t i = 0; i < dk; ++i) score += double(forward.q(b, t, j * dk + i)) * double(forward.k(b, s, j * dk + i));
                    sum += std::exp(score / std::sqrt(double(dk)));
                }
                expected(b, j, t) = sum > 0 ? std::log(sum) : std::numeric_limits<double>::infinity();
            }
    // Batch item 2 sees no key: L = +∞ (compared apart, as ∞ − ∞ is no difference).
    for (std::size_t j = 0; j < h; ++j)
        for (std::size_t t = 0; t < T; ++t) {
            CHECK(std::isinf(forward.log_sum_exp(2, j, t)));
            CHECK(forward.log_sum_exp(2, j, t) > 0);
        }
    const attn::Tensor3 expected_seen = xt::view(expected, xt::range(0, 2));
    const attn::fast::Tensor3 got_seen = xt::view(forward.log_sum_exp, xt::range(0, 2));
    CHECK_TENSOR_CLOSE(expected_seen, got_seen, 1e-5, 1e-5);
}

TEST_CASE("the fast backward gives zeros to a query with no key and to padded keys, never NaN", "[fast_backward]") {
    std::mt19937 generator(32);
    const std::size_t B = 3, T = 7, S = 10, D = 16;
    Inputs in = random_inputs(generator, B, T, S, D, Projections::all, false);
    in.mask = padding_mask(B, S);
    const auto got = fast_gradients(in, fast_options(in, 2, 4, 4));
    for (const float g : got.query) REQUIRE(std::isfinite(g));
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t i = 0; i < D; ++i) CHECK(got.query(2, t, i) == 0.0f);  // item 2: every key padded
    for (std::size_t s = 0; s < S; ++s)
        for (std::size_t i = 0; i < D; ++i) {
            CHECK(got.key(2, s, i) == 0.0f);
            CHECK(got.value(2, s, i) == 0.0f);
            if (s >= S / 2) {  // item 1's padded keys
                CHECK(got.key(1, s, i) == 0.0f);
                CHECK(got.value(1, s, i) == 0.0f);
            }
        }
}

TEST_CASE("the fast backward names grad_output and the forward's tensors when they do not fit", "[fast_backward][errors]") {
    std::mt19937 generator(33);
    Inputs in = random_inputs(generator, 2, 5, 5, 8, Projections::all, true);
    const auto options = fast_options(in, 2, 64, 512);
    const auto forward = attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters, options);
    auto message = [&](const attn::fast::Tensor3& grad_output, const attn::fast::AttentionTrainingResult& saved) {
        try {
            attn::fast::multi_head_attention_backward(in.query, in.key, in.value, in.parameters, options, saved, grad_output);
        } catch (const attn::ShapeError& e) {
            return std::string(e.what());
        }
        return std::string("(no ShapeError)");
    };
    using Catch::Matchers::Contains;
    const attn::fast::Tensor3 short_grad = random_float<3>(generator, {2, 4, 8});
    CHECK_THAT(message(short_grad, forward), Contains("grad_output") && Contains("(2, 4, 8)"));
    auto wrong = forward;
    wrong.log_sum_exp = xt::zeros<float>({2, 3, 5});
    CHECK_THAT(message(in.grad_output, wrong), Contains("forward.log_sum_exp") && Contains("(2, 3, 5)"));
    wrong = forward;
    wrong.k = xt::zeros<float>({2, 6, 8});
    CHECK_THAT(message(in.grad_output, wrong), Contains("forward.k") && Contains("(2, 6, 8)"));

    attn::fast::Tensor3 nan_grad = in.grad_output;
    nan_grad(1, 2, 3) = std::numeric_limits<float>::quiet_NaN();
    CHECK_THAT(error_message([&] {
                   attn::fast::multi_head_attention_backward(in.query, in.key, in.value, in.parameters, options, forward, nan_grad);
               }),
               Contains("grad_output[1, 2, 3] is nan"));
    auto with_rope = options;
    with_rope.rope.emplace();
    CHECK_THAT(error_message([&] {
                   attn::fast::multi_head_attention_for_training(in.query, in.key, in.value, in.parameters, with_rope);
               }),
               Contains("options.rope"));
    CHECK_THAT(error_message([&] {
                   attn::fast::multi_head_attention_backward(in.query, in.key, in.value, in.parameters, with_rope, forward,
                                                             in.grad_output);
               }),
               Contains("options.rope"));
}

TEST_CASE("the fast backward counts the causal tiles it skips and the products it computes", "[fast_backward]") {
    std::mt19937 generator(34);
    const std::size_t B = 2, T = 12, D = 8, h = 2, dk = D / h;
    Inputs in = random_inputs(generator, B, T, T, D, Projections::all, true);
    in.causal = true;
    const auto got = fast_gradients(in, fast_options(in, h, 4, 4));
    // 3 × 3 tile pairs per head; causal: the 3 above the diagonal skipped, 6 computed, each 4 × 4,
    // five products of 2 · 4 · 4 · d_k FLOPs.
    CHECK(got.work.tiles_computed == B * h * 6);
    CHECK(got.work.tiles_skipped == B * h * 3);
    CHECK(got.work.attention_flops == Approx(double(B * h * 6) * 5 * 2 * 4 * 4 * dk));
}
