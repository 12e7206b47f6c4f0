// attn::fast::IncrementalDecoder (attn/fast/decoder.hpp).
//
// Construction: check, copy the parameters, project the memory's keys and values of every layer
// (one sgemm over B·S rows each), allocate the caches and the step's buffers.
// A step, per layer, on the new token's rows x (B, D), updated in place:
//   1. self-attention: q, k, v of x (or norm1(x)) in one hand-out; k, v written into the cache at
//      position t; attention over positions 0 … t; output projection; residual (+ norm1);
//   2. cross-attention: q; attention over the memory's S rows; output projection; residual (+ norm2);
//   3. feed-forward: linear1 + bias; activation; linear2 + bias; residual (+ norm3);
// then the final norm. Row passes (B rows of D) run on the calling thread: they are tiny.
#include <chrono>
#include <cstring>
#include <string>

#include "arguments.hpp"
#include "attn/error.hpp"
#include "attn/fast/decoder.hpp"
#include "attn/shape.hpp"
#include "cached_attention.hpp"
#include "kernels.hpp"
#include "non_finite.hpp"
#include "projection.hpp"
#include "thread_pool.hpp"

namespace attn::fast {

namespace {

// One layer's keys and values: the cache (B, g, N, d_k) and the memory's (B, g, S, d_k) — each
// head's rows contiguous, so that attention reads them as one stream.
struct LayerKeysValues {
    std::vector<float> keys, values;
    std::vector<float> memory_keys, memory_values;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

struct IncrementalDecoder::State {
    std::string function = "fast::IncrementalDecoder";
    std::vector<DecoderLayerParameters> layers;
    DecoderOptions options;
    detail::DecoderSizes sizes{};
    std::size_t capacity = 0, length = 0;
    std::vector<LayerKeysValues> kv;
    // The step's buffers: x (B, D) the running rows, normalized (B, D), q and context (B, D),
    // k and v (B, g·d_k), projected (B, D), inner (B, F); scratch: the attention's scores.
    std::vector<float> x, normalized, q, k, v, context, projected, inner, scratch;
    DecodeWork work;

    std::size_t kv_width() const { return sizes.kv_heads * sizes.d_k; }

    // rows[r] = LayerNorm(rows[r] (+ add[r])) for the B rows, in place.
    void norm(float* rows, const float* add, const Vector& weight, const Vector& bias, float* out) const {
        for (std::size_t b = 0; b < sizes.B; ++b) {
            detail::residual_layer_norm_row(rows + b * sizes.D, add != nullptr ? add + b * sizes.D : nullptr, nullptr,
                                            weight.data(), bias.data(), options.eps, out + b * sizes.D, sizes.D);
        }
    }

    // x = x + projected, then (post-norm) the norm: the residual of every block.
    void residual(const Vector& weight, const Vector& bias) {
        if (options.norm_first) {
            for (std::size_t b = 0; b < sizes.B; ++b) {
                detail::residual_row(x.data() + b * sizes.D, projected.data() + b * sizes.D, nullptr,
                                     x.data() + b * sizes.D, sizes.D);
            }
        } else {
            norm(x.data(), projected.data(), weight, bias, x.data());
        }
    }

    // The block's input: x, or its norm in pre-norm.
    const float* block_input(const Vector& weight, const Vector& bias) {
        if (!options.norm_first) return x.data();
        norm(x.data(), nullptr, weight, bias, normalized.data());
        return normalized.data();
    }

    void project(const std::vector<detail::Product>& products, detail::WorkerPool& pool) {
        const auto start = std::chrono::steady_clock::now();
        detail::project_together(products, sizes.B, pool);
        work.projection_seconds += seconds_since(start);
        for (const detail::Product& p : products) {
            work.projection_flops += 2.0 * double(sizes.B) * double(p.weight->shape(0)) * double(p.weight->shape(1));
        }
    }

    void attend(const float* keys, const float* values, std::size_t rows, detail::RowStrides strides,
                detail::WorkerPool& pool) {
        const auto start = std::chrono::steady_clock::now();
        detail::attend_rows({q.data(), keys, values, sizes.B, sizes.heads, sizes.kv_heads, sizes.d_k, rows, strides,
                             strides, context.data()},
                            scratch, pool);
        work.attention_seconds += seconds_since(start);
        work.attention_flops += 2.0 * 2.0 * double(sizes.B) * double(rows) * double(sizes.D);
    }

