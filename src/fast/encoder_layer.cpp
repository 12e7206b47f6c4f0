// attn::fast::transformer_encoder_layer (attn/fast/encoder_layer.hpp).
//
//   1. the self-attention (multi_head_attention's steps 1 and 2, always tiled) on x or norm1(x);
//   2. its output projection (sgemm), then one row pass: + b_o, + the residual, norm1 (post-norm);
//   3. linear1 (sgemm), then one row pass: + bias, activation;
//   4. linear2 (sgemm), then one row pass: + bias, + the residual, norm2 (post-norm).
// Row passes are split over the workers in chunks of 64 rows.
#include <string>

#include "arguments.hpp"
#include "attention_heads.hpp"
#include "attn/fast/encoder_layer.hpp"
#include "kernels.hpp"
#include "non_finite.hpp"
#include "projection.hpp"
#include "thread_pool.hpp"

namespace attn::fast {

namespace {

// row_task(r) for every r in [0, rows), in chunks of 64 rows over the workers.
template <class RowTask>
void for_rows(detail::WorkerPool& pool, std::size_t rows, const RowTask& row_task) {
    const std::size_t chunk = 64;
    pool.run((rows + chunk - 1) / chunk, [&](std::size_t c, std::size_t) {
        const std::size_t end = std::min(rows, (c + 1) * chunk);
        for (std::size_t r = c * chunk; r < end; ++r) row_task(r);
    });
}

}  // namespace

double encoder_layer_flops(std::size_t B, std::size_t T, std::size_t D, std::size_t F) {
    return attention_flops(B, T, T, D, true) + 2 * 2 * double(B) * double(T) * double(D) * double(F);
}

void transformer_encoder_layer_into(const Tensor3& x, const EncoderLayerParameters& parameters,
                                    const EncoderLayerOptions& options, Tensor3& output, EncoderLayerWorkspace& ws) {
    // Shapes: x (B, T, D) · attention as in multi_head_attention (w_o required) · norm*_weight,
    //         norm*_bias (D) · linear1_weight (F, D) · linear1_bias (F) · linear2_weight (D, F) ·
    //         linear2_bias (D) · attention_mask (B, T) → (B, T, D)
    const std::string function = "fast::transformer_encoder_layer";
    detail::require_nonempty(function, "x", x);
    detail::check_inputs(function, x, x, x);
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2), N = B * T, h = options.heads;
    const AttentionParameters& a = parameters.attention;
    detail::check_attention_parameters(function, a, D, h, true);
    const std::size_t F = detail::check_encoder_parameters(function, parameters, D, options.eps);
    detail::check_attention_options(function, options.attention_mask, B, T, "(B, T)", options.query_tile,
                                    options.key_tile);
    const std::shared_ptr<detail::WorkerPool> pool_owner = detail::shared_pool();
    detail::WorkerPool& pool = *pool_owner;

    output.resize({B, T, D});
    ws.projected.resize(N * D);
    ws.hidden.resize(N * D);
    ws.inner.resize(N * F);
    const float eps = options.eps;
    const float* g1 = parameters.norm1_weight.data();
    const float* n1 = parameters.norm1_bias.data();
    const float* g2 = parameters.norm2_weight.data();
    const float* n2 = parameters.norm2_bias.data();
    const float* b_o = detail::data_or_null(a.b_o);
    const float* b_1 = detail::data_or_null(parameters.linear1_bias);
    const float* b_2 = detail::data_or_null(parameters.linear2_bias);
    float* projected = ws.projected.data();
    float* hidden = ws.hidden.data();
    float* inner = ws.inner.data();
    float* out = output.data();
    const std::string why = std::string("float32 arithmetic on the layer's inputs; ") + detail::float32_overflow_advice;

    // 1. The self-attention's context (written over its q, in ws.attention.q).
    const float* attention_input = x.data();
    if (options.norm_first) {
        ws.normalized.resize(N * D);
        float* normalized = ws.normalized.data();
        for_rows(pool, N, [&](std::size_t r) {
            detail::residual_layer_norm_row(x.data() + r * D, nullptr, nullptr, g1, n1, eps, normalized + r * D, D);
        });
        attention_input = normalized;
    }
    ws.attention_work = AttentionWork{};
    ws.attention.q.resize(N * D);
    float* context = ws.attention.q.data();
    detail::project_and_attend(function, attention_input, attention_input, attention_input,
                               detail::HeadsShape{B, T, T, D, h}, a, options.attention_mask, options.causal,
                               options.query_tile, options.key_tile, nullptr, context, ws.attention, pool, ws.attention_work);

    // 2. The output projection, then its bias, the residual and (post-norm) norm1 in one row pass.
    detail::project(context, N, D, *a.w_o, nullptr, projected, pool);
    ws.attention_work.output_flops = 2.0 * double(N) * double(D) * double(D);
    if (options.norm_first) {
        // hidden = x + sa(norm1(x))
        for_rows(pool, N, [&](std::size_t r) {
            detail::residual_row(x.data() + r * D, projected + r * D, b_o, hidden + r * D, D);
        });
    } else {
        // hidden = norm1(x + sa(x))
        for_rows(pool, N, [&](std::size_t r) {
            detail::residual_layer_norm_row(x.data() + r * D, projected + r * D, b_o, g1, n1, eps, hidden + r * D, D);
        });
    }
    detail::require_finite(function, "after_attention", {B, T, D}, hidden, why, pool);

    // 3. linear1, then its bias and the activation in one row pass.
    const float* ff_input = hidden;
    if (options.norm_first) {
        float* normalized = ws.normalized.data();
        for_rows(pool, N, [&](std::size_t r) {
            detail::residual_layer_norm_row(hidden + r * D, nullptr, nullptr, g2, n2, eps, normalized + r * D, D);
        });
        ff_input = normalized;
    }
    detail::project(ff_input, N, D, parameters.linear1_weight, nullptr, inner, pool);
    for_rows(pool, N, [&](std::size_t r) { detail::bias_activation_row(inner + r * F, b_1, F, options.activation); });
    detail::require_finite(function, "ffn_hidden", {B, T, F}, inner, why, pool);

    // 4. linear2, then its bias, the residual and (post-norm) norm2 in one row pass.
    detail::project(inner, N, F, parameters.linear2_weight, nullptr, projected, pool);
    if (options.norm_first) {
        // out = hidden + ff(norm2(hidden))
        for_rows(pool, N, [&](std::size_t r) { detail::residual_row(hidden + r * D, projected + r * D, b_2, out + r * D, D); });
    } else {
        // out = norm2(hidden + ff(hidden))
        for_rows(pool, N, [&](std::size_t r) {
            detail::residual_layer_norm_row(hidden + r * D, projected + r * D, b_2, g2, n2, eps, out + r * D, D);
        });
    }
    detail::require_finite(function, "output", {B, T, D}, out, why, pool);
}

Tensor3 transformer_encoder_layer(const Tensor3& x, const EncoderLayerParameters& parameters,
                                  const EncoderLayerOptions& options) {
    Tensor3 output;
    EncoderLayerWorkspace workspace;
    transformer_encoder_layer_into(x, parameters, options, output, workspace);
    return output;
}

}  // namespace attn::fast
