// attn::fast::multi_head_attention_for_training and multi_head_attention_backward
// (attn/fast/multi_head_attention_backward.hpp).
//
// The forward is multi_head_attention's steps (attention_heads.hpp: project_and_attend in its
// tiled form, then project_output) with two differences: the context goes to a tensor of its own
// instead of over q, and the tiled attention writes L. The backward runs the forward's three
// steps in reverse: the output projection's backward (projection.hpp), the heads' backward
// (attention_backward.hpp), the Q, K and V projections' backward.
#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "attention_backward.hpp"
#include "attention_heads.hpp"
#include "attn/error.hpp"
#include "attn/fast/multi_head_attention_backward.hpp"
#include "attn/shape.hpp"
#include "non_finite.hpp"
#include "projection.hpp"
#include "thread_pool.hpp"

namespace attn::fast {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void refuse_rope(const std::string& function, const AttentionOptions& options) {
    if (options.rope) {
        throw InputError(function + ": options.rope is not supported by the training forward and backward yet; "
                                    "RoPE's backward (the rotation transposed on dq and dk) is not written");
    }
}

// `tensor` with `shape`, its storage kept when it already has that shape (its values are then stale).
void ensure_shape(Tensor3& tensor, std::array<std::size_t, 3> shape) {
    if (tensor.shape(0) != shape[0] || tensor.shape(1) != shape[1] || tensor.shape(2) != shape[2]) {
        tensor = Tensor3::from_shape(shape);
    }
}

// values (a workspace vector of shape's size) copied into `tensor`.
void store(const std::vector<float>& values, std::array<std::size_t, 3> shape, Tensor3& tensor) {
    ensure_shape(tensor, shape);
    std::copy(values.begin(), values.end(), tensor.data());
}

// The forward's tensors and grad_output against the arguments' shapes.
void check_backward_shapes(const std::string& function, const Tensor3& query, const Tensor3& key,
                           const AttentionOptions& options, const AttentionTrainingResult& forward,
                           const Tensor3& grad_output) {
    const std::string heads = std::to_string(options.heads);
    check_shapes(function, {{"query", query, "B,T,D"},
                            {"key", key, "B,S,D"},
                            {"grad_output", grad_output, "B,T,D"},
                            {"forward.output", forward.output, "B,T,D"},
                            {"forward.q", forward.q, "B,T,D"},
                            {"forward.k", forward.k, "B,S,D"},
                            {"forward.v", forward.v, "B,S,D"},
                            {"forward.context", forward.context, "B,T,D"},
                            {"forward.log_sum_exp", forward.log_sum_exp, "B," + heads + ",T"}});
}

// `g` shaped as the parameters' gradient: w_q … (D, D), each bias and w_o, b_o exactly when present;
// its storage kept where it already fits (every value is overwritten by the backward).
void ensure_gradient_shapes(const AttentionParameters& p, std::size_t D, AttentionParameters& g) {
    auto matrix = [D](Matrix& m) {
        if (m.shape(0) != D || m.shape(1) != D) m = Matrix::from_shape({D, D});
    };
    auto vector = [D](const std::optional<Vector>& present, std::optional<Vector>& v) {
        if (!present) {
            v.reset();
        } else if (!v || v->shape(0) != D) {
            v = Vector::from_shape({D});
        }
    };
    matrix(g.w_q), matrix(g.w_k), matrix(g.w_v);
    vector(p.b_q, g.b_q), vector(p.b_k, g.b_k), vector(p.b_v, g.b_v), vector(p.b_o, g.b_o);
    if (p.w_o) {
        if (!g.w_o || g.w_o->shape(0) != D || g.w_o->shape(1) != D) g.w_o = Matrix::from_shape({D, D});
    } else {
        g.w_o.reset();
    }
    g.no_output_projection = p.no_output_projection;
}

// The weights' dropout factors hold one value per weight (B, h, T, S), or are absent.
void check_dropout_size(const std::string& function, const std::vector<float>* factors, std::size_t B,
                        std::size_t h, std::size_t T, std::size_t S) {
    if (factors != nullptr && factors->size() != B * h * T * S) {
        throw ShapeError(function + ": weights_dropout holds " + std::to_string(factors->size()) +
                         " factors; the weights (B, h, T, S) = " + shape_string({B, h, T, S}) + " need " +
                         std::to_string(B * h * T * S));
    }
}

float* data_or_null(std::optional<Vector>& v) { return v ? v->data() : nullptr; }

}  // namespace

void multi_head_attention_for_training(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                       const AttentionParameters& parameters, const AttentionOptions& options,
                                       AttentionTrainingResult& result, AttentionTrainingWorkspace& workspace,
                                       const std::vector<float>* weights_dropout) {
    // Shapes: query (B, T, D) · key, value (B, S, D) → output, q, context (B, T, D) · k, v (B, S, D) ·
    //         log_sum_exp (B, h, T)
    const std::string function = "fast::multi_head_attention_for_training";
    detail::check_attention_arguments(function, query, key, value, parameters, options);
    refuse_rope(function, options);
    const std::size_t B = query.shape(0), T = query.shape(1), D = query.shape(2), S = key.shape(1);
    const std::size_t h = options.heads;
    check_dropout_size(function, weights_dropout, B, h, T, S);
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();

    result.work = AttentionWork{};
    ensure_shape(result.context, {B, T, D});
    ensure_shape(result.log_sum_exp, {B, h, T});
    AttentionWorkspace& ws = workspace.forward;
    detail::AttendArguments attend{function,         query.data(),          key.data(),     value.data(),
                                   {B, T, S, D, h},  parameters,            options.attention_mask,
                                   options.causal,   options.query_tile,    options.key_tile};
    attend.log_sum_exp = result.log_sum_exp.data();
    attend.weights_dropout = weights_dropout != nullptr ? weights_dropout->data() : nullptr;
    detail::project_and_attend(attend, nullptr, result.context.data(), ws, *pool, result.work);
    store(ws.q, {B, T, D}, result.q);
    store(ws.k, {B, S, D}, result.k);
    store(ws.v, {B, S, D}, result.v);

    if (parameters.w_o) {
        ensure_shape(result.output, {B, T, D});
    } else {
        result.output = result.context;  // no output projection: the context is the output
    }
    detail::project_output(function, attend.shape, parameters, result.context.data(), result.output.data(), *pool,
                           result.work);
}

