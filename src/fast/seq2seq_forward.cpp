// The float32 encoder-decoder model's forward, keeping what the backward reads (seq2seq_model.hpp):
//   x = table[ids] · √D + PE;  per pre-norm layer x += attention(norm1(x)) [x += cross(norm2(x), memory)]
//   x += linear2(relu(linear1(norm_last(x))));  the stack's final norm;  logits = output Gᵀ + g
// In training with dropout (work.dropout active), the factors of seq2seq_dropout.cpp multiply the
// embeddings' sum, the attention weights (inside the tiled attention), each attention's output,
// the ReLU's output and the feed-forward's output, as nn.Transformer's dropouts do.
#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/positions.hpp"
#include "attn/shape.hpp"
#include "layer_norm_training.hpp"
#include "projection.hpp"
#include "seq2seq_model.hpp"

namespace attn::fast::detail {

namespace {

void ensure_shape(Tensor3& t, std::size_t B, std::size_t T, std::size_t D) {
    if (t.shape(0) != B || t.shape(1) != T || t.shape(2) != D) t = Tensor3::from_shape({B, T, D});
}

// The sinusoidal table (T, D) in float32, computed in double once per length.
const float* positions_of(std::size_t T, std::size_t D, std::vector<float>& table) {
    if (table.size() < T * D) {
        const attn::Matrix positions = sinusoidal_positions(T, D);  // double
        table.assign(positions.begin(), positions.end());
    }
    return table.data();
}

void embed(const float* table, std::size_t V, const IdTensor& ids, const std::string& name, std::size_t D,
           std::vector<float>& positions, Tensor3& out) {
    const std::size_t B = ids.shape(0), T = ids.shape(1);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids.data()[i] < 0 || ids.data()[i] >= static_cast<std::int64_t>(V)) {
            throw InputError("seq2seq training: " + name + index_string(i, {B, T}) + " = " +
                             std::to_string(ids.data()[i]) + " is outside the vocabulary 0 … " + std::to_string(V - 1));
        }
    }
    ensure_shape(out, B, T, D);
    const float* pe = positions_of(T, D, positions);
    const float scale = static_cast<float>(std::sqrt(double(D)));
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            const float* row = table + static_cast<std::size_t>(ids(b, t)) * D;
            float* x = &out(b, t, 0);
            for (std::size_t d = 0; d < D; ++d) x[d] = row[d] * scale + pe[t * D + d];
        }
    }
}

void norm_forward(const std::vector<float>& p, const NormSlot& slot, const Tensor3& x, float eps, NormCache& cache,
                  WorkerPool& pool) {
    const std::size_t rows = x.shape(0) * x.shape(1), D = x.shape(2);
    ensure_shape(cache.output, x.shape(0), x.shape(1), D);
    cache.mean.resize(rows);
    cache.inverse_std.resize(rows);
    layer_norm_forward(x.data(), rows, D, p.data() + slot.weight, p.data() + slot.bias, eps, cache.output.data(),
                       cache.mean.data(), cache.inverse_std.data(), pool);
}

// The step's factors when training with dropout, else null (nothing is dropped).
const std::vector<float>* factors(const ModelWork& work, const std::vector<float>& values) {
    return work.dropout.active ? &values : nullptr;
}

// x ∘= factors, element by element (nothing when factors is null).
void drop(float* x, std::size_t count, const std::vector<float>* factors) {
    if (factors == nullptr) return;
    const float* f = factors->data();
    for (std::size_t i = 0; i < count; ++i) x[i] *= f[i];
}

// out = a + b ∘ factors, element by element (a + b when factors is null: nothing dropped).
void add(const Tensor3& a, const Tensor3& b, const std::vector<float>* factors, Tensor3& out) {
    ensure_shape(out, a.shape(0), a.shape(1), a.shape(2));
    const float* x = a.data();
    const float* y = b.data();
    float* z = out.data();
    if (factors == nullptr) {
        for (std::size_t i = 0; i < out.size(); ++i) z[i] = x[i] + y[i];
    } else {
        const float* f = factors->data();
        for (std::size_t i = 0; i < out.size(); ++i) z[i] = x[i] + y[i] * f[i];
    }
}

// out = x + linear2(relu(linear1(norm(x)))); hidden keeps the ReLU's output.
void feed_forward_sublayer(const std::vector<float>& p, const NormSlot& norm_slot, const LinearSlot& linear1,
                           const LinearSlot& linear2, std::size_t F, const Tensor3& x, float eps, NormCache& norm,
                           std::vector<float>& hidden, const std::vector<float>* hidden_dropout,
                           const std::vector<float>* output_dropout, Tensor3& out, WorkerPool& pool) {
    norm_forward(p, norm_slot, x, eps, norm, pool);
    const std::size_t rows = x.shape(0) * x.shape(1), D = x.shape(2);
    hidden.resize(rows * F);
    project(norm.output.data(), rows, D, p.data() + linear1.weight, F, p.data() + linear1.bias, hidden.data(), pool);
    for (float& h : hidden) h = h > 0.0f ? h : 0.0f;
    drop(hidden.data(), hidden.size(), hidden_dropout);
    ensure_shape(out, x.shape(0), x.shape(1), D);
    project(hidden.data(), rows, F, p.data() + linear2.weight, D, p.data() + linear2.bias, out.data(), pool);
    drop(out.data(), out.size(), output_dropout);
    const float* r = x.data();
    float* o = out.data();
    for (std::size_t i = 0; i < out.size(); ++i) o[i] += r[i];
}

