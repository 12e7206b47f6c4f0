// Exercise 9's cases, compared with the library: exercise::cross_attention on seeded decoders and
// memories (T ≠ S with a padded memory, T = S — where queries taken from the memory have the
// right shape — a batch of one without padding or b_o, a single decoder position, a memory
// sentence that is all padding with scores in the hundreds), then exercise::cached_decoding_step
// on seeded caches (one new token and n = 2 and 3 new tokens after P cached positions; h/g = 2
// query heads per K/V head with g = 2 and g = 3, multi-query g = 1, and g = h; scores in the
// hundreds).
//
// The right values: cross-attention is attn::multi_head_attention with the decoder as query and
// the memory as key and value; the decoding step is the cache with the new keys and values
// appended, then attn::scaled_dot_product_attention of each query head j over K/V head
// j / (h/g) with the causal mask aligned bottom-right. Tolerance 1e-9: the cases compute in double.
//
// Which case tells which mistake: the causal mask on cross-attention shows wherever T > 1; queries
// taken from the memory give (B, S, …) tensors, the wrong shape when T ≠ S and wrong numbers in
// the T = S case; the ignored padding mask shows wherever the memory is padded; the cache used
// before it is appended gives (B, h, n, P) weights; top-left alignment shows in every decoding
// case (P > 0); `repeat` for `repeat_interleave` only where g ≥ 2 and h/g ≥ 2.
#include <cmath>

#include <xtensor/xview.hpp>

#include "09-decoder/exercise/mistakes.hpp"
#include "exercises/case_steps.hpp"

namespace attn::exercises {

namespace {

const tutor::Tolerance tight{1e-9, 1e-9};

// ---- cross-attention ----

const std::vector<std::string> cross_steps = {"cross_weights", "cross_output"};

std::vector<DynamicTensor> cross_values(const MultiHeadAttentionResult& r) { return {r.weights, r.output}; }

struct CrossInputs {
    Tensor3 tgt, memory;
    MultiHeadAttentionWeights weights;
    std::size_t heads = 1;
    Matrix memory_mask;
};

MultiHeadAttentionResult right_cross(const CrossInputs& in) {
    AttentionOptions options;
    options.attention_mask = in.memory_mask;
    return multi_head_attention(in.tgt, in.memory, in.memory, in.weights, in.heads, options);
}

// A seeded decoder (B, T, D) and memory (B, S, D); `lengths` the memory's real tokens per sentence
// (the rest is padding); `overflowing`: W_q and b_q scaled until every row's largest visible score
// is in the hundreds.
CrossInputs random_cross(unsigned seed, std::size_t B, std::size_t T, std::size_t S, std::size_t D, std::size_t heads,
                         const std::vector<std::size_t>& lengths, bool with_b_o = true, bool overflowing = false) {
    RandomInputs draw(seed);
    CrossInputs in;
    in.tgt = draw.normal<Tensor3>({B, T, D});
    in.memory = draw.normal<Tensor3>({B, S, D});
    in.weights = random_attention_weights(draw, D, true, with_b_o);
    in.heads = heads;
    in.memory_mask = Matrix::from_shape({B, S});
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s < S; ++s) in.memory_mask(b, s) = s < lengths.at(b) ? 1.0 : 0.0;
    if (overflowing) {
        // The scores are linear in q, and q in (W_q, b_q); the padding keys are hidden (−∞) first.
        Tensor4 visible = right_cross(in).scores;
        for (std::size_t b = 0; b < B; ++b)
            for (std::size_t s = 0; s < S; ++s)
                if (in.memory_mask(b, s) == 0.0) xt::view(visible, b, xt::all(), xt::all(), s) = -INFINITY;
        const double scale = overflowing_scale(visible);
        in.weights.w_q *= scale;
        in.weights.b_q *= scale;
    }
    return in;
}

Case cross_case(std::string name, const CrossInputs& in) {
    NamedTensors inputs{{"tgt", in.tgt},         {"memory", in.memory},   {"w_q", in.weights.w_q},
                        {"w_k", in.weights.w_k}, {"w_v", in.weights.w_v}, {"b_q", in.weights.b_q},
                        {"b_k", in.weights.b_k}, {"b_v", in.weights.b_v}, {"w_o", *in.weights.w_o},
                        {"heads", number(double(in.heads))}, {"memory_mask", in.memory_mask}};
    if (in.weights.b_o) inputs["b_o"] = *in.weights.b_o;
    Case c = make_case(std::move(name), "cross_attention", inputs, all_steps(cross_steps, cross_values(right_cross(in))),
                       tight);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        return MistakeTable{
            {"causal_cross_attention",
             cross_values(cross_attention_causal(in.tgt, in.memory, in.weights, in.heads, in.memory_mask))},
            {"queries_from_memory", cross_values(cross_attention_queries_from_memory(in.memory, in.weights, in.heads,
                                                                                     in.memory_mask))},
            {"memory_mask_ignored", cross_values(cross_attention_mask_ignored(in.tgt, in.memory, in.weights, in.heads))}};
    };
    return c;
}

