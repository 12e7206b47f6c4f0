// attn::fast::multi_head_attention (attn/fast/multi_head_attention.hpp).
//
// For seed 000's shape (B 8, T = S 300, D 768, h 8, d_k 96) with its weights, or a long context
// (B 1, T = S 4096, D 768, h 12, d_k 64) without:
//   1. q, k, v = x W_qᵀ + b_q, …: three (B·T, D) × (D, D) sgemms split by rows over the workers;
//      with options.rope, q and k turned in place (rotary.hpp);
//   2. the attention of every (batch, head) block (attention_heads.hpp): weights kept, or tiled;
//   3. output = context W_oᵀ + b_o: one sgemm split by rows (without W_o the context is the output).
// Each step's result is checked for NaN and ±∞ before the next uses it, as the lesson path checks.
#include <algorithm>
#include <chrono>
#include <string>

#include "arguments.hpp"
#include "attention_heads.hpp"
#include "attn/error.hpp"
#include "attn/fast/multi_head_attention.hpp"
#include "attn/shape.hpp"
#include "non_finite.hpp"
#include "projection.hpp"
#include "thread_pool.hpp"

namespace attn::fast {

double attention_flops(std::size_t B, std::size_t T, std::size_t S, std::size_t D, bool output_projection) {
    const double b = double(B), t = double(T), s = double(S), d = double(D);
    const double projections = 2 * b * t * d * d + 2 * 2 * b * s * d * d;
    const double scores = 2 * b * t * s * d;  // over all heads: h · 2·T·S·d_k
    const double context = 2 * b * t * s * d;
    const double output = output_projection ? 2 * b * t * d * d : 0.0;
    return projections + scores + context + output;
}

AttentionParameters split_in_proj(const Matrix& in_proj_weight, const std::optional<Vector>& in_proj_bias) {
    const std::size_t rows = in_proj_weight.shape(0), D = in_proj_weight.shape(1);
    if (rows != 3 * D || D == 0) {
        throw ShapeError("fast::split_in_proj: in_proj_weight " + shape_string(in_proj_weight.shape()) +
                         " must be (3D, D): w_q, w_k and w_v stacked row-wise, as nn.MultiheadAttention stores them");
    }
    if (in_proj_bias && in_proj_bias->shape(0) != 3 * D) {
        throw ShapeError("fast::split_in_proj: in_proj_bias " + shape_string(in_proj_bias->shape()) + " must be (3D) = (" +
                         std::to_string(3 * D) + ") for in_proj_weight " + shape_string(in_proj_weight.shape()));
    }
    auto part_of = [&](std::size_t part) {
        Matrix w = Matrix::from_shape({D, D});
        std::copy_n(in_proj_weight.data() + part * D * D, D * D, w.data());
        return w;
    };
    AttentionParameters p;
    p.w_q = part_of(0), p.w_k = part_of(1), p.w_v = part_of(2);
    if (in_proj_bias) {
        std::optional<Vector>* biases[] = {&p.b_q, &p.b_k, &p.b_v};
        for (std::size_t part = 0; part < 3; ++part) {
            Vector b = Vector::from_shape({D});
            std::copy_n(in_proj_bias->data() + part * D, D, b.data());
            *biases[part] = std::move(b);
        }
    }
    return p;
}

void multi_head_attention_into(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                               const AttentionParameters& parameters, const AttentionOptions& options,
                               AttentionResult& result, AttentionWorkspace& workspace) {
    // Shapes: query (B, T, D) · key, value (B, S, D) · w_* (D, D) · b_* (D) · attention_mask (B, S)
    //         → output (B, T, D) · weights (B, h, T, S)
    const std::string function = "fast::multi_head_attention";
    detail::check_attention_arguments(function, query, key, value, parameters, options);
    const std::size_t B = query.shape(0), T = query.shape(1), D = query.shape(2), S = key.shape(1);
    const std::size_t h = options.heads;
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();
    result.work = AttentionWork{};

    // Steps 1 and 2. With an output projection the context is an intermediate: it overwrites q.
    result.output.resize({B, T, D});
    float* context = parameters.w_o ? nullptr : result.output.data();
    float* weights = nullptr;
    if (options.need_weights) {
        if (!result.weights) result.weights.emplace();
        result.weights->resize({B, h, T, S});
        weights = result.weights->data();
    } else {
        result.weights.reset();
    }
    workspace.q.resize(B * T * D);
    if (context == nullptr) context = workspace.q.data();
    const detail::AttendArguments attend{function,   query.data(),           key.data(),     value.data(),
                                         {B, T, S, D, h}, parameters,         options.attention_mask,
                                         options.causal,   options.query_tile, options.key_tile,
                                         options.rope ? &*options.rope : nullptr};
    detail::project_and_attend(attend, weights, context, workspace, *pool, result.work);

    // 3. The output projection.
    detail::project_output(function, attend.shape, parameters, context, result.output.data(), *pool, result.work);
}

AttentionResult multi_head_attention(const Tensor3& query, const Tensor3& key, const Tensor3& value,
                                     const AttentionParameters& parameters, const AttentionOptions& options) {
    AttentionResult result;
    AttentionWorkspace workspace;
    multi_head_attention_into(query, key, value, parameters, options, result, workspace);
    return result;
}

}  // namespace attn::fast