    void self_attention(const DecoderLayerParameters& p, LayerKeysValues& kv_layer, detail::WorkerPool& pool) {
        const AttentionParameters& a = p.self_attention;
        const float* in = block_input(p.norm1_weight, p.norm1_bias);
        project({{in, &a.w_q, detail::data_or_null(a.b_q), q.data()},
                 {in, &a.w_k, detail::data_or_null(a.b_k), k.data()},
                 {in, &a.w_v, detail::data_or_null(a.b_v), v.data()}},
                pool);
        const std::size_t g = sizes.kv_heads, d_k = sizes.d_k, N = capacity;
        for (std::size_t b = 0; b < sizes.B; ++b) {
            for (std::size_t j = 0; j < g; ++j) {
                const std::size_t at = ((b * g + j) * N + length) * d_k, from = b * kv_width() + j * d_k;
                std::memcpy(kv_layer.keys.data() + at, k.data() + from, d_k * sizeof(float));
                std::memcpy(kv_layer.values.data() + at, v.data() + from, d_k * sizeof(float));
            }
        }
        attend(kv_layer.keys.data(), kv_layer.values.data(), length + 1, {g * N * d_k, N * d_k, d_k}, pool);
        project({{context.data(), &*a.w_o, detail::data_or_null(a.b_o), projected.data()}}, pool);
        residual(p.norm1_weight, p.norm1_bias);
    }

    void cross_attention(const DecoderLayerParameters& p, const LayerKeysValues& kv_layer, detail::WorkerPool& pool) {
        const AttentionParameters& a = p.cross_attention;
        const float* in = block_input(p.norm2_weight, p.norm2_bias);
        project({{in, &a.w_q, detail::data_or_null(a.b_q), q.data()}}, pool);
        attend(kv_layer.memory_keys.data(), kv_layer.memory_values.data(), sizes.S,
               {sizes.S * kv_width(), sizes.S * sizes.d_k, sizes.d_k}, pool);
        project({{context.data(), &*a.w_o, detail::data_or_null(a.b_o), projected.data()}}, pool);
        residual(p.norm2_weight, p.norm2_bias);
    }

    void feed_forward(const DecoderLayerParameters& p, detail::WorkerPool& pool) {
        const float* in = block_input(p.norm3_weight, p.norm3_bias);
        project({{in, &p.linear1_weight, detail::data_or_null(p.linear1_bias), inner.data()}}, pool);
        for (std::size_t b = 0; b < sizes.B; ++b) {
            detail::bias_activation_row(inner.data() + b * sizes.F, nullptr, sizes.F, options.activation);
        }
        project({{inner.data(), &p.linear2_weight, detail::data_or_null(p.linear2_bias), projected.data()}}, pool);
        residual(p.norm3_weight, p.norm3_bias);
    }

    // (B, S, g·d_k) as nn.Linear leaves it → (B, g, S, d_k).
    void split_heads(const std::vector<float>& rows, std::vector<float>& heads) const {
        const std::size_t S = sizes.S, g = sizes.kv_heads, d_k = sizes.d_k;
        heads.resize(rows.size());
        for (std::size_t b = 0; b < sizes.B; ++b) {
            for (std::size_t j = 0; j < g; ++j) {
                for (std::size_t s = 0; s < S; ++s) {
                    std::memcpy(heads.data() + ((b * g + j) * S + s) * d_k, rows.data() + (b * S + s) * kv_width() + j * d_k,
                                d_k * sizeof(float));
                }
            }
        }
    }