// ---- one cached decoding step ----

const std::vector<std::string> decoding_steps = {"k_cache", "v_cache", "decode_weights", "decode_context"};

std::vector<DynamicTensor> decoding_values(const mistakes::CachedDecodingStep& s) {
    return {s.k_cache, s.v_cache, s.weights, s.context};
}

struct DecodingInputs {
    Tensor4 q, k, v, k_cache, v_cache;
};

mistakes::CachedDecodingStep right_step(const DecodingInputs& in) {
    mistakes::CachedDecodingStep step;
    step.k_cache = mistakes::appended_to_cache(in.k_cache, in.k);
    step.v_cache = mistakes::appended_to_cache(in.v_cache, in.v);
    mistakes::attend_query_heads(in.q, step.k_cache, step.v_cache, mistakes::kv_head_interleaved,
                                 CausalAlignment::bottom_right, step);
    return step;
}

// Seeded queries (B, h, n, d_k), new keys and values (B, g, n, d_k) and a cache (B, g, P, d_k);
// `overflowing`: q scaled until every row's largest visible score is in the hundreds.
DecodingInputs random_decoding(unsigned seed, std::size_t B, std::size_t h, std::size_t g, std::size_t n, std::size_t P,
                               std::size_t d_k, bool overflowing = false) {
    RandomInputs draw(seed);
    DecodingInputs in;
    in.q = draw.normal<Tensor4>({B, h, n, d_k});
    in.k = draw.normal<Tensor4>({B, g, n, d_k});
    in.v = draw.normal<Tensor4>({B, g, n, d_k});
    in.k_cache = draw.normal<Tensor4>({B, g, P, d_k});
    in.v_cache = draw.normal<Tensor4>({B, g, P, d_k});
    if (overflowing) in.q *= overflowing_scale(right_step(in).masked_scores);  // the scores are linear in q
    return in;
}

Case decoding_case(std::string name, const DecodingInputs& in) {
    Case c = make_case(std::move(name), "cached_decoding_step",
                       {{"q", in.q}, {"k", in.k}, {"v", in.v}, {"k_cache", in.k_cache}, {"v_cache", in.v_cache}},
                       all_steps(decoding_steps, decoding_values(right_step(in))), tight);
    c.mistakes = [=] {
        using namespace attn::mistakes;
        return MistakeTable{
            {"cache_appended_after_use", decoding_values(cache_appended_after_use(in.q, in.k, in.v, in.k_cache, in.v_cache))},
            {"cache_top_left", decoding_values(cached_step_top_left(in.q, in.k, in.v, in.k_cache, in.v_cache))},
            {"kv_heads_tiled", decoding_values(cached_step_kv_heads_tiled(in.q, in.k, in.v, in.k_cache, in.v_cache))}};
    };
    return c;
}

