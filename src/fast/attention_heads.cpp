// The attention with its weights kept (attention_heads.hpp), and what both forms share: the
// messages for a non-finite score or context value.
#include "attention_heads.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "finite_values.hpp"  // attn::detail::first_non_finite
#include "kernels.hpp"
#include "projection.hpp"
#include "rotary.hpp"

namespace attn::fast::detail {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// RoPE on every head of the projected q and k, in place. Self-attention with the default
// positions (T = S) shares one table. A rotation keeps finite values finite (short of float32's
// largest) and NaN as NaN, so the checks of q and k that follow still name the input's fault.
void rotate_queries_and_keys(const RotaryOptions& rope, const HeadsShape& shape, AttentionWorkspace& ws,
                             WorkerPool& pool) {
    const std::size_t dk = shape.head_width();
    const RotaryTable queries = rotary_table(rope.query_positions, shape.T, dk, rope.base, pool);
    rotate_heads(ws.q.data(), shape.B * shape.T, shape.D, shape.heads, queries, rope.layout, pool);
    const bool same_positions = shape.S == shape.T && rope.key_positions == rope.query_positions;
    const RotaryTable keys = same_positions ? RotaryTable{} : rotary_table(rope.key_positions, shape.S, dk, rope.base, pool);
    rotate_heads(ws.k.data(), shape.B * shape.S, shape.D, shape.heads, same_positions ? queries : keys, rope.layout, pool);
}

}  // namespace

NonFiniteValue non_finite_score(const HeadsShape& shape, std::size_t b, std::size_t head, std::size_t t,
                                std::size_t s, float value) {
    const std::size_t T = shape.T, S = shape.S, h = shape.heads;
    const std::string at = std::to_string(b) + ", " + std::to_string(head) + ", ";
    // In the lesson path's order: q, k, v (0, 1, 2), then per (batch, head) its scores, then its context.
    return {{3, b, head, 0, t, s},
            "scores",
            {shape.B, h, T, S},
            ((b * h + head) * T + t) * S + s,
            value,
            "q_heads[" + at + std::to_string(t) + "] · k_heads[" + at + std::to_string(s) + "] / √d_k in float32; " +
                float32_overflow_advice};
}

NonFiniteValue non_finite_context(const HeadsShape& shape, std::size_t b, std::size_t head, std::size_t t,
                                  std::size_t i, float value) {
    const std::size_t T = shape.T, h = shape.heads, dk = shape.head_width();
    return {{3, b, head, 1, t, i},
            "context_heads",
            {shape.B, h, T, dk},
            ((b * h + head) * T + t) * dk + i,
            value,
            std::string("the weighted sum of the value rows of the head; ") + float32_overflow_advice};
}

void check_context_rows(const HeadsShape& shape, const float* context, std::size_t b, std::size_t head,
                        std::size_t first, std::size_t rows, FirstNonFinite& bad) {
    const std::size_t T = shape.T, D = shape.D, dk = shape.head_width();
    for (std::size_t t = first; t < first + rows; ++t) {
        const float* row = context + (b * T + t) * D + head * dk;
        if (count_non_finite(row, dk) == 0) continue;
        for (std::size_t i = 0; i < dk; ++i) {
            if (!std::isfinite(row[i])) {
                bad.offer(non_finite_context(shape, b, head, t, i, row[i]));
                return;
            }
        }
    }
}