    // The memory's keys and values of every layer, (B, g, S, d_k) each.
    void project_memory(const Tensor3& memory, detail::WorkerPool& pool) {
        const auto start = std::chrono::steady_clock::now();
        const std::size_t rows = sizes.B * sizes.S;
        kv.resize(layers.size());
        std::vector<float> projected_rows(rows * kv_width());
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const AttentionParameters& a = layers[i].cross_attention;
            detail::project(memory.data(), rows, sizes.D, a.w_k, detail::data_or_null(a.b_k), projected_rows.data(), pool);
            split_heads(projected_rows, kv[i].memory_keys);
            detail::project(memory.data(), rows, sizes.D, a.w_v, detail::data_or_null(a.b_v), projected_rows.data(), pool);
            split_heads(projected_rows, kv[i].memory_values);
            work.memory_flops += 2.0 * 2.0 * double(rows) * double(kv_width()) * double(sizes.D);
            kv[i].keys.resize(sizes.B * capacity * kv_width());
            kv[i].values.resize(sizes.B * capacity * kv_width());
        }
        work.memory_seconds = seconds_since(start);
    }
};

IncrementalDecoder::IncrementalDecoder(std::vector<DecoderLayerParameters> layers, DecoderOptions options,
                                       const Tensor3& memory, std::size_t capacity)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.sizes = detail::check_decoder_arguments(s.function, layers, options, memory, capacity);
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();
    detail::require_finite(s.function, "memory", {s.sizes.B, s.sizes.S, s.sizes.D}, memory.data(),
                           "the memory (the encoder's output) must be finite", *pool);
    s.layers = std::move(layers);
    s.options = std::move(options);
    s.capacity = capacity;
    const std::size_t B = s.sizes.B, D = s.sizes.D;
    for (auto* buffer : {&s.x, &s.normalized, &s.q, &s.context, &s.projected}) buffer->resize(B * D);
    s.k.resize(B * s.kv_width());
    s.v.resize(B * s.kv_width());
    s.inner.resize(B * s.sizes.F);
    s.project_memory(memory, *pool);
}

IncrementalDecoder::~IncrementalDecoder() = default;
IncrementalDecoder::IncrementalDecoder(IncrementalDecoder&&) noexcept = default;
IncrementalDecoder& IncrementalDecoder::operator=(IncrementalDecoder&&) noexcept = default;

void IncrementalDecoder::step_into(const Matrix& token, Matrix& output) {
    State& s = *state_;
    const std::size_t B = s.sizes.B, D = s.sizes.D;
    check_shapes(s.function, {{"memory", std::vector<std::size_t>{B, s.sizes.S, D}, "B,S,D"}, {"token", token, "B,D"}});
    if (s.length == s.capacity) {
        throw InputError(s.function + ": the cache is full: it holds " + std::to_string(s.capacity) +
                         " tokens (the capacity given at construction); reset() starts again over the same memory");
    }
    const std::shared_ptr<detail::WorkerPool> pool = detail::shared_pool();
    detail::require_finite(s.function, "token", {B, D}, token.data(), "the token's embedding must be finite", *pool);
    std::memcpy(s.x.data(), token.data(), B * D * sizeof(float));
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
        s.self_attention(s.layers[i], s.kv[i], *pool);
        s.cross_attention(s.layers[i], s.kv[i], *pool);
        s.feed_forward(s.layers[i], *pool);
    }
    if (s.options.final_norm) s.norm(s.x.data(), nullptr, s.options.final_norm->first, s.options.final_norm->second, s.x.data());
    detail::require_finite(s.function, "output", {B, D}, s.x.data(),
                           std::string("float32 arithmetic on the decoder's inputs; ") + detail::float32_overflow_advice,
                           *pool);
    output.resize({B, D});
    std::memcpy(output.data(), s.x.data(), B * D * sizeof(float));
    ++s.length;  // only now: a refused step leaves the cache as it was
}

Matrix IncrementalDecoder::step(const Matrix& token) {
    Matrix output;
    step_into(token, output);
    return output;
}

std::size_t IncrementalDecoder::length() const { return state_->length; }
std::size_t IncrementalDecoder::capacity() const { return state_->capacity; }
void IncrementalDecoder::reset() { state_->length = 0; }
const DecodeWork& IncrementalDecoder::work() const { return state_->work; }

double decoder_cache_bytes_per_token(std::size_t B, std::size_t L, std::size_t kv_heads, std::size_t d_k) {
    return 2.0 * double(L) * double(kv_heads) * double(d_k) * 4.0 * double(B);
}

}  // namespace attn::fast
