// Lesson 10 — how attention learns: the backward pass (lessons/10-backward/README.md).
//
// Example "softmax": from a row of weights p (1, S) and an upstream gradient dp (1, S):
//   weights (1, S)           softmax(log p), p again
//   jacobian (S, S)          diag(p) − p pᵀ, built once to be looked at
//   ds_from_jacobian (1, S)  dp times the Jacobian
//   ds (1, S)                attn::softmax_backward: p ∘ (dp − rowsum(dp ∘ p)), no Jacobian
// Examples "main" and "masked": from Q (B, T, d_k), K (B, S, d_k), V (B, S, d_v), the upstream
// gradient dO (B, T, d_v) and, in "masked", attention_mask (B, S):
//   weights, output (lesson 4)         attn::scaled_dot_product_attention
//   dV, dQ, dK                         attn::scaled_dot_product_attention_backward
//   dP (B, T, S) = dO Vᵀ,  dS (B, T, S) = attn::softmax_backward(P, dP)
//   dV_of_sum (B, S, d_v)              the backward with dO all ones: ∂ sum(output) / ∂V
//   column_sums (B, S)                 Σ_t P_ts, which every column of dV_of_sum repeats
//   fd_dQ, fd_dK, fd_dV                central finite differences of Σ output ∘ dO
//   rowsum_dP_P (B, T), D (B, T)       Σ_s dP ∘ P and Σ_v dO ∘ O, the same numbers
// Example "tiled": the same inputs and query_tile, key_tile [1]; besides all of the above,
//   logsumexp (B, T)   L = m + log l from attn::online_softmax_attention's last tile
//   tiled_D (B, T)     rowsum(dO ∘ O) from the online output
//   tiled_dQ, tiled_dK, tiled_dV   FlashAttention's backward: P recomputed tile by tile from L
// Example "linear": from x (N, in), weight (out, in), dY (N, out): dX, dW, db (attn::linear_backward).
// Example "layer_norm": from x (N, D), gamma (D), dy (N, D), β = 0, eps = 1e-5: dx, dgamma, dbeta
// (attn::layer_norm_backward).
// Example "layer": self-attention of x (B, T, D) through a multi-head layer (heads [h], w_q … w_o
// (D, D), b_q … b_o (D)) and an upstream gradient doutput (B, T, D), backwards one step at a time:
//   dcontext, dW_o, db_o       attn::linear_backward of the output projection
//   dcontext_heads (B, h, T, d_k)   split_heads(dcontext): the merge's inverse reshape
//   dq_heads, dk_heads, dv_heads    each head's attn::scaled_dot_product_attention_backward
//   dq, dk, dv (B, T, D)       merge_heads: the split's inverse reshape
//   dW_q, db_q … dW_v, db_v    attn::linear_backward of the input projections
//   dx (B, T, D)               the three projections' dX added (x is the query, key and value)
//   fd_relative_error (9)      for x, w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o: max |finite
//                              difference − attn::multi_head_attention_backward| over that tensor,
//                              divided by the largest entry of any of the layer's gradients
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/layer_norm.hpp"
#include "attn/layer_norm_backward.hpp"
#include "attn/linear_backward.hpp"
#include "attn/matmul.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/multi_head_attention_backward.hpp"
#include "attn/online_softmax_attention.hpp"
#include "attn/scaled_dot_product_attention.hpp"
#include "attn/scaled_dot_product_attention_backward.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "attn/softmax_backward.hpp"
#include "tutor/lesson/lesson_registration.hpp"

