// Lesson 9 — the Transformer decoder (lessons/09-decoder/README.md).
//
// Example "lesson1" (encoder_outputs (B, S, H), decoder_state (B, 1, H)): lesson 1's dot-product
// attention written as a cross-attention of one query, with no projection and no scale:
// one_query_scores, one_query_weights (B, 1, S), one_query_context (B, 1, H).
// Example "main" (tgt (B, T, D), memory (B, S, D), the layer's weights, memory_attention_mask
// (B, S)): attn::transformer_decoder_layer post-norm with a causal self-attention, step by step
// (self_attention_*, cross_attention_*, after_*, ffn_output, output); padded_* with the memory's
// padding mask; prenorm_output (norm_first); decoder_output, attn::transformer_decoder with two
// copies of the layer and a final layer norm (weight 1, bias 0), as nn.Transformer builds it.
//   With sequence (B, T, D): its self-attention fed one token at a time through an attn::KVCache
//   (cache_step2_weights, cache_keys, cached_output), the whole causal self-attention
//   (causal_output), the last two tokens at once bottom-right (two_new_weights) and top-left
//   (top_left_weights). With embedding, generator_weight, generator_bias, start_id, stop_id and
//   max_tokens: attn::greedy_decode of the one-layer model (generated_ids, step_logits) and the
//   same loop without the cache (uncached_*, which the lesson's tests hold equal).
// Example "cache_size" (cache_sizes, rows [layers, kv_heads, d_k, bytes]): cache_bytes_per_token.
// Example "gqa" (q (B, h, n, d_k), k and v (B, g, P, d_k)): attend over a cache of g K/V heads
// shared by repeat_kv (gqa_weights, gqa_context), and over the heads tiled (tiled_*), the trap.
// Example "full_size" (sizes [B, T, S, D, h, F] and a seed): a layer at the paper's size drawn
// from std::mt19937(seed) (tutor/lesson/seeded_uniform.hpp, the document's recipe): head 0's
// cross-attention weights, the first six output features, the length of each output row.
#include <algorithm>
#include <cmath>
#include <random>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attn/decoder_layer.hpp"
#include "attn/error.hpp"
#include "attn/generation.hpp"
#include "attn/kv_cache.hpp"
#include "attn/linear.hpp"
#include "attn/masks.hpp"
#include "attn/shape.hpp"
#include "attn/softmax.hpp"
#include "tutor/compute/named_weights.hpp"
#include "tutor/lesson/lesson_registration.hpp"
#include "tutor/lesson/seeded_uniform.hpp"