// out = x + attention(norm(x), keys and values): the normed rows themselves, or the memory.
void attention_sublayer(const std::vector<float>& p, const NormSlot& norm_slot, const Tensor3& x, const Tensor3* memory,
                        const AttentionParameters& parameters, const AttentionOptions& options, float eps,
                        NormCache& norm, AttentionTrainingResult& attention, AttentionTrainingWorkspace& workspace,
                        const std::vector<float>* weights_dropout, const std::vector<float>* output_dropout,
                        Tensor3& out, WorkerPool& pool) {
    norm_forward(p, norm_slot, x, eps, norm, pool);
    const Tensor3& keys = memory != nullptr ? *memory : norm.output;
    multi_head_attention_for_training(norm.output, keys, keys, parameters, options, attention, workspace,
                                      weights_dropout);
    add(x, attention.output, output_dropout, out);
}

AttentionOptions attention_options(std::size_t heads, bool causal) {
    AttentionOptions options(heads);
    options.need_weights = false;
    options.causal = causal;
    return options;
}

}  // namespace

void encoder_forward(const std::vector<float>& p, const ModelLayout& layout, const IdTensor& src, float eps,
                     ModelWork& work, WorkerPool& pool) {
    const std::size_t N = layout.encoder.size();
    work.encoder_stream.resize(N + 1);
    work.encoder.resize(N);
    embed(p.data() + layout.src_embedding, layout.V, src, "src", layout.D, work.positions, work.encoder_stream[0]);
    const DropoutFactors& d = work.dropout;
    drop(work.encoder_stream[0].data(), work.encoder_stream[0].size(), factors(work, d.src_embedding));
    const AttentionOptions options = attention_options(layout.heads, false);
    for (std::size_t l = 0; l < N; ++l) {
        const EncoderLayerSlots& slots = layout.encoder[l];
        EncoderLayerCache& c = work.encoder[l];
        const EncoderLayerDropout* f = d.active ? &d.encoder[l] : nullptr;
        attention_sublayer(p, slots.norm1, work.encoder_stream[l], nullptr, work.encoder_attention[l], options, eps,
                           c.norm1, c.attention, work.attention_workspace, f ? &f->weights : nullptr,
                           f ? &f->attention : nullptr, c.middle, pool);
        feed_forward_sublayer(p, slots.norm2, slots.linear1, slots.linear2, layout.F, c.middle, eps, c.norm2, c.hidden,
                              f ? &f->hidden : nullptr, f ? &f->output : nullptr, work.encoder_stream[l + 1], pool);
    }
    norm_forward(p, layout.encoder_norm, work.encoder_stream[N], eps, work.encoder_norm, pool);
}

void decoder_forward(const std::vector<float>& p, const ModelLayout& layout, const IdTensor& decoder_input, float eps,
                     ModelWork& work, WorkerPool& pool) {
    const Tensor3& memory = work.encoder_norm.output;
    if (decoder_input.shape(0) != memory.shape(0)) {
        throw ShapeError("seq2seq training: src has " + std::to_string(memory.shape(0)) + " sequences and decoder_input " +
                         shape_string(decoder_input.shape()) + "; their batch sizes B must agree");
    }
    const std::size_t N = layout.decoder.size();
    work.decoder_stream.resize(N + 1);
    work.decoder.resize(N);
    embed(p.data() + layout.tgt_embedding, layout.V, decoder_input, "decoder_input", layout.D, work.positions,
          work.decoder_stream[0]);
    const DropoutFactors& d = work.dropout;
    drop(work.decoder_stream[0].data(), work.decoder_stream[0].size(), factors(work, d.tgt_embedding));
    const AttentionOptions self_options = attention_options(layout.heads, true);
    const AttentionOptions cross_options = attention_options(layout.heads, false);
    for (std::size_t l = 0; l < N; ++l) {
        const DecoderLayerSlots& slots = layout.decoder[l];
        DecoderLayerCache& c = work.decoder[l];
        const DecoderLayerDropout* f = d.active ? &d.decoder[l] : nullptr;
        attention_sublayer(p, slots.norm1, work.decoder_stream[l], nullptr, work.decoder_self_attention[l],
                           self_options, eps, c.norm1, c.self_attention, work.attention_workspace,
                           f ? &f->self_weights : nullptr, f ? &f->self_attention : nullptr, c.after_self, pool);
        attention_sublayer(p, slots.norm2, c.after_self, &memory, work.decoder_cross_attention[l], cross_options, eps,
                           c.norm2, c.cross_attention, work.attention_workspace, f ? &f->cross_weights : nullptr,
                           f ? &f->cross_attention : nullptr, c.after_cross, pool);
        feed_forward_sublayer(p, slots.norm3, slots.linear1, slots.linear2, layout.F, c.after_cross, eps, c.norm3,
                              c.hidden, f ? &f->hidden : nullptr, f ? &f->output : nullptr, work.decoder_stream[l + 1],
                              pool);
    }
    norm_forward(p, layout.decoder_norm, work.decoder_stream[N], eps, work.decoder_norm, pool);
    const Tensor3& output = work.decoder_norm.output;
    const std::size_t rows = output.shape(0) * output.shape(1);
    work.logits.resize(rows * layout.V);
    project(output.data(), rows, layout.D, p.data() + layout.generator.weight, layout.V,
            p.data() + layout.generator.bias, work.logits.data(), pool);
}

}  // namespace attn::fast::detail