namespace attn::tutor {

namespace {

// The softmax's Jacobian for one row, ∂p_i/∂s_j = p_i (δ_ij − p_j): the (S, S) matrix the
// backward never builds, shown once on a row of three.
Matrix softmax_jacobian(const Vector& p) {
    const std::size_t S = p.size();
    Matrix jacobian = Matrix::from_shape({S, S});
    for (std::size_t i = 0; i < S; ++i)
        for (std::size_t j = 0; j < S; ++j) jacobian(i, j) = (i == j ? p(i) : 0.0) - p(i) * p(j);
    return jacobian;
}

NamedTensors softmax_by_hand(const LessonInputs& inputs) {
    const Matrix p_row = inputs.get("p", 2, "(1, S)"), dp = inputs.get("dp", 2, "(1, S)");
    if (p_row.shape(0) != 1 || dp.shape() != p_row.shape()) {
        throw InputError("inputs 'p' and 'dp' must both be one row (1, S) of the same length");
    }
    // softmax(log p) is p / Σ p: the row of weights whose scores are log p.
    for (const double weight : p_row) {
        if (!(weight > 0.0 && weight < std::numeric_limits<double>::infinity()))
            throw InputError("input 'p' must hold positive finite weights, such as [[0.25, 0.25, 0.5]]");
    }
    const Matrix weights = softmax_last_axis(Matrix(xt::log(p_row)));
    const Matrix jacobian = softmax_jacobian(Vector(xt::flatten(weights)));
    NamedTensors out;
    out["weights"] = weights;
    out["jacobian"] = jacobian;
    out["ds_from_jacobian"] = matmul(dp, jacobian);
    out["ds"] = softmax_backward(weights, dp);
    return out;
}

// Way 1 of checking: the loss is Σ O ∘ dO (its gradient with respect to O is dO), and each of
// `count` values is moved by ±h; (loss(x + h) − loss(x − h)) / 2h errs by about h² (the Taylor
// terms that do not cancel) plus 1e-16 / h (the rounding of the two losses): h = 1e-5, near the
// best step ε^(1/3) ≈ 6e-6, keeps both near 1e-10.
template <class Loss>
std::vector<double> central_differences(double* values, std::size_t count, const Loss& loss) {
    constexpr double h = 1e-5;
    std::vector<double> gradient(count);
    for (std::size_t i = 0; i < count; ++i) {
        const double kept = values[i];
        values[i] = kept + h;
        const double up = loss();
        values[i] = kept - h;
        const double down = loss();
        values[i] = kept;
        gradient[i] = (up - down) / (2 * h);
    }
    return gradient;
}

// Two forward passes per value moved: refuse a document that would make that hours of work
// rather than hang. `work` is the number of multiply-adds, `what` names the tensors.
void require_small_enough_for_differences(double work, const std::string& what) {
    if (work > 1e9) {
        throw InputError(what + " are too large for the finite-difference check, which runs the forward twice per value");
    }
}

Tensor3 finite_difference_gradient(const Tensor3& Q, const Tensor3& K, const Tensor3& V, const Tensor3& dO,
                                   const AttentionOptions& options, int which) {
    require_small_enough_for_differences(
        2.0 * double(Q.size() + K.size() + V.size()) * double(Q.shape(0) * Q.shape(1) * K.shape(1)) *
            double(Q.shape(2) + V.shape(2)),
        "Q " + shape_string(Q.shape()) + ", K " + shape_string(K.shape()) + " and V " + shape_string(V.shape()));
    Tensor3 inputs[3] = {Q, K, V};
    Tensor3& moved = inputs[which];
    const auto loss = [&] {
        return double(xt::sum(scaled_dot_product_attention(inputs[0], inputs[1], inputs[2], options).output * dO)());
    };
    const std::vector<double> gradient = central_differences(moved.data(), moved.size(), loss);
    Tensor3 result = Tensor3::from_shape(moved.shape());
    std::copy(gradient.begin(), gradient.end(), result.begin());
    return result;
}

NamedTensors attention_backward(const LessonInputs& inputs) {
    const Tensor3 Q = inputs.get("Q", 3, "(B, T, d_k)");
    const Tensor3 K = inputs.get("K", 3, "(B, S, d_k)");
    const Tensor3 V = inputs.get("V", 3, "(B, S, d_v)");
    const Tensor3 dO = inputs.get("dO", 3, "(B, T, d_v)");
    AttentionOptions options;
    if (inputs.has("attention_mask")) options.attention_mask = Matrix(inputs.get("attention_mask", 2, "(B, S)"));

    const ScaledDotProductAttentionResult forward = scaled_dot_product_attention(Q, K, V, options);
    const ScaledDotProductAttentionGradients grad = scaled_dot_product_attention_backward(Q, K, V, forward, dO, options);
    NamedTensors out;
    out["weights"] = forward.weights;
    out["output"] = forward.output;
    out["dV"] = grad.value;
    out["dQ"] = grad.query;
    out["dK"] = grad.key;
    const Tensor3 dP = matmul_transposed(dO, V);  // O = P V seen from P: dP = dO Vᵀ
    out["dP"] = dP;
    out["dS"] = softmax_backward(forward.weights, dP);

    // The property: with dO all ones the loss is sum(output), and V's row s gets Σ_t P_ts.
    const Tensor3 ones = xt::ones<double>(forward.output.shape());
    out["dV_of_sum"] = scaled_dot_product_attention_backward(Q, K, V, forward, ones, options).value;
    out["column_sums"] = Matrix(xt::sum(forward.weights, {1}));
    out["fd_dQ"] = finite_difference_gradient(Q, K, V, dO, options, 0);
    out["fd_dK"] = finite_difference_gradient(Q, K, V, dO, options, 1);
    out["fd_dV"] = finite_difference_gradient(Q, K, V, dO, options, 2);
    out["rowsum_dP_P"] = Matrix(xt::sum(dP * forward.weights, {2}));
    out["D"] = Matrix(xt::sum(dO * forward.output, {2}));
    return out;
}

NamedTensors linear_by_hand(const LessonInputs& inputs) {
    const LinearGradients grad = linear_backward(Matrix(inputs.get("x", 2, "(N, in)")), Matrix(inputs.get("weight", 2, "(out, in)")),
                                                 Matrix(inputs.get("dY", 2, "(N, out)")));
    return {{"dX", grad.x}, {"dW", grad.weight}, {"db", grad.bias}};
}

// The layer norm's backward reads the forward's x̂ and variance, so the forward runs first; β = 0.
NamedTensors layer_norm_by_hand(const LessonInputs& inputs) {
    const Matrix x = inputs.get("x", 2, "(N, D)");
    const DynamicTensor gamma_values = inputs.get("gamma", 1, "(D)");
    Vector gamma = Vector::from_shape({gamma_values.size()});  // copied, not converted: GCC 12 warns on that conversion here
    std::copy(gamma_values.begin(), gamma_values.end(), gamma.begin());
    const LayerNormStep forward = layer_norm(x, gamma, xt::zeros<double>(gamma.shape()));
    const LayerNormGradients grad = layer_norm_backward(forward, gamma, Matrix(inputs.get("dy", 2, "(N, D)")));
    return {{"dx", grad.x}, {"dgamma", grad.weight}, {"dbeta", grad.bias}};
}

// What FlashAttention's forward keeps besides O: per query, L = m + log l from the online
// softmax's state after its last key tile (lesson 7), so that P_ts = e^(score_ts − L_t).
Matrix log_sum_exp(const OnlineSoftmaxResult& online, std::size_t B, std::size_t T, std::size_t S) {
    Matrix L = Matrix::from_shape({B, T});
    for (const OnlineSoftmaxTile& tile : online.trace) {
        if (tile.first_key + tile.key_count != S) continue;
        for (std::size_t i = 0; i < tile.query_count; ++i)
            L(tile.batch, tile.first_query + i) = tile.running_max(i) + std::log(tile.running_sum(i));
    }
    return L;
}

// The tiled backward, one (query tile, key tile) block at a time: P recomputed from Q, K and L,
// D = rowsum(dO ∘ O) in place of rowsum(dP ∘ P). Nothing (T, S) exists: each block's P, dP and dS
// live for one pair (t, s) here, one tile in a kernel.
struct TiledBackward {
    const Tensor3 &Q, &K, &V, &dO;
    const Matrix &L, &D;
    double scale;
    Tensor3 dQ = xt::zeros<double>(Q.shape()), dK = xt::zeros<double>(K.shape()), dV = xt::zeros<double>(V.shape());