std::vector<KnownMistake> known_mistakes() {
    return {
        {"causal_cross_attention",
         tutor::tr("your cross-attention hides memory positions with a causal mask: the memory is the encoder's output, "
                   "the whole source sentence, known before decoding starts, so every decoder position may see every real "
                   "memory token. Hide only the memory's padding.")},
        {"queries_from_memory",
         tutor::tr("your cross-attention takes its queries from the memory: the queries come from the decoder (tgt W_qᵀ + "
                   "b_q, one per decoder position, so the weights are (B, h, T, S) and the output (B, T, D)); only the keys "
                   "and values come from the memory.")},
        {"memory_mask_ignored",
         tutor::tr("your cross-attention ignores the memory's padding mask: where memory_mask(b, s) is 0, put −∞ in the "
                   "scores of memory position s before the softmax, for every head and decoder position of sentence b.")},
        {"cache_appended_after_use",
         tutor::tr("your decoding step attends over the cache before appending the new keys and values, so a new token "
                   "cannot see itself: append k and v first, then attend over all P + n positions.")},
        {"cache_top_left",
         tutor::tr("your decoding step aligns the causal mask top-left, so new query i sees keys 0 … i, the oldest of the "
                   "cache: the new tokens are the last n positions, so query i is position P + i and sees keys 0 … P + i "
                   "(bottom-right alignment).")},
        {"kv_heads_tiled",
         tutor::tr("your query heads share the K/V heads as `repeat` (a tile) shares them: query head j reads K/V head "
                   "j mod g. Grouped-query attention gives each K/V head a block of consecutive query heads, as "
                   "repeat_interleave does: query head j reads K/V head j / (h/g).")},
    };
}

Exercise define(const std::string&) {
    Exercise e;
    e.number = ATTN_LESSON_NUMBER;
    e.title = tutor::tr("the decoder: cross-attention and a cached decoding step");
    e.practised = "cross_attention and cached_decoding_step";
    e.library_allowed = {"attn::linear", "attn::softmax_last_axis", "attn::split_heads", "attn::merge_heads"};
    e.mistakes = known_mistakes();
    e.cases = {
        cross_case(tutor::tr("cross-attention, T = 3 decoder positions over S = 5 memory positions, B = 2, D = 4, h = 2, "
                             "the memory padded"),
                   random_cross(1, 2, 3, 5, 4, 2, {5, 3})),
        cross_case(tutor::tr("cross-attention with T = S = 4, B = 2, D = 6, h = 3, the memory padded"),
                   random_cross(2, 2, 4, 4, 6, 3, {4, 2})),
        cross_case(tutor::tr("cross-attention, a batch of one, T = 4 over S = 2, D = 4, h = 1, no padding, W_o without b_o"),
                   random_cross(3, 1, 4, 2, 4, 1, {2}, false)),
        cross_case(tutor::tr("cross-attention, a single decoder position, T = 1 over S = 3, B = 2, D = 4, h = 2, the memory "
                             "padded"),
                   random_cross(4, 2, 1, 3, 4, 2, {3, 1})),
        cross_case(tutor::tr("cross-attention over a memory sentence that is all padding, B = 2, T = 2, S = 3, D = 4, h = 2, "
                             "scores in the hundreds (its queries see no memory token: weights 0, output b_o)"),
                   random_cross(5, 2, 2, 3, 4, 2, {3, 0}, true, true)),
        decoding_case(tutor::tr("a decoding step, one new token after P = 3, B = 2, h = 4 query heads over g = 2 K/V heads, "
                                "d_k = 2"),
                      random_decoding(11, 2, 4, 2, 1, 3, 2)),
        decoding_case(tutor::tr("a decoding step, n = 2 new tokens after P = 3, a batch of one, h = 4, g = 2, d_k = 3"),
                      random_decoding(12, 1, 4, 2, 2, 3, 3)),
        decoding_case(tutor::tr("a decoding step, multi-query attention: h = 3 heads share g = 1 K/V head, n = 1, P = 4, B = 2, "
                                "d_k = 2"),
                      random_decoding(13, 2, 3, 1, 1, 4, 2)),
        decoding_case(tutor::tr("a decoding step, every query head its own K/V head (h = g = 2), n = 3 after P = 3, B = 2, "
                                "d_k = 2"),
                      random_decoding(14, 2, 2, 2, 3, 3, 2)),
        decoding_case(tutor::tr("a decoding step, one new token after a single cached position, a batch of one, h = 2, g = 1, "
                                "d_k = 4"),
                      random_decoding(15, 1, 2, 1, 1, 1, 4)),
        decoding_case(tutor::tr("a decoding step, h = 6 over g = 3 K/V heads, n = 2 after P = 5, B = 2, d_k = 2, scores in "
                                "the hundreds"),
                      random_decoding(16, 2, 6, 3, 2, 5, 2, true)),
    };
    return e;
}

}  // namespace

ATTN_EXERCISE_DEFINITION(define)

}  // namespace attn::exercises
