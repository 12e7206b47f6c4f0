// src/fast/seq2seq_model.hpp — private to the fast path: the float32 encoder-decoder model of
// attn/fast/seq2seq_training.hpp — where each parameter lives in the flat buffer, what the forward
// keeps for the backward, and the two passes.
//
// Why offsets rather than tensors: Adam updates every value alike, so the parameters live in one
// buffer (PyTorch's named_parameters order, attn/seq2seq_parameters.hpp) and each layer reads its
// weights at their offsets. The one exception is the attention, whose functions take
// AttentionParameters: each attention keeps one, refreshed from the buffer before each forward.
//
// Shapes: B batch · S source positions · T target positions · D model width · F feed-forward
// width · V vocabulary · h heads; rows = B·S in the encoder, B·T in the decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "attn/embedding.hpp"
#include "attn/fast/multi_head_attention_backward.hpp"
#include "attn/seq2seq_transformer.hpp"
#include "thread_pool.hpp"

namespace attn::fast::detail {

// Offsets into the flat buffer (of parameters, or of gradients: the same layout).
struct LinearSlot {
    std::size_t weight = 0, bias = 0;  // (out, in), (out)
};
struct NormSlot {
    std::size_t weight = 0, bias = 0;  // (D) each
};
struct AttentionSlot {
    std::size_t in_proj_weight = 0, in_proj_bias = 0;  // (3D, D) rows q, k, v; (3D)
    LinearSlot out_proj;                               // (D, D), (D)
};
struct EncoderLayerSlots {
    AttentionSlot self_attention;
    LinearSlot linear1, linear2;
    NormSlot norm1, norm2;
};
struct DecoderLayerSlots {
    AttentionSlot self_attention, cross_attention;
    LinearSlot linear1, linear2;
    NormSlot norm1, norm2, norm3;
};

struct ModelLayout {
    std::size_t V = 0, D = 0, F = 0, heads = 0;
    std::vector<EncoderLayerSlots> encoder;
    NormSlot encoder_norm;
    std::vector<DecoderLayerSlots> decoder;
    NormSlot decoder_norm;
    std::size_t src_embedding = 0, tgt_embedding = 0;  // (V, D) each
    LinearSlot generator;                              // (V, D), (V)
    std::size_t total = 0;                             // values in the buffer
};

/// The offsets of every parameter of a model shaped like `weights`, found by their state_dict names.
ModelLayout model_layout(const Seq2SeqWeights& weights, std::size_t heads);

// What the forward keeps. A LayerNorm keeps its output and each row's mean and 1/σ.
struct NormCache {
    Tensor3 output;
    std::vector<float> mean, inverse_std;
};
struct EncoderLayerCache {
    NormCache norm1, norm2;
    AttentionTrainingResult attention;
    Tensor3 middle;              // input + attention: the second residual's input
    std::vector<float> hidden;   // (rows, F) after the ReLU
};
struct DecoderLayerCache {
    NormCache norm1, norm2, norm3;
    AttentionTrainingResult self_attention, cross_attention;
    Tensor3 after_self, after_cross;  // the residual stream after each attention
    std::vector<float> hidden;
};

/// Training's dropout factors for one step: each value's 0 (dropped) or 1/(1 − p) (kept), where
/// nn.Transformer drops (seq2seq_dropout.cpp). Empty vectors when `active` is false.
struct EncoderLayerDropout {
    std::vector<float> weights;    // (B, h, S, S) the self-attention's weights
    std::vector<float> attention;  // (B, S, D) its output, before the residual
    std::vector<float> hidden;     // (B·S, F) the feed-forward's hidden layer, after the ReLU
    std::vector<float> output;     // (B, S, D) the feed-forward's output, before the residual
};
struct DecoderLayerDropout {
    std::vector<float> self_weights, self_attention;    // (B, h, T, T), (B, T, D)
    std::vector<float> cross_weights, cross_attention;  // (B, h, T, S), (B, T, D)
    std::vector<float> hidden, output;                  // (B·T, F), (B, T, D)
};
struct DropoutFactors {
    bool active = false;
    std::vector<float> src_embedding, tgt_embedding;  // (B, S, D), (B, T, D): embeddings × √D + positions
    std::vector<EncoderLayerDropout> encoder;
    std::vector<DecoderLayerDropout> decoder;
};

/// Draws a step's factors from `generator` as the double path draws its masks (attn/dropout.hpp's
/// recipe, the same values in the same order), so that both paths drop the same values: src's
/// embedding, tgt's, then each encoder layer (weights, attention, hidden, output), then each decoder
/// layer (self weights, self-attention, cross weights, cross-attention, hidden, output). p = 1 draws
/// nothing and drops everything, as the double path. p = 0 is not active.
void draw_dropout(const ModelLayout& layout, std::size_t B, std::size_t S, std::size_t T, double p,
                  std::mt19937& generator, DropoutFactors& factors);

/// The model's buffers: the forward's caches and the backward's scratch, sized on first use and
/// kept from step to step.
struct ModelWork {
    std::vector<AttentionParameters> encoder_attention;                          // per encoder layer
    std::vector<AttentionParameters> decoder_self_attention, decoder_cross_attention;
    std::vector<Tensor3> encoder_stream, decoder_stream;  // layer l's input at l, the stack's output at N
    std::vector<EncoderLayerCache> encoder;
    std::vector<DecoderLayerCache> decoder;
    NormCache encoder_norm, decoder_norm;  // encoder_norm.output is the memory (B, S, D)
    std::vector<float> logits;             // (B·T, V)
    std::vector<float> positions;          // the sinusoidal table (length, D), grown as needed
    // Backward scratch.
    std::vector<float> grad_logits, grad_hidden, grad_normed;
    Tensor3 grad_stream, grad_middle, grad_memory;
    // The attentions' own buffers, kept from step to step: one workspace for all of them (they run
    // one after the other), and the gradients of each kind, whose key and value shapes differ
    // (encoder self-attention (B, S, D), decoder self-attention (B, T, D), cross-attention (B, S, D)).
    AttentionTrainingWorkspace attention_workspace;
    DropoutFactors dropout;    // training's dropout for the step; not active in greedy decoding
    Tensor3 grad_dropped;      // a sub-layer output's gradient times its dropout factors
    AttentionGradients encoder_attention_gradients, decoder_self_gradients, decoder_cross_gradients;
};

/// The attentions' AttentionParameters copied from the buffer (before each forward).
void load_attention_parameters(const std::vector<float>& parameters, const ModelLayout& layout, ModelWork& work);

/// src (B, S) → work.encoder_norm.output, the memory (B, S, D).
void encoder_forward(const std::vector<float>& parameters, const ModelLayout& layout, const IdTensor& src,
                     float eps, ModelWork& work, WorkerPool& pool);

/// decoder_input (B, T) and the memory → work.logits (B·T, V).
void decoder_forward(const std::vector<float>& parameters, const ModelLayout& layout, const IdTensor& decoder_input,
                     float eps, ModelWork& work, WorkerPool& pool);

/// The backward of both forwards from work.grad_logits (B·T, V): every parameter's gradient
/// written into `gradients` (zeroed first here), in the layout's places.
void model_backward(const std::vector<float>& parameters, const ModelLayout& layout, const IdTensor& src,
                    const IdTensor& decoder_input, ModelWork& work, std::vector<float>& gradients,
                    WorkerPool& pool);

}  // namespace attn::fast::detail