void attention_with_weights(const HeadsShape& shape, const ProjectedInputs& in, float* weights, float* context,
                            WorkerPool& pool, FirstNonFinite& bad, AttentionWork& work) {
    const std::size_t B = shape.B, T = shape.T, S = shape.S, D = shape.D, h = shape.heads, dk = shape.head_width();
    const float alpha = 1.0f / std::sqrt(static_cast<float>(dk));
    pool.run(B * h, [&](std::size_t task, std::size_t) {
        const std::size_t b = task / h, head = task % h;
        const float* q = in.q + b * T * D + head * dk;  // (T, d_k), leading dimension D
        const float* k = in.k + b * S * D + head * dk;  // (S, d_k)
        const float* v = in.v + b * S * D + head * dk;  // (S, d_k)
        float* block = weights + task * T * S;          // (T, S)
        // 1. scores (T, S) = Q_h K_hᵀ / √d_k, the scale in alpha.
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(T), static_cast<int>(S),
                    static_cast<int>(dk), alpha, q, static_cast<int>(D), k, static_cast<int>(D), 0.0f, block,
                    static_cast<int>(S));
        // Every raw score, hidden or not, must be a number: −∞ may only come from the masks.
        if (count_non_finite(block, T * S) != 0) {
            const std::size_t at = attn::detail::first_non_finite(block, T * S);
            bad.offer(non_finite_score(shape, b, head, at / S, at % S, block[at]));
            return;
        }
        // 2. softmax of each row, the masks inside it.
        const float* keep = in.keep != nullptr ? in.keep + b * S : nullptr;
        for (std::size_t t = 0; t < T; ++t) softmax_row(block + t * S, in.causal ? std::min(t + 1, S) : S, S, keep);
        // 3. context_h (T, d_k) = weights (T, S) · V_h (S, d_k), into its columns of the context.
        float* out = context + b * T * D + head * dk;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(T), static_cast<int>(dk),
                    static_cast<int>(S), 1.0f, block, static_cast<int>(S), v, static_cast<int>(D), 0.0f, out,
                    static_cast<int>(D));
        check_context_rows(shape, context, b, head, 0, T, bad);
    });
    work.attention_flops += 4.0 * double(B) * double(h) * double(T) * double(S) * double(dk);
}

void project_and_attend(const AttendArguments& args, float* weights, float* context, AttentionWorkspace& ws,
                        WorkerPool& pool, AttentionWork& work) {
    const HeadsShape& shape = args.shape;
    const AttentionParameters& parameters = args.parameters;
    const std::string& function = args.function;
    const std::size_t B = shape.B, T = shape.T, S = shape.S, D = shape.D;
    // 1. The projections, each checked before anything reads it.
    auto start = std::chrono::steady_clock::now();
    ws.q.resize(B * T * D);
    ws.k.resize(B * S * D);
    ws.v.resize(B * S * D);
    const std::string why = std::string("the projection x · Wᵀ + b in float32; ") + float32_overflow_advice;
    project(args.query, B * T, D, parameters.w_q, data_or_null(parameters.b_q), ws.q.data(), pool);
    project(args.key, B * S, D, parameters.w_k, data_or_null(parameters.b_k), ws.k.data(), pool);
    if (args.rope != nullptr) rotate_queries_and_keys(*args.rope, shape, ws, pool);
    require_finite(function, "q", {B, T, D}, ws.q.data(), why, pool);
    require_finite(function, "k", {B, S, D}, ws.k.data(), why, pool);
    project(args.value, B * S, D, parameters.w_v, data_or_null(parameters.b_v), ws.v.data(), pool);
    require_finite(function, "v", {B, S, D}, ws.v.data(), why, pool);
    work.projection_flops += 2.0 * double(B) * double(T + 2 * S) * double(D) * double(D);
    work.projection_seconds += seconds_since(start);

    // 2. The heads. The padding mask as 1/0 floats: the softmax multiplies by it instead of branching.
    start = std::chrono::steady_clock::now();
    const float* keep = nullptr;
    if (args.attention_mask) {
        ws.keep.assign(args.attention_mask->begin(), args.attention_mask->end());
        keep = ws.keep.data();
    }
    const ProjectedInputs in{ws.q.data(), ws.k.data(), ws.v.data(), keep, args.causal, args.weights_dropout};
    FirstNonFinite bad;
    if (weights != nullptr) {
        attention_with_weights(shape, in, weights, context, pool, bad, work);
    } else {
        tiled_attention(shape, in, args.query_tile, args.key_tile, context, args.log_sum_exp, ws.tiles, pool, bad, work);
    }
    bad.throw_if_found(function);
    work.attention_seconds += seconds_since(start);
}

void project_output(const std::string& function, const HeadsShape& shape, const AttentionParameters& parameters,
                    const float* context, float* output, WorkerPool& pool, AttentionWork& work) {
    const std::size_t B = shape.B, T = shape.T, D = shape.D;
    const auto start = std::chrono::steady_clock::now();
    if (parameters.w_o) {
        project(context, B * T, D, *parameters.w_o, data_or_null(parameters.b_o), output, pool);
        work.output_flops += 2.0 * double(B) * double(T) * double(D) * double(D);
    }
    require_finite(function, "output", {B, T, D}, output,
                   std::string("the output projection context · w_oᵀ + b_o in float32; ") + float32_overflow_advice,
                   pool);
    work.output_seconds = seconds_since(start);
}

}  // namespace attn::fast::detail
