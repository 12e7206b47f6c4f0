// Greedy decoding (attn/generation.hpp, lesson 9): the same loop run two ways, with a KV cache in
// every layer (one new token per step) and without (the whole prefix at every step).
//
// Each step: the tokens → embedding · √D + the sinusoidal table → the decoder layers → the final
// norm → the generator's logits (V) of the last position → the argmax is the next id. Shapes:
// memory (1, S, D); the decoder's input (1, T, D) without the cache, (1, 1, D) with it.
#include <algorithm>
#include <cmath>
#include <functional>

#include <xtensor/xview.hpp>

#include "attn/embedding.hpp"
#include "attn/error.hpp"
#include "attn/generation.hpp"
#include "attn/linear.hpp"
#include "attn/positions.hpp"
#include "attn/shape.hpp"

namespace attn {

namespace {

void check_token_id(const std::string& f, const std::string& name, std::int64_t id, std::size_t V) {
    if (id < 0 || std::uint64_t(id) >= V) {
        throw InputError(f + ": " + name + " = " + std::to_string(id) + " is not a token id: the embedding has V = " +
                         std::to_string(V) + " rows (ids 0 … " + std::to_string(V - 1) + ")");
    }
}

// The model and the memory, before any step (the layers check their own weights).
void check_model(const std::string& f, const DecoderModel& model, const DecoderLayerOptions& options,
                 const Tensor3& memory, std::int64_t start_id, std::int64_t stop_id) {
    check_shapes(f, {{"memory", memory, "1,S,D"}, {"embedding", model.embedding, "V,D"},
                     {"generator_weight", model.generator_weight, "V,D"}, {"generator_bias", model.generator_bias, "V"},
                     {"final_norm weight", model.final_norm.first, "D"}, {"final_norm bias", model.final_norm.second, "D"},
                     {"memory_attention_mask", options.memory_attention_mask, "1,S"}});
    check_token_id(f, "start_id", start_id, model.embedding.shape(0));
    check_token_id(f, "stop_id", stop_id, model.embedding.shape(0));
    if (!options.causal) {
        throw InputError(f + ": options.causal is false; a decoder that generates must not see the future "
                         "(set causal = true)");
    }
}

// The decoder's input for `ids` at positions first … first + n − 1: embedding · √D + PE (1, n, D).
Tensor3 embedded_tokens(const DecoderModel& model, const std::vector<std::int64_t>& ids, std::size_t first,
                        const Matrix& positions) {
    IdTensor id_tensor = IdTensor::from_shape({1, ids.size()});
    std::copy(ids.begin(), ids.end(), id_tensor.begin());
    Tensor3 x = embedding(model.embedding, id_tensor) * std::sqrt(double(model.embedding.shape(1)));
    for (std::size_t t = 0; t < ids.size(); ++t)
        for (std::size_t i = 0; i < x.shape(2); ++i) x(0, t, i) += positions(first + t, i);
    return x;
}

// The generator on the last position of the decoder's normed output y (1, T, D): logits (V).
Vector last_position_logits(const DecoderModel& model, const Tensor3& y) {
    Matrix last = Matrix::from_shape({1, y.shape(2)});
    for (std::size_t i = 0; i < y.shape(2); ++i) last(0, i) = y(0, y.shape(1) - 1, i);
    const Matrix logits = linear(last, model.generator_weight, model.generator_bias, "generator_weight");
    return Vector(xt::view(logits, 0, xt::all()));
}

// The loop both forms share: next_logits(ids so far) → the argmax (the first of equal maxima),
// until stop_id or max_tokens.
GreedyDecoding greedy_loop(std::size_t V, std::int64_t start_id, std::int64_t stop_id, std::size_t max_tokens,
                           const std::function<Vector(const std::vector<std::int64_t>&)>& next_logits) {
    std::vector<std::int64_t> fed = {start_id};
    std::vector<Vector> rows;
    GreedyDecoding result;
    while (result.ids.size() < max_tokens) {
        rows.push_back(next_logits(fed));
        const auto best = std::max_element(rows.back().begin(), rows.back().end());
        const auto id = std::int64_t(best - rows.back().begin());
        result.ids.push_back(id);
        fed.push_back(id);
        if (id == stop_id) break;
    }
    result.logits = Matrix::from_shape({rows.size(), V});
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t v = 0; v < V; ++v) result.logits(r, v) = rows[r](v);
    return result;
}

}  // namespace

GreedyDecoding greedy_decode(const DecoderModel& model, const DecoderLayerOptions& options, const Tensor3& memory,
                             std::int64_t start_id, std::int64_t stop_id, std::size_t max_tokens) {
    const std::string f = "greedy_decode";
    check_model(f, model, options, memory, start_id, stop_id);
    const std::size_t V = model.embedding.shape(0), D = model.embedding.shape(1);
    if (max_tokens == 0) return {{}, Matrix::from_shape({0, V})};
    const Matrix positions = sinusoidal_positions(max_tokens, D);  // the last id chosen is never fed
    std::vector<DecoderLayerCache> caches;
    for (const auto& layer : model.layers) caches.push_back(start_decoder_layer_cache(memory, layer, options.heads));
    return greedy_loop(V, start_id, stop_id, max_tokens, [&](const std::vector<std::int64_t>& fed) {
        // Only the newest token goes through the layers; the caches hold the rest.
        Tensor3 x = embedded_tokens(model, {fed.back()}, fed.size() - 1, positions);
        for (std::size_t l = 0; l < model.layers.size(); ++l) x = decoder_layer_step(x, caches[l], model.layers[l], options).output;
        return last_position_logits(model, layer_norm(x, model.final_norm.first, model.final_norm.second, options.eps));
    });
}

GreedyDecoding greedy_decode_without_cache(const DecoderModel& model, const DecoderLayerOptions& options,
                                           const Tensor3& memory, std::int64_t start_id, std::int64_t stop_id,
                                           std::size_t max_tokens) {
    const std::string f = "greedy_decode_without_cache";
    check_model(f, model, options, memory, start_id, stop_id);
    const std::size_t V = model.embedding.shape(0), D = model.embedding.shape(1);
    if (max_tokens == 0) return {{}, Matrix::from_shape({0, V})};
    const Matrix positions = sinusoidal_positions(max_tokens, D);
    return greedy_loop(V, start_id, stop_id, max_tokens, [&](const std::vector<std::int64_t>& fed) {
        // The whole prefix, every step, as nn.TransformerDecoder is run.
        const Tensor3 x = embedded_tokens(model, fed, 0, positions);
        return last_position_logits(model, transformer_decoder(x, memory, model.layers, options, model.final_norm));
    });
}

}  // namespace attn