    // Σ_x a(b, i, x) · c(b, j, x): one query's score against one key, or dO_t · v_s.
    static double dot(const Tensor3& a, const Tensor3& c, std::size_t b, std::size_t i, std::size_t j) {
        double sum = 0.0;
        for (std::size_t x = 0; x < a.shape(2); ++x) sum += a(b, i, x) * c(b, j, x);
        return sum;
    }

    void block(std::size_t b, std::size_t t0, std::size_t t1, std::size_t s0, std::size_t s1) {
        for (std::size_t t = t0; t < t1; ++t)
            for (std::size_t s = s0; s < s1; ++s) {
                const double p = std::exp(scale * dot(Q, K, b, t, s) - L(b, t));
                const double ds = p * (dot(dO, V, b, t, s) - D(b, t));
                for (std::size_t v = 0; v < V.shape(2); ++v) dV(b, s, v) += p * dO(b, t, v);
                for (std::size_t x = 0; x < Q.shape(2); ++x) {
                    dQ(b, t, x) += scale * ds * K(b, s, x);
                    dK(b, s, x) += scale * ds * Q(b, t, x);
                }
            }
    }
};

NamedTensors tiled_backward(const LessonInputs& inputs) {
    const Tensor3 Q = inputs.get("Q", 3, "(B, T, d_k)");
    const Tensor3 K = inputs.get("K", 3, "(B, S, d_k)");
    const Tensor3 V = inputs.get("V", 3, "(B, S, d_v)");
    const Tensor3 dO = inputs.get("dO", 3, "(B, T, d_v)");
    if (inputs.has("attention_mask")) throw InputError("example 'tiled' takes no attention_mask (its tiles hide no key)");
    const auto query_tile = std::size_t(inputs.get_counts("query_tile", 1, "(1)", 1, 1000000)(0));
    const auto key_tile = std::size_t(inputs.get_counts("key_tile", 1, "(1)", 1, 1000000)(0));
    NamedTensors out = attention_backward(inputs);  // the plain backward; it checks every shape
    const std::size_t B = Q.shape(0), T = Q.shape(1), S = K.shape(1);
    const OnlineSoftmaxResult online = online_softmax_attention(Q, K, V, OnlineSoftmaxOptions{query_tile, key_tile});
    const Matrix L = log_sum_exp(online, B, T, S);
    const Matrix D = xt::sum(dO * online.output, {2});
    TiledBackward tiled{Q, K, V, dO, L, D, 1.0 / std::sqrt(double(Q.shape(2)))};
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s0 = 0; s0 < S; s0 += key_tile)
            for (std::size_t t0 = 0; t0 < T; t0 += query_tile)
                tiled.block(b, t0, std::min(t0 + query_tile, T), s0, std::min(s0 + key_tile, S));
    out["logsumexp"] = L;
    out["tiled_D"] = D;
    out["tiled_dQ"] = tiled.dQ;
    out["tiled_dK"] = tiled.dK;
    out["tiled_dV"] = tiled.dV;
    return out;
}

// Example "layer": self-attention through a multi-head layer with its output projection.
struct LayerExample {
    Tensor3 x, doutput;
    MultiHeadAttentionWeights weights;
    std::size_t heads;
};

LayerExample layer_example(const LessonInputs& inputs) {
    LayerExample layer{inputs.get("x", 3, "(B, T, D)"), inputs.get("doutput", 3, "(B, T, D)"), {}, 0};
    const auto vector_input = [&](const char* name) {
        const DynamicTensor values = inputs.get(name, 1, "(D)");
        Vector vector = Vector::from_shape({values.size()});
        std::copy(values.begin(), values.end(), vector.begin());
        return vector;
    };
    MultiHeadAttentionWeights& w = layer.weights;
    w.w_q = inputs.get("w_q", 2, "(D, D)"), w.w_k = inputs.get("w_k", 2, "(D, D)"), w.w_v = inputs.get("w_v", 2, "(D, D)");
    w.w_o = Matrix(inputs.get("w_o", 2, "(D, D)"));
    w.b_q = vector_input("b_q"), w.b_k = vector_input("b_k"), w.b_v = vector_input("b_v");
    w.b_o = vector_input("b_o");
    layer.heads = std::size_t(inputs.get_counts("heads", 1, "(1)", 1, 4096)(0));
    return layer;
}

// (B, h, T, d_k) ↔ (B·h, T, d_k): the heads as a batch of single-head attentions. Row-major, so
// the numbers stay where they are; only the shape changes.
Tensor3 heads_as_batch(const Tensor4& x) {
    Tensor3 blocks = Tensor3::from_shape({x.shape(0) * x.shape(1), x.shape(2), x.shape(3)});
    std::copy(x.begin(), x.end(), blocks.begin());
    return blocks;
}

Tensor4 batch_as_heads(const Tensor3& blocks, std::size_t heads) {
    Tensor4 x = Tensor4::from_shape({blocks.shape(0) / heads, heads, blocks.shape(1), blocks.shape(2)});
    std::copy(blocks.begin(), blocks.end(), x.begin());
    return x;
}

// The layer's backward one step at a time, each with the library's piece for it.
NamedTensors layer_backward_by_steps(const LayerExample& layer, const MultiHeadAttentionResult& forward) {
    const MultiHeadAttentionWeights& w = layer.weights;
    NamedTensors out;
    const SequenceLinearGradients projection = linear_backward(forward.context, *w.w_o, layer.doutput);
    out["dcontext"] = projection.x, out["dW_o"] = projection.weight, out["db_o"] = projection.bias;
    const Tensor4 dcontext_heads = split_heads(projection.x, layer.heads);
    out["dcontext_heads"] = dcontext_heads;
    const Tensor3 q = heads_as_batch(forward.q_heads), k = heads_as_batch(forward.k_heads), v = heads_as_batch(forward.v_heads);
    const ScaledDotProductAttentionGradients per_head = scaled_dot_product_attention_backward(
        q, k, v, scaled_dot_product_attention(q, k, v), heads_as_batch(dcontext_heads));
    const std::pair<const char*, const Tensor3*> heads[] = {{"q", &per_head.query}, {"k", &per_head.key}, {"v", &per_head.value}};
    const Matrix* projections[] = {&w.w_q, &w.w_k, &w.w_v};
    Tensor3 dx = xt::zeros<double>(layer.x.shape());
    for (std::size_t i = 0; i < 3; ++i) {
        const std::string name = heads[i].first;
        const Tensor4 d_heads = batch_as_heads(*heads[i].second, layer.heads);
        const Tensor3 merged = merge_heads(d_heads);
        const SequenceLinearGradients input = linear_backward(layer.x, *projections[i], merged);
        out["d" + name + "_heads"] = d_heads, out["d" + name] = merged;
        out["dW_" + name] = input.weight, out["db_" + name] = input.bias;
        dx += input.x;
    }
    out["dx"] = dx;
    return out;
}

// Way 1 on every tensor of the layer, against the library's whole backward: for each, the largest
// |finite difference − backward|, divided by the largest entry of any gradient of the layer (one
// yardstick for all: db_k is zero, so its own largest entry would divide by rounding noise).
Vector layer_finite_difference_errors(const LayerExample& layer, const MultiHeadAttentionGradients& grad) {
    const std::size_t B = layer.x.shape(0), T = layer.x.shape(1), D = layer.x.shape(2);
    require_small_enough_for_differences(2.0 * double(layer.x.size() + 4 * D * D + 4 * D) * double(B * T) * double(4 * D * D + 2 * T * D),
                                         "x " + shape_string(layer.x.shape()) + " and the (D, D) weights");
    Tensor3 x = layer.x;
    MultiHeadAttentionWeights w = layer.weights;
    const Tensor3 dx = grad.query + grad.key + grad.value;
    const MultiHeadAttentionWeights& g = grad.weights;
    const std::pair<double*, const double*> moved[] = {
        {x.data(), dx.data()},           {w.w_q.data(), g.w_q.data()}, {w.w_k.data(), g.w_k.data()},
        {w.w_v.data(), g.w_v.data()},    {w.w_o->data(), g.w_o->data()}, {w.b_q.data(), g.b_q.data()},
        {w.b_k.data(), g.b_k.data()},    {w.b_v.data(), g.b_v.data()},   {w.b_o->data(), g.b_o->data()}};
    const std::size_t counts[] = {x.size(), D * D, D * D, D * D, D * D, D, D, D, D};
    double largest = 0.0;
    for (std::size_t t = 0; t < 9; ++t)
        for (std::size_t i = 0; i < counts[t]; ++i) largest = std::max(largest, std::abs(moved[t].second[i]));
    // A doutput of zeros makes every gradient zero: the errors are then absolute, not 0 / 0.
    const double yardstick = largest > 0.0 ? largest : 1.0;
    const auto loss = [&] { return double(xt::sum(multi_head_attention(x, x, x, w, layer.heads).output * layer.doutput)()); };
    Vector errors = xt::zeros<double>({std::size_t(9)});
    for (std::size_t t = 0; t < 9; ++t) {
        const std::vector<double> differences = central_differences(moved[t].first, counts[t], loss);
        for (std::size_t i = 0; i < counts[t]; ++i)
            errors(t) = std::max(errors(t), std::abs(differences[i] - moved[t].second[i]) / yardstick);
    }
    return errors;
}

NamedTensors layer_backward(const LessonInputs& inputs) {
    const LayerExample layer = layer_example(inputs);
    const MultiHeadAttentionResult forward = multi_head_attention(layer.x, layer.x, layer.x, layer.weights, layer.heads);
    // The library's whole backward first: it checks doutput's shape and names it.
    const MultiHeadAttentionGradients grad =
        multi_head_attention_backward(layer.x, layer.x, layer.x, layer.weights, layer.heads, forward, layer.doutput);
    NamedTensors out = layer_backward_by_steps(layer, forward);
    out["fd_relative_error"] = layer_finite_difference_errors(layer, grad);
    return out;
}

NamedTensors compute(const std::string& example, const LessonInputs& inputs) {
    if (example == "softmax") return softmax_by_hand(inputs);
    if (example == "linear") return linear_by_hand(inputs);
    if (example == "layer_norm") return layer_norm_by_hand(inputs);
    if (example == "tiled") return tiled_backward(inputs);
    if (example == "layer") return layer_backward(inputs);
    return attention_backward(inputs);
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