AttentionTrainingResult multi_head_attention_for_training(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                          const AttentionParameters& parameters,
                                                          const AttentionOptions& options) {
    AttentionTrainingResult result;
    AttentionTrainingWorkspace workspace;
    multi_head_attention_for_training(query, key, value, parameters, options, result, workspace);
    return result;
}

void multi_head_attention_backward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                   const AttentionParameters& parameters, const AttentionOptions& options,
                                   const AttentionTrainingResult& forward, const Tensor3& grad_output,
                                   AttentionGradients& grad, AttentionTrainingWorkspace& ws,
                                   const std::vector<float>* weights_dropout) {
    const std::string function = "fast::multi_head_attention_backward";
    detail::check_attention_arguments(function, query, key, value, parameters, options);
    refuse_rope(function, options);
    check_backward_shapes(function, query, key, options, forward, grad_output);
    const std::size_t B = query.shape(0), T = query.shape(1), D = query.shape(2), S = key.shape(1);
    const detail::HeadsShape shape{B, T, S, D, options.heads};
    check_dropout_size(function, weights_dropout, B, options.heads, T, S);
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();
    detail::require_finite(function, "grad_output", {B, T, D}, grad_output.data(),
                           "the upstream gradient ∂loss/∂output must be finite", *pool);

    grad.work = AttentionWork{};
    ensure_gradient_shapes(parameters, D, grad.parameters);
    // 1. The output projection: dcontext = doutput W_o (or doutput itself without W_o).
    auto start = std::chrono::steady_clock::now();
    const float* dO = grad_output.data();
    if (parameters.w_o) {
        ws.d_context.resize(B * T * D);
        detail::project_backward(forward.context.data(), grad_output.data(), B * T, D, *parameters.w_o,
                                 grad.parameters.w_o->data(), data_or_null(grad.parameters.b_o), ws.d_context.data(),
                                 *pool);
        dO = ws.d_context.data();
        grad.work.output_flops += 2 * 2.0 * double(B) * double(T) * double(D) * double(D);
    }
    grad.work.output_seconds = seconds_since(start);

    // 2. The heads: dq, dk, dv of the projections (each head's task zeroes its columns first).
    start = std::chrono::steady_clock::now();
    ws.keep.clear();
    if (options.attention_mask) ws.keep.assign(options.attention_mask->begin(), options.attention_mask->end());
    ws.dq.resize(B * T * D);
    ws.dk.resize(B * S * D);
    ws.dv.resize(B * S * D);
    const detail::BackwardInputs in{forward.q.data(),       forward.k.data(), forward.v.data(),
                                    forward.context.data(), dO,               forward.log_sum_exp.data(),
                                    ws.keep.empty() ? nullptr : ws.keep.data(), options.causal,
                                    weights_dropout != nullptr ? weights_dropout->data() : nullptr};
    detail::tiled_attention_backward(shape, in, {ws.dq.data(), ws.dk.data(), ws.dv.data()}, options.query_tile,
                                     options.key_tile, ws.scratch, *pool, grad.work);
    grad.work.attention_seconds = seconds_since(start);

    // 3. The Q, K and V projections.
    start = std::chrono::steady_clock::now();
    ensure_shape(grad.query, {B, T, D});
    ensure_shape(grad.key, {B, S, D});
    ensure_shape(grad.value, {B, S, D});
    AttentionParameters& g = grad.parameters;
    detail::project_backward(query.data(), ws.dq.data(), B * T, D, parameters.w_q, g.w_q.data(), data_or_null(g.b_q),
                             grad.query.data(), *pool);
    detail::project_backward(key.data(), ws.dk.data(), B * S, D, parameters.w_k, g.w_k.data(), data_or_null(g.b_k),
                             grad.key.data(), *pool);
    detail::project_backward(value.data(), ws.dv.data(), B * S, D, parameters.w_v, g.w_v.data(), data_or_null(g.b_v),
                             grad.value.data(), *pool);
    grad.work.projection_flops += 2 * 2.0 * double(B) * double(T + 2 * S) * double(D) * double(D);
    grad.work.projection_seconds = seconds_since(start);
}

AttentionGradients multi_head_attention_backward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                 const AttentionParameters& parameters, const AttentionOptions& options,
                                                 const AttentionTrainingResult& forward, const Tensor3& grad_output) {
    AttentionGradients grad;
    AttentionTrainingWorkspace workspace;
    multi_head_attention_backward(query, key, value, parameters, options, forward, grad_output, grad, workspace);
    return grad;
}

}  // namespace attn::fast