namespace attn::tutor {

namespace {

constexpr std::size_t worked_heads = 2;  // the document's example: D = 4 in two heads of d_k = 2

NamedTensors one_query(const LessonInputs& inputs) {
    const Tensor3 memory = inputs.get("encoder_outputs", 3, "(B, S, H)");
    const Tensor3 state = inputs.get("decoder_state", 3, "(B, 1, H)");
    const std::size_t H = memory.shape(2);
    // Lesson 1 has no projections and no scale: identity weights, one head, scale 1.
    MultiHeadAttentionWeights identity;
    identity.w_q = identity.w_k = identity.w_v = xt::eye<double>(H);
    identity.b_q = identity.b_k = identity.b_v = xt::zeros<double>({H});
    identity.no_output_projection = true;
    AttentionOptions unscaled;
    unscaled.scale = 1.0;
    const MultiHeadAttentionResult r = multi_head_attention(state, memory, memory, identity, 1, unscaled);
    return {{"one_query_scores", Tensor3(xt::view(r.scores, xt::all(), 0))},
            {"one_query_weights", Tensor3(xt::view(r.weights, xt::all(), 0))},
            {"one_query_context", r.output}};
}

MultiHeadAttentionWeights read_attention(const LessonInputs& inputs, const std::string& prefix) {
    NamedTensors weights;
    for (const char* name : {"w_q", "w_k", "w_v", "w_o"}) weights[name] = inputs.get(prefix + name, 2, "(D, D)");
    for (const char* name : {"b_q", "b_k", "b_v", "b_o"}) weights[name] = inputs.get(prefix + name, 1, "(D)");
    return attention_weights_from(weights);
}

// Every weight of the layer, each checked for its rank (a document error names the block).
DecoderLayerWeights read_layer(const LessonInputs& inputs) {
    DecoderLayerWeights w;
    w.self_attention = read_attention(inputs, "");
    w.cross_attention = read_attention(inputs, "cross_");
    const std::string norms[] = {"norm1", "norm2", "norm3"};
    Vector* weights[] = {&w.norm1_weight, &w.norm2_weight, &w.norm3_weight};
    Vector* biases[] = {&w.norm1_bias, &w.norm2_bias, &w.norm3_bias};
    for (std::size_t i = 0; i < 3; ++i) {
        *weights[i] = inputs.get(norms[i] + "_weight", 1, "(D)");
        *biases[i] = inputs.get(norms[i] + "_bias", 1, "(D)");
    }
    w.linear1_weight = inputs.get("linear1_weight", 2, "(F, D)");
    w.linear1_bias = inputs.get("linear1_bias", 1, "(F)");
    w.linear2_weight = inputs.get("linear2_weight", 2, "(D, F)");
    w.linear2_bias = inputs.get("linear2_bias", 1, "(D)");
    return w;
}

NamedTensors worked_layer(const LessonInputs& inputs) {
    const Tensor3 tgt = inputs.get("tgt", 3, "(B, T, D)");
    const Tensor3 memory = inputs.get("memory", 3, "(B, S, D)");
    const DecoderLayerWeights w = read_layer(inputs);
    DecoderLayerOptions options(worked_heads);
    options.causal = true;  // tgt_mask = generate_square_subsequent_mask(T)
    const DecoderLayerStep post_norm = transformer_decoder_layer(tgt, memory, w, options);
    NamedTensors out{{"self_attention_weights", post_norm.self_attention.weights},
                     {"self_attention_output", post_norm.self_attention.output},
                     {"after_self_attention", post_norm.after_self_attention},
                     {"cross_attention_weights", post_norm.cross_attention.weights},
                     {"cross_attention_output", post_norm.cross_attention.output},
                     {"after_cross_attention", post_norm.after_cross_attention},
                     {"ffn_output", post_norm.ffn_output},
                     {"output", post_norm.output}};

    DecoderLayerOptions padded = options;
    padded.memory_attention_mask = Matrix(inputs.get("memory_attention_mask", 2, "(B, S)"));
    const DecoderLayerStep padded_step = transformer_decoder_layer(tgt, memory, w, padded);
    out["padded_cross_attention_weights"] = padded_step.cross_attention.weights;
    out["padded_output"] = padded_step.output;

    DecoderLayerOptions pre_norm = options;
    pre_norm.norm_first = true;
    out["prenorm_output"] = transformer_decoder_layer(tgt, memory, w, pre_norm).output;

    // nn.Transformer's decoder: the layers, then decoder.norm (a fresh nn.LayerNorm(D)).
    const std::size_t D = tgt.shape(2);
    out["decoder_output"] = transformer_decoder(tgt, memory, {w, w}, options,
                                                std::make_pair(Vector(xt::ones<double>({D})), Vector(xt::zeros<double>({D}))));
    return out;
}

// The document's largest sizes are 512 and 2048, its largest drawn tensor 2048 × 512 values, and
// its decoding stops after 5 tokens. These bounds keep `attn check` quick and every conversion to
// a size defined (get_counts refuses anything else); a larger tensor is refused before it is drawn.
constexpr std::size_t largest_size = 4096;
constexpr std::size_t largest_drawn_tensor = std::size_t(1) << 22;
constexpr std::size_t largest_max_tokens = 64;

// InputError naming the sizes when the tensor `name` of `shape` would exceed largest_drawn_tensor.
void require_drawable(const std::vector<std::size_t>& shape, const std::string& name) {
    if (checked_value_count(shape, "sizes: " + name) > largest_drawn_tensor) {
        throw InputError("sizes: " + name + " " + shape_string(shape) + " would hold more than " +
                         std::to_string(largest_drawn_tensor) + " values, more than a lesson draws");
    }
}

MultiHeadAttentionWeights seeded_attention(std::mt19937& generator, std::size_t D) {
    const double bound = 1.0 / std::sqrt(double(D));
    MultiHeadAttentionWeights a;
    a.w_q = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.w_k = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.w_v = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.w_o = seeded_uniform<Matrix>(generator, {D, D}, bound);
    a.b_q = seeded_uniform<Vector>(generator, {D}, bound);
    a.b_k = seeded_uniform<Vector>(generator, {D}, bound);
    a.b_v = seeded_uniform<Vector>(generator, {D}, bound);
    a.b_o = seeded_uniform<Vector>(generator, {D}, bound);
    return a;
}

// A layer at the paper's size, drawn in the document's order (step 9's table).
NamedTensors full_size_layer(const LessonInputs& inputs) {
    const DynamicTensor sizes = inputs.get_counts("sizes", 1, "(6): B, T, S, D, h, F", 1, largest_size);
    const DynamicTensor seed = inputs.get_counts("seed", 1, "(1)", 0, 4294967295u);
    if (sizes.size() != 6 || seed.size() != 1) throw InputError("sizes must hold B, T, S, D, h, F and seed one number");
    const auto B = std::size_t(sizes(0)), T = std::size_t(sizes(1)), S = std::size_t(sizes(2)),
               D = std::size_t(sizes(3)), heads = std::size_t(sizes(4)), F = std::size_t(sizes(5));
    require_drawable({B, T, D}, "tgt");
    require_drawable({B, S, D}, "memory");
    require_drawable({F, D}, "linear1_weight");
    std::mt19937 generator(static_cast<std::mt19937::result_type>(seed(0)));
    const Tensor3 tgt = seeded_uniform<Tensor3>(generator, {B, T, D}, 1.0);
    const Tensor3 memory = seeded_uniform<Tensor3>(generator, {B, S, D}, 1.0);
    DecoderLayerWeights w;
    w.self_attention = seeded_attention(generator, D);
    w.cross_attention = seeded_attention(generator, D);
    for (const auto& [weight, bias] : {std::pair{&w.norm1_weight, &w.norm1_bias}, std::pair{&w.norm2_weight, &w.norm2_bias},
                                       std::pair{&w.norm3_weight, &w.norm3_bias}}) {
        *weight = seeded_uniform<Vector>(generator, {D}, 0.2, 1.0);
        *bias = seeded_uniform<Vector>(generator, {D}, 0.2);
    }
    const double linear_d = 1.0 / std::sqrt(double(D)), linear_f = 1.0 / std::sqrt(double(F));
    w.linear1_weight = seeded_uniform<Matrix>(generator, {F, D}, linear_d);
    w.linear1_bias = seeded_uniform<Vector>(generator, {F}, linear_d);
    w.linear2_weight = seeded_uniform<Matrix>(generator, {D, F}, linear_f);
    w.linear2_bias = seeded_uniform<Vector>(generator, {D}, linear_f);
    DecoderLayerOptions options(heads);
    options.causal = true;
    const DecoderLayerStep step = transformer_decoder_layer(tgt, memory, w, options);

    const std::size_t shown = std::min<std::size_t>(6, D);
    Tensor3 head0 = xt::view(step.cross_attention.weights, xt::all(), 0);
    Tensor3 first = xt::view(step.output, xt::all(), xt::all(), xt::range(0, shown));
    Matrix lengths = xt::sqrt(xt::sum(step.output * step.output, {2}));
    return {{"full_cross_head0_weights", head0}, {"full_output_head", first}, {"full_output_norm", lengths}};
}

// Rows first … last − 1 of a (B, h, T, d_k) tensor: the positions one step adds to the cache.
Tensor4 positions(const Tensor4& x, std::size_t first, std::size_t last) {
    return xt::view(x, xt::all(), xt::all(), xt::range(first, last), xt::all());
}

// Step 10: the self-attention sub-layer fed one token at a time through a KV cache. Each step
// appends the new token's key and value, then its one query attends over the whole cache.
NamedTensors kv_cache_steps(const LessonInputs& inputs, const MultiHeadAttentionWeights& w) {
    const Tensor3 x = inputs.get("sequence", 3, "(B, T, D)");
    const std::size_t B = x.shape(0), T = x.shape(1), d_k = x.shape(2) / worked_heads;
    const Tensor4 q = split_heads(linear(x, w.w_q, w.b_q, "w_q"), worked_heads);
    const Tensor4 k = split_heads(linear(x, w.w_k, w.b_k, "w_k"), worked_heads);
    const Tensor4 v = split_heads(linear(x, w.w_v, w.b_v, "w_v"), worked_heads);
    NamedTensors out;
    KVCache cache(B, worked_heads, d_k);
    Tensor4 context = Tensor4::from_shape({B, worked_heads, T, d_k});
    for (std::size_t t = 0; t < T; ++t) {
        cache.append(positions(k, t, t + 1), positions(v, t, t + 1));  // first: the token sees itself
        const CachedAttentionResult step = attend(positions(q, t, t + 1), cache);
        xt::view(context, xt::all(), xt::all(), xt::range(t, t + 1), xt::all()) = step.context;
        if (t == 2) out["cache_step2_weights"] = step.weights;
    }
    out["cache_keys"] = cache.keys();
    out["cached_output"] = output_projection(merge_heads(context), w);
    AttentionOptions causal;
    causal.causal = true;
    out["causal_output"] = multi_head_attention(x, x, x, w, worked_heads, causal).output;

    // The last two tokens at once, over a cache that then holds them all: bottom-right, and the
    // top-left mask the cache must not use.
    if (T >= 2) {
        KVCache two(B, worked_heads, d_k);
        two.append(positions(k, 0, T - 2), positions(v, 0, T - 2));
        two.append(positions(k, T - 2, T), positions(v, T - 2, T));
        const CachedAttentionResult pair = attend(positions(q, T - 2, T), two);
        out["two_new_weights"] = pair.weights;
        out["top_left_weights"] = softmax_last_axis(add_masks(pair.scores, true, CausalAlignment::top_left, std::nullopt));
    }
    return out;
}

// Step 11: 2 · layers · K/V heads · d_k · bytes, for each row [layers, kv_heads, d_k, bytes].
NamedTensors cache_sizes(const LessonInputs& inputs) {
    const DynamicTensor sizes = inputs.get_counts("cache_sizes", 2, "(M, 4): layers, kv_heads, d_k, bytes", 1, 1u << 20);
    if (sizes.shape(1) != 4) throw InputError("cache_sizes must hold rows of [layers, kv_heads, d_k, bytes]");
    Vector bytes = Vector::from_shape({sizes.shape(0)});
    for (std::size_t m = 0; m < sizes.shape(0); ++m) {
        bytes(m) = double(kv_cache_bytes_per_token(std::size_t(sizes(m, 0)), std::size_t(sizes(m, 1)),
                                                   std::size_t(sizes(m, 2)), std::size_t(sizes(m, 3))));
    }
    return {{"cache_bytes_per_token", bytes}};
}

// (B, g, P, d_k) → (B, g·n_rep, P, d_k) with head j = head j mod g: torch's x.repeat(1, n_rep, 1, 1),
// the tiling that step 12 shows as a trap (repeat_kv interleaves instead).
Tensor4 tile_heads(const Tensor4& x, std::size_t n_rep) {
    const std::size_t g = x.shape(1);
    Tensor4 tiled = Tensor4::from_shape({x.shape(0), g * n_rep, x.shape(2), x.shape(3)});
    for (std::size_t j = 0; j < g * n_rep; ++j) {
        xt::view(tiled, xt::all(), j) = xt::view(x, xt::all(), j % g);
    }
    return tiled;
}

// Step 12: h query heads over g K/V heads, shared as repeat_kv shares them, and tiled.
NamedTensors grouped_query(const LessonInputs& inputs) {
    const Tensor4 q = inputs.get("q", 4, "(B, h, n, d_k)");
    const Tensor4 k = inputs.get("k", 4, "(B, g, P, d_k)");
    const Tensor4 v = inputs.get("v", 4, "(B, g, P, d_k)");
    const std::size_t g = k.shape(1), h = q.shape(1);
    KVCache shared(k.shape(0), g, k.shape(3));
    shared.append(k, v);
    const CachedAttentionResult grouped = attend(q, shared);  // refuses g not dividing h, named
    KVCache tiled(k.shape(0), h, k.shape(3));
    tiled.append(tile_heads(k, h / g), tile_heads(v, h / g));
    const CachedAttentionResult wrong = attend(q, tiled);
    return {{"gqa_weights", grouped.weights}, {"gqa_context", grouped.context},
            {"tiled_weights", wrong.weights}, {"tiled_context", wrong.context}};
}

// Step 13: the worked layer in a model that writes (one layer, final norm weight 1 and bias 0,
// the document's embedding and generator), decoded greedily with the KV cache; uncached_* are
// the same loop re-running the prefix, which the lesson's tests hold equal.
NamedTensors greedy_decoding(const LessonInputs& inputs, const DecoderLayerWeights& layer, const Tensor3& memory) {
    DecoderModel model;
    model.embedding = inputs.get("embedding", 2, "(V, D)");
    model.layers = {layer};
    const std::size_t D = model.embedding.shape(1);
    model.final_norm = {xt::ones<double>({D}), xt::zeros<double>({D})};
    model.generator_weight = inputs.get("generator_weight", 2, "(V, D)");
    model.generator_bias = inputs.get("generator_bias", 1, "(V)");
    const std::size_t V = model.embedding.shape(0);
    if (V == 0) throw InputError("embedding (V, D) has no rows: the vocabulary is empty");
    const auto start = std::int64_t(inputs.get_counts("start_id", 1, "(1)", 0, V - 1)(0));
    const auto stop = std::int64_t(inputs.get_counts("stop_id", 1, "(1)", 0, V - 1)(0));
    const auto max_tokens = std::size_t(inputs.get_counts("max_tokens", 1, "(1)", 1, largest_max_tokens)(0));
    DecoderLayerOptions options(worked_heads);
    options.causal = true;
    const GreedyDecoding cached = greedy_decode(model, options, memory, start, stop, max_tokens);
    const GreedyDecoding uncached = greedy_decode_without_cache(model, options, memory, start, stop, max_tokens);
    const auto as_vector = [](const std::vector<std::int64_t>& ids) {
        Vector values = Vector::from_shape({ids.size()});
        std::copy(ids.begin(), ids.end(), values.begin());
        return values;
    };
    return {{"generated_ids", as_vector(cached.ids)},     {"step_logits", cached.logits},
            {"uncached_generated_ids", as_vector(uncached.ids)}, {"uncached_step_logits", uncached.logits}};
}

NamedTensors compute(const std::string& /*example*/, const LessonInputs& inputs) {
    if (inputs.has("decoder_state")) return one_query(inputs);
    if (inputs.has("sizes")) return full_size_layer(inputs);
    if (inputs.has("cache_sizes")) return cache_sizes(inputs);
    if (inputs.has("k")) return grouped_query(inputs);
    NamedTensors out = worked_layer(inputs);
    if (inputs.has("sequence")) out.merge(kv_cache_steps(inputs, read_attention(inputs, "")));
    if (inputs.has("embedding")) {
        out.merge(greedy_decoding(inputs, read_layer(inputs), inputs.get("memory", 3, "(B, S, D)")));
    }
    return out;
}

}  // namespace

ATTN_LESSON_PROGRAM(compute)

}  // namespace attn::tutor
