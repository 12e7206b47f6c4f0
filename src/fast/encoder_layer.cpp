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

// What the two blocks of one call share: sizes, parameters, options, workspace, pool.
struct LayerCall {
    std::string function;
    std::size_t B, T, D, F, N;  // N = B·T rows
    const EncoderLayerParameters& parameters;
    const EncoderLayerOptions& options;
    EncoderLayerWorkspace& ws;
    detail::WorkerPool& pool;
    std::string why;  // what a non-finite value means here

    // out[r] = LayerNorm(a[r] + b[r] + bias) with the norm's weight and bias, every row.
    void norm_rows(const float* a, const float* b, const float* bias, const Vector& weight, const Vector& norm_bias,
                   float* out) const {
        const std::size_t d = D;
        const float eps = options.eps, *g = weight.data(), *n = norm_bias.data();
        for_rows(pool, N, [&](std::size_t r) {
            detail::residual_layer_norm_row(a + r * d, b != nullptr ? b + r * d : nullptr, bias, g, n, eps, out + r * d, d);
        });
    }
    // out[r] = a[r] + b[r] + bias, every row.
    void add_rows(const float* a, const float* b, const float* bias, float* out) const {
        const std::size_t d = D;
        for_rows(pool, N, [&](std::size_t r) { detail::residual_row(a + r * d, b + r * d, bias, out + r * d, d); });
    }
};

// Steps 1 and 2: hidden = norm1(x + sa(x)), or x + sa(norm1(x)) with norm_first. x, hidden (N, D)
void attention_block(const LayerCall& c, const float* x, float* hidden) {
    const AttentionParameters& a = c.parameters.attention;
    // 1. The self-attention's context (written over its q, in ws.attention.q).
    const float* attention_input = x;
    if (c.options.norm_first) {
        c.ws.normalized.resize(c.N * c.D);
        c.norm_rows(x, nullptr, nullptr, c.parameters.norm1_weight, c.parameters.norm1_bias, c.ws.normalized.data());
        attention_input = c.ws.normalized.data();
    }
    c.ws.attention_work = AttentionWork{};
    c.ws.attention.q.resize(c.N * c.D);
    float* context = c.ws.attention.q.data();
    const detail::AttendArguments attend{c.function, attention_input, attention_input, attention_input,
                                         {c.B, c.T, c.T, c.D, c.options.heads}, a, c.options.attention_mask,
                                         c.options.causal, c.options.query_tile, c.options.key_tile};
    detail::project_and_attend(attend, nullptr, context, c.ws.attention, c.pool, c.ws.attention_work);
    // 2. The output projection, then its bias, the residual and (post-norm) norm1 in one row pass.
    float* projected = c.ws.projected.data();
    detail::project(context, c.N, c.D, *a.w_o, nullptr, projected, c.pool);
    c.ws.attention_work.output_flops = 2.0 * double(c.N) * double(c.D) * double(c.D);
    const float* b_o = detail::data_or_null(a.b_o);
    if (c.options.norm_first) {
        c.add_rows(x, projected, b_o, hidden);
    } else {
        c.norm_rows(x, projected, b_o, c.parameters.norm1_weight, c.parameters.norm1_bias, hidden);
    }
    detail::require_finite(c.function, "after_attention", {c.B, c.T, c.D}, hidden, c.why, c.pool);
}

// Steps 3 and 4: out = norm2(hidden + ff(hidden)), or hidden + ff(norm2(hidden)) with norm_first.
// hidden, out (N, D) · the inner activations (N, F) in ws.inner
void feed_forward_block(const LayerCall& c, const float* hidden, float* out) {
    const EncoderLayerParameters& p = c.parameters;
    // 3. linear1, then its bias and the activation in one row pass.
    const float* ff_input = hidden;
    if (c.options.norm_first) {
        c.norm_rows(hidden, nullptr, nullptr, p.norm2_weight, p.norm2_bias, c.ws.normalized.data());
        ff_input = c.ws.normalized.data();
    }
    float* inner = c.ws.inner.data();
    const std::size_t F = c.F;
    const float* b_1 = detail::data_or_null(p.linear1_bias);
    detail::project(ff_input, c.N, c.D, p.linear1_weight, nullptr, inner, c.pool);
    for_rows(c.pool, c.N, [&](std::size_t r) { detail::bias_activation_row(inner + r * F, b_1, F, c.options.activation); });
    detail::require_finite(c.function, "ffn_hidden", {c.B, c.T, F}, inner, c.why, c.pool);
    // 4. linear2, then its bias, the residual and (post-norm) norm2 in one row pass.
    float* projected = c.ws.projected.data();
    const float* b_2 = detail::data_or_null(p.linear2_bias);
    detail::project(inner, c.N, F, p.linear2_weight, nullptr, projected, c.pool);
    if (c.options.norm_first) {
        c.add_rows(hidden, projected, b_2, out);
    } else {
        c.norm_rows(hidden, projected, b_2, p.norm2_weight, p.norm2_bias, out);
    }
    detail::require_finite(c.function, "output", {c.B, c.T, c.D}, out, c.why, c.pool);
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
    const std::size_t F = detail::check_encoder_arguments(function, x, parameters, options);
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2), N = B * T;
    const std::shared_ptr<detail::WorkerPool> pool_owner = detail::shared_pool();
    output.resize({B, T, D});
    ws.projected.resize(N * D);
    ws.hidden.resize(N * D);
    ws.inner.resize(N * F);
    const LayerCall call{function, B, T, D, F, N, parameters, options, ws, *pool_owner,
                         std::string("float32 arithmetic on the layer's inputs; ") + detail::float32_overflow_advice};
    attention_block(call, x.data(), ws.hidden.data());
    feed_forward_block(call, ws.hidden.data(), output.data());
}

Tensor3 transformer_encoder_layer(const Tensor3& x, const EncoderLayerParameters& parameters,
                                  const EncoderLayerOptions& options) {
    Tensor3 output;
    EncoderLayerWorkspace workspace;
    transformer_encoder_layer_into(x, parameters, options, output, workspace);
    return output;
}

}  // namespace attn::fast
