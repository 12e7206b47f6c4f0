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

// A workspace vector moved into a tensor of `shape`, the vector freed at once (so that the two
// copies of one tensor are all that exist together).
Tensor3 tensor_from(std::vector<float>& values, std::array<std::size_t, 3> shape) {
    Tensor3 tensor = Tensor3::from_shape(shape);
    std::copy(values.begin(), values.end(), tensor.data());
    std::vector<float>().swap(values);
    return tensor;
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

// An empty gradient of the parameters' shapes: w_q … (D, D), each bias and w_o, b_o when present.
AttentionParameters gradient_shapes(const AttentionParameters& p, std::size_t D) {
    AttentionParameters g;
    g.w_q = g.w_k = g.w_v = Matrix::from_shape({D, D});
    if (p.b_q) g.b_q = Vector::from_shape({D});
    if (p.b_k) g.b_k = Vector::from_shape({D});
    if (p.b_v) g.b_v = Vector::from_shape({D});
    if (p.w_o) g.w_o = Matrix::from_shape({D, D});
    if (p.b_o) g.b_o = Vector::from_shape({D});
    g.no_output_projection = p.no_output_projection;
    return g;
}

float* data_or_null(std::optional<Vector>& v) { return v ? v->data() : nullptr; }

}  // namespace

AttentionTrainingResult multi_head_attention_for_training(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                          const AttentionParameters& parameters,
                                                          const AttentionOptions& options) {
    // Shapes: query (B, T, D) · key, value (B, S, D) → output, q, context (B, T, D) · k, v (B, S, D) ·
    //         log_sum_exp (B, h, T)
    const std::string function = "fast::multi_head_attention_for_training";
    detail::check_attention_arguments(function, query, key, value, parameters, options);
    refuse_rope(function, options);
    const std::size_t B = query.shape(0), T = query.shape(1), D = query.shape(2), S = key.shape(1);
    const std::size_t h = options.heads;
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();

    AttentionTrainingResult result;
    result.context = Tensor3::from_shape({B, T, D});
    result.log_sum_exp = Tensor3::from_shape({B, h, T});
    AttentionWorkspace workspace;
    detail::AttendArguments attend{function,         query.data(),          key.data(),     value.data(),
                                   {B, T, S, D, h},  parameters,            options.attention_mask,
                                   options.causal,   options.query_tile,    options.key_tile};
    attend.log_sum_exp = result.log_sum_exp.data();
    detail::project_and_attend(attend, nullptr, result.context.data(), workspace, *pool, result.work);
    result.q = tensor_from(workspace.q, {B, T, D});
    result.k = tensor_from(workspace.k, {B, S, D});
    result.v = tensor_from(workspace.v, {B, S, D});

    if (parameters.w_o) {
        result.output = Tensor3::from_shape({B, T, D});
    } else {
        result.output = result.context;  // no output projection: the context is the output
    }
    detail::project_output(function, attend.shape, parameters, result.context.data(), result.output.data(), *pool,
                           result.work);
    return result;
}

AttentionGradients multi_head_attention_backward(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                                 const AttentionParameters& parameters, const AttentionOptions& options,
                                                 const AttentionTrainingResult& forward, const Tensor3& grad_output) {
    const std::string function = "fast::multi_head_attention_backward";
    detail::check_attention_arguments(function, query, key, value, parameters, options);
    refuse_rope(function, options);
    check_backward_shapes(function, query, key, options, forward, grad_output);
    const std::size_t B = query.shape(0), T = query.shape(1), D = query.shape(2), S = key.shape(1);
    const detail::HeadsShape shape{B, T, S, D, options.heads};
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();
    detail::require_finite(function, "grad_output", {B, T, D}, grad_output.data(),
                           "the upstream gradient ∂loss/∂output must be finite", *pool);

    AttentionGradients grad;
    grad.parameters = gradient_shapes(parameters, D);
    // 1. The output projection: dcontext = doutput W_o (or doutput itself without W_o).
    auto start = std::chrono::steady_clock::now();
    std::vector<float> d_context;
    const float* dO = grad_output.data();
    if (parameters.w_o) {
        d_context.resize(B * T * D);
        detail::project_backward(forward.context.data(), grad_output.data(), B * T, D, *parameters.w_o,
                                 grad.parameters.w_o->data(), data_or_null(grad.parameters.b_o), d_context.data(), *pool);
        dO = d_context.data();
        grad.work.output_flops += 2 * 2.0 * double(B) * double(T) * double(D) * double(D);
    }
    grad.work.output_seconds = seconds_since(start);

    // 2. The heads: dq, dk, dv of the projections.
    start = std::chrono::steady_clock::now();
    std::vector<float> keep;
    if (options.attention_mask) keep.assign(options.attention_mask->begin(), options.attention_mask->end());
    std::vector<float> dq(B * T * D), dk(B * S * D), dv(B * S * D), scratch;
    const detail::BackwardInputs in{forward.q.data(), forward.k.data(), forward.v.data(), forward.context.data(), dO,
                                    forward.log_sum_exp.data(), keep.empty() ? nullptr : keep.data(), options.causal};
    detail::tiled_attention_backward(shape, in, {dq.data(), dk.data(), dv.data()}, options.query_tile, options.key_tile,
                                     scratch, *pool, grad.work);
    std::vector<float>().swap(d_context);
    grad.work.attention_seconds = seconds_since(start);

    // 3. The Q, K and V projections.
    start = std::chrono::steady_clock::now();
    grad.query = Tensor3::from_shape({B, T, D});
    grad.key = Tensor3::from_shape({B, S, D});
    grad.value = Tensor3::from_shape({B, S, D});
    AttentionParameters& g = grad.parameters;
    detail::project_backward(query.data(), dq.data(), B * T, D, parameters.w_q, g.w_q.data(), data_or_null(g.b_q),
                             grad.query.data(), *pool);
    detail::project_backward(key.data(), dk.data(), B * S, D, parameters.w_k, g.w_k.data(), data_or_null(g.b_k),
                             grad.key.data(), *pool);
    detail::project_backward(value.data(), dv.data(), B * S, D, parameters.w_v, g.w_v.data(), data_or_null(g.b_v),
                             grad.value.data(), *pool);
    grad.work.projection_flops += 2 * 2.0 * double(B) * double(T + 2 * S) * double(D) * double(D);
    grad.work.projection_seconds = seconds_since(start);
    return grad;
}

}  // namespace attn::fast
