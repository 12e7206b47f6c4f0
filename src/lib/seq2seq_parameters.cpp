// The model's parameters as one flat buffer, in PyTorch's order (attn/seq2seq_parameters.hpp).
#include "attn/seq2seq_parameters.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "attn/error.hpp"

namespace attn {
namespace {

// Walks every parameter in named_parameters order and calls
// visit(name, PyTorch's shape, the library's tensors that hold it, in row-major order).
// Weights is Seq2SeqWeights or const Seq2SeqWeights: one walk for reading and for writing.
template <class Weights, class Visit>
void for_each_parameter(Weights& weights, Visit&& visit) {
    using MatrixRef = std::conditional_t<std::is_const_v<Weights>, const Matrix&, Matrix&>;
    using VectorRef = std::conditional_t<std::is_const_v<Weights>, const Vector&, Vector&>;
    auto matrix = [&](const std::string& name, MatrixRef m) { visit(name, {m.shape(0), m.shape(1)}, {m.data()}, {m.size()}); };
    auto vector = [&](const std::string& name, VectorRef v) { visit(name, {v.shape(0)}, {v.data()}, {v.size()}); };
    auto attention = [&](const std::string& prefix, auto& a) {
        if (!a.w_o || !a.b_o) throw InputError(prefix + "out_proj: the model's attentions need an output projection and its bias");
        visit(prefix + "in_proj_weight", {3 * a.w_q.shape(0), a.w_q.shape(1)}, {a.w_q.data(), a.w_k.data(), a.w_v.data()},
              {a.w_q.size(), a.w_k.size(), a.w_v.size()});
        visit(prefix + "in_proj_bias", {3 * a.b_q.shape(0)}, {a.b_q.data(), a.b_k.data(), a.b_v.data()},
              {a.b_q.size(), a.b_k.size(), a.b_v.size()});
        matrix(prefix + "out_proj.weight", *a.w_o);
        vector(prefix + "out_proj.bias", *a.b_o);
    };
    auto feed_forward = [&](const std::string& prefix, auto& layer) {
        matrix(prefix + "linear1.weight", layer.linear1_weight);
        vector(prefix + "linear1.bias", layer.linear1_bias);
        matrix(prefix + "linear2.weight", layer.linear2_weight);
        vector(prefix + "linear2.bias", layer.linear2_bias);
    };
    auto norm = [&](const std::string& prefix, VectorRef weight, VectorRef bias) {
        vector(prefix + "weight", weight);
        vector(prefix + "bias", bias);
    };
    auto& transformer = weights.transformer;
    for (std::size_t i = 0; i < transformer.encoder_layers.size(); ++i) {
        auto& layer = transformer.encoder_layers[i];
        const std::string prefix = "encoder.layers." + std::to_string(i) + ".";
        attention(prefix + "self_attn.", layer.attention);
        feed_forward(prefix, layer);
        norm(prefix + "norm1.", layer.norm1_weight, layer.norm1_bias);
        norm(prefix + "norm2.", layer.norm2_weight, layer.norm2_bias);
    }
    norm("encoder.norm.", transformer.encoder_norm.first, transformer.encoder_norm.second);
    for (std::size_t i = 0; i < transformer.decoder_layers.size(); ++i) {
        auto& layer = transformer.decoder_layers[i];
        const std::string prefix = "decoder.layers." + std::to_string(i) + ".";
        attention(prefix + "self_attn.", layer.self_attention);
        attention(prefix + "multihead_attn.", layer.cross_attention);
        feed_forward(prefix, layer);
        norm(prefix + "norm1.", layer.norm1_weight, layer.norm1_bias);
        norm(prefix + "norm2.", layer.norm2_weight, layer.norm2_bias);
        norm(prefix + "norm3.", layer.norm3_weight, layer.norm3_bias);
    }
    norm("decoder.norm.", transformer.decoder_norm.first, transformer.decoder_norm.second);
    matrix("src_embed.weight", weights.src_embedding);
    matrix("tgt_embed.weight", weights.tgt_embedding);
    matrix("generator.weight", weights.generator_weight);
    vector("generator.bias", weights.generator_bias);
}

using Pieces = std::vector<const double*>;
using MutablePieces = std::vector<double*>;
using Sizes = std::vector<std::size_t>;

}  // namespace

std::vector<ParameterSlot> seq2seq_parameter_slots(const Seq2SeqWeights& weights) {
    std::vector<ParameterSlot> slots;
    std::size_t offset = 0;
    for_each_parameter(weights, [&](const std::string& name, Sizes shape, const Pieces&, const Sizes& sizes) {
        slots.push_back({name, std::move(shape), offset});
        for (std::size_t size : sizes) offset += size;
    });
    return slots;
}

std::vector<double> flatten_parameters(const Seq2SeqWeights& weights) {
    std::vector<double> flat;
    for_each_parameter(weights, [&](const std::string&, const Sizes&, const Pieces& pieces, const Sizes& sizes) {
        for (std::size_t i = 0; i < pieces.size(); ++i) flat.insert(flat.end(), pieces[i], pieces[i] + sizes[i]);
    });
    return flat;
}

void unflatten_parameters(const std::vector<double>& flat, Seq2SeqWeights& weights) {
    std::size_t count = 0;
    for_each_parameter(std::as_const(weights), [&](const std::string&, const Sizes&, const Pieces&, const Sizes& sizes) {
        for (std::size_t size : sizes) count += size;
    });
    if (flat.size() != count) {
        throw ShapeError("unflatten_parameters: the flat buffer holds " + std::to_string(flat.size()) +
                         " values; the model has " + std::to_string(count) + " parameters");
    }
    std::size_t offset = 0;
    for_each_parameter(weights, [&](const std::string&, const Sizes&, const MutablePieces& pieces, const Sizes& sizes) {
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            std::copy(flat.begin() + offset, flat.begin() + offset + sizes[i], pieces[i]);
            offset += sizes[i];
        }
    });
}

}  // namespace attn
