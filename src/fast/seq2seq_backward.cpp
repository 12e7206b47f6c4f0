// The float32 encoder-decoder model's backward (seq2seq_model.hpp): the forward's chain read from
// the end. One tensor, work.grad_stream, carries the gradient of the residual stream down a stack:
// a sublayer x + f(norm(x)) adds the gradient that flows through f and the norm to the one that
// flows past them, in place. The memory's gradient is the sum over the decoder layers of their
// cross-attention's key and value gradients, and enters the encoder through encoder.norm.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "layer_norm_training.hpp"
#include "projection.hpp"
#include "seq2seq_model.hpp"

namespace attn::fast::detail {

namespace {

void copy_into(float* to, const float* from, std::size_t count) { std::memcpy(to, from, count * sizeof(float)); }

// The attention's gradients in PyTorch's packing: in_proj rows q, k, v, then out_proj.
void store_attention_gradients(const AttentionParameters& g, const AttentionSlot& slot, std::size_t D, float* grads) {
    copy_into(grads + slot.in_proj_weight, g.w_q.data(), D * D);
    copy_into(grads + slot.in_proj_weight + D * D, g.w_k.data(), D * D);
    copy_into(grads + slot.in_proj_weight + 2 * D * D, g.w_v.data(), D * D);
    copy_into(grads + slot.in_proj_bias, g.b_q->data(), D);
    copy_into(grads + slot.in_proj_bias + D, g.b_k->data(), D);
    copy_into(grads + slot.in_proj_bias + 2 * D, g.b_v->data(), D);
    copy_into(grads + slot.out_proj.weight, g.w_o->data(), D * D);
    copy_into(grads + slot.out_proj.bias, g.b_o->data(), D);
}

// The gradient that reaches a sub-layer's output through its dropout: grad_stream ∘ factors in
// work.grad_dropped, or grad_stream itself when nothing was dropped.
const Tensor3& through_dropout(ModelWork& work, const std::vector<float>* factors) {
    if (factors == nullptr) return work.grad_stream;
    Tensor3& out = work.grad_dropped;
    if (out.shape() != work.grad_stream.shape()) out = Tensor3::from_shape(work.grad_stream.shape());
    const float* g = work.grad_stream.data();
    const float* f = factors->data();
    float* o = out.data();
    for (std::size_t i = 0; i < out.size(); ++i) o[i] = g[i] * f[i];
    return out;
}

// The gradient of a norm's input added to the stream's: dx += LayerNorm'ᵀ d_normed.
void norm_backward(const std::vector<float>& p, const NormSlot& slot, const Tensor3& x, const NormCache& norm,
                   const float* d_normed, Tensor3& grad_stream, float* grads, WorkerPool& pool) {
    const std::size_t rows = x.shape(0) * x.shape(1), D = x.shape(2);
    layer_norm_backward(x.data(), norm.mean.data(), norm.inverse_std.data(), p.data() + slot.weight, d_normed, rows, D,
                        grad_stream.data(), grads + slot.weight, grads + slot.bias, pool);
}

// x + linear2(relu(linear1(norm(x)))): grad_stream is the output's gradient, then the input's.
void feed_forward_backward(const std::vector<float>& p, const LinearSlot& linear1, const LinearSlot& linear2,
                           const NormSlot& norm_slot, std::size_t F, const Tensor3& x, const NormCache& norm,
                           const std::vector<float>& hidden, const std::vector<float>* hidden_dropout,
                           const std::vector<float>* output_dropout, ModelWork& work, float* grads, WorkerPool& pool) {
    const std::size_t rows = x.shape(0) * x.shape(1), D = x.shape(2);
    work.grad_hidden.resize(rows * F);
    work.grad_normed.resize(rows * D);
    const Tensor3& d_output = through_dropout(work, output_dropout);
    project_backward(hidden.data(), d_output.data(), rows, F, p.data() + linear2.weight, D, grads + linear2.weight,
                     grads + linear2.bias, work.grad_hidden.data(), pool);
    // ReLU's derivative, 0 at 0 as PyTorch's; a select, not a branch (half the values take each way).
    // With dropout, `hidden` is the dropped one: positive exactly where the ReLU's output was and
    // the value kept, and the dropout's factor (0 or 1/(1 − p)) multiplies the gradient.
    float* d_hidden = work.grad_hidden.data();
    const float* h = hidden.data();
    if (hidden_dropout == nullptr) {
        for (std::size_t i = 0; i < work.grad_hidden.size(); ++i) d_hidden[i] = h[i] > 0.0f ? d_hidden[i] : 0.0f;
    } else {
        const float* f = hidden_dropout->data();
        for (std::size_t i = 0; i < work.grad_hidden.size(); ++i) d_hidden[i] = h[i] > 0.0f ? d_hidden[i] * f[i] : 0.0f;
    }
    project_backward(norm.output.data(), work.grad_hidden.data(), rows, D, p.data() + linear1.weight, F,
                     grads + linear1.weight, grads + linear1.bias, work.grad_normed.data(), pool);
    norm_backward(p, norm_slot, x, norm, work.grad_normed.data(), work.grad_stream, grads, pool);
}

// x + self_attention(norm(x)): the query's, key's and value's gradients are the normed rows'.
void self_attention_backward(const std::vector<float>& p, const AttentionSlot& slot, const NormSlot& norm_slot,
                             const AttentionParameters& parameters, const AttentionOptions& options,
                             const Tensor3& x, const NormCache& norm, const AttentionTrainingResult& forward,
                             const std::vector<float>* weights_dropout, const std::vector<float>* output_dropout,
                             AttentionGradients& g, ModelWork& work, float* grads, WorkerPool& pool) {
    const Tensor3& n = norm.output;
    multi_head_attention_backward(n, n, n, parameters, options, forward, through_dropout(work, output_dropout), g,
                                  work.attention_workspace, weights_dropout);
    store_attention_gradients(g.parameters, slot, x.shape(2), grads);
    work.grad_normed.resize(n.size());
    for (std::size_t i = 0; i < n.size(); ++i) {
        work.grad_normed[i] = g.query.data()[i] + g.key.data()[i] + g.value.data()[i];
    }
    norm_backward(p, norm_slot, x, norm, work.grad_normed.data(), work.grad_stream, grads, pool);
}

// x + cross_attention(norm(x), memory): the keys' and values' gradients go to the memory's.
void cross_attention_backward(const std::vector<float>& p, const AttentionSlot& slot, const NormSlot& norm_slot,
                              const AttentionParameters& parameters, const AttentionOptions& options,
                              const Tensor3& x, const NormCache& norm, const AttentionTrainingResult& forward,
                              const std::vector<float>* weights_dropout, const std::vector<float>* output_dropout,
                              ModelWork& work, float* grads, WorkerPool& pool) {
    const Tensor3& memory = work.encoder_norm.output;
    AttentionGradients& g = work.decoder_cross_gradients;
    multi_head_attention_backward(norm.output, memory, memory, parameters, options, forward,
                                  through_dropout(work, output_dropout), g, work.attention_workspace, weights_dropout);
    store_attention_gradients(g.parameters, slot, x.shape(2), grads);
    float* d_memory = work.grad_memory.data();
    for (std::size_t i = 0; i < work.grad_memory.size(); ++i) d_memory[i] += g.key.data()[i] + g.value.data()[i];
    norm_backward(p, norm_slot, x, norm, g.query.data(), work.grad_stream, grads, pool);
}

// x = table[ids] · √D + PE: each looked-up row receives its position's gradient times √D.
// With dropout on the sum, the gradient passes through its factors first.
void embedding_backward(const IdTensor& ids, const Tensor3& grad_x, const std::vector<float>* dropout, std::size_t D,
                        float* grad_table) {
    const float scale = static_cast<float>(std::sqrt(double(D)));
    for (std::size_t i = 0; i < ids.size(); ++i) {
        float* row = grad_table + static_cast<std::size_t>(ids.data()[i]) * D;
        const float* g = grad_x.data() + i * D;
        if (dropout == nullptr) {
            for (std::size_t d = 0; d < D; ++d) row[d] += g[d] * scale;
        } else {
            const float* f = dropout->data() + i * D;
            for (std::size_t d = 0; d < D; ++d) row[d] += g[d] * f[d] * scale;
        }
    }
}

void reset(Tensor3& t, const Tensor3& like) {
    if (t.shape() != like.shape()) t = Tensor3::from_shape(like.shape());
    std::fill(t.begin(), t.end(), 0.0f);
}

void decoder_backward(const std::vector<float>& p, const ModelLayout& layout, ModelWork& work, float* grads,
                      WorkerPool& pool) {
    const std::size_t N = layout.decoder.size(), D = layout.D;
    const Tensor3& output = work.decoder_norm.output;
    const std::size_t rows = output.shape(0) * output.shape(1);
    work.grad_normed.resize(rows * D);
    project_backward(output.data(), work.grad_logits.data(), rows, D, p.data() + layout.generator.weight, layout.V,
                     grads + layout.generator.weight, grads + layout.generator.bias, work.grad_normed.data(), pool);
    reset(work.grad_stream, work.decoder_stream[N]);
    norm_backward(p, layout.decoder_norm, work.decoder_stream[N], work.decoder_norm, work.grad_normed.data(),
                  work.grad_stream, grads, pool);
    AttentionOptions self_options(layout.heads), cross_options(layout.heads);
    self_options.causal = true;
    for (std::size_t l = N; l-- > 0;) {
        const DecoderLayerSlots& s = layout.decoder[l];
        const DecoderLayerCache& c = work.decoder[l];
        const DecoderLayerDropout* f = work.dropout.active ? &work.dropout.decoder[l] : nullptr;
        feed_forward_backward(p, s.linear1, s.linear2, s.norm3, layout.F, c.after_cross, c.norm3, c.hidden,
                              f ? &f->hidden : nullptr, f ? &f->output : nullptr, work, grads, pool);
        cross_attention_backward(p, s.cross_attention, s.norm2, work.decoder_cross_attention[l], cross_options,
                                 c.after_self, c.norm2, c.cross_attention, f ? &f->cross_weights : nullptr,
                                 f ? &f->cross_attention : nullptr, work, grads, pool);
        self_attention_backward(p, s.self_attention, s.norm1, work.decoder_self_attention[l], self_options,
                                work.decoder_stream[l], c.norm1, c.self_attention, f ? &f->self_weights : nullptr,
                                f ? &f->self_attention : nullptr, work.decoder_self_gradients, work, grads, pool);
    }
}

void encoder_backward(const std::vector<float>& p, const ModelLayout& layout, ModelWork& work, float* grads,
                      WorkerPool& pool) {
    const std::size_t N = layout.encoder.size();
    reset(work.grad_stream, work.encoder_stream[N]);
    norm_backward(p, layout.encoder_norm, work.encoder_stream[N], work.encoder_norm, work.grad_memory.data(),
                  work.grad_stream, grads, pool);
    const AttentionOptions options(layout.heads);
    for (std::size_t l = N; l-- > 0;) {
        const EncoderLayerSlots& s = layout.encoder[l];
        const EncoderLayerCache& c = work.encoder[l];
        const EncoderLayerDropout* f = work.dropout.active ? &work.dropout.encoder[l] : nullptr;
        feed_forward_backward(p, s.linear1, s.linear2, s.norm2, layout.F, c.middle, c.norm2, c.hidden,
                              f ? &f->hidden : nullptr, f ? &f->output : nullptr, work, grads, pool);
        self_attention_backward(p, s.self_attention, s.norm1, work.encoder_attention[l], options,
                                work.encoder_stream[l], c.norm1, c.attention, f ? &f->weights : nullptr,
                                f ? &f->attention : nullptr, work.encoder_attention_gradients, work, grads, pool);
    }
}

}  // namespace

void model_backward(const std::vector<float>& parameters, const ModelLayout& layout, const IdTensor& src,
                    const IdTensor& decoder_input, ModelWork& work, std::vector<float>& gradients,
                    WorkerPool& pool) {
    gradients.assign(layout.total, 0.0f);
    float* grads = gradients.data();
    reset(work.grad_memory, work.encoder_norm.output);
    const DropoutFactors& d = work.dropout;
    decoder_backward(parameters, layout, work, grads, pool);
    embedding_backward(decoder_input, work.grad_stream, d.active ? &d.tgt_embedding : nullptr, layout.D,
                       grads + layout.tgt_embedding);
    encoder_backward(parameters, layout, work, grads, pool);
    embedding_backward(src, work.grad_stream, d.active ? &d.src_embedding : nullptr, layout.D,
                       grads + layout.src_embedding);
}

}  // namespace attn::fast::detail
