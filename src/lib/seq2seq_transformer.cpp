// The encoder-decoder model of lesson 11 (attn/seq2seq_transformer.hpp): embeddings and positions,
// nn.Transformer, the generator.
#include "attn/seq2seq_transformer.hpp"

#include <cmath>
#include <string>
#include <tuple>

#include "attn/error.hpp"
#include "attn/linear.hpp"
#include "attn/positions.hpp"
#include "attn/shape.hpp"

namespace attn {
namespace {

MultiHeadAttentionWeights zero_attention(std::size_t D) {
    MultiHeadAttentionWeights w;
    w.w_q = w.w_k = w.w_v = xt::zeros<double>({D, D});
    w.b_q = w.b_k = w.b_v = xt::zeros<double>({D});
    w.w_o = Matrix(xt::zeros<double>({D, D}));
    w.b_o = Vector(xt::zeros<double>({D}));
    return w;
}

std::pair<Vector, Vector> zero_norm(std::size_t D) { return {xt::zeros<double>({D}), xt::zeros<double>({D})}; }

// The parts both layers have: the first two norms and the feed-forward network.
template <class LayerWeights>
LayerWeights zero_common_parts(std::size_t D, std::size_t F) {
    LayerWeights w;
    std::tie(w.norm1_weight, w.norm1_bias) = zero_norm(D);
    std::tie(w.norm2_weight, w.norm2_bias) = zero_norm(D);
    w.linear1_weight = xt::zeros<double>({F, D});
    w.linear1_bias = xt::zeros<double>({F});
    w.linear2_weight = xt::zeros<double>({D, F});
    w.linear2_bias = xt::zeros<double>({D});
    return w;
}

EncoderLayerWeights zero_encoder_layer(std::size_t D, std::size_t F) {
    auto w = zero_common_parts<EncoderLayerWeights>(D, F);
    w.attention = zero_attention(D);
    return w;
}

DecoderLayerWeights zero_decoder_layer(std::size_t D, std::size_t F) {
    auto w = zero_common_parts<DecoderLayerWeights>(D, F);
    w.self_attention = zero_attention(D);
    w.cross_attention = zero_attention(D);
    std::tie(w.norm3_weight, w.norm3_bias) = zero_norm(D);
    return w;
}

}  // namespace

Seq2SeqWeights zero_seq2seq_weights(const Seq2SeqSizes& sizes) {
    const std::size_t V = sizes.vocabulary, D = sizes.d_model, F = sizes.d_ff;
    if (V == 0 || D == 0 || F == 0 || sizes.encoder_layers == 0 || sizes.decoder_layers == 0) {
        throw InputError("zero_seq2seq_weights: vocabulary " + std::to_string(V) + ", d_model " + std::to_string(D) +
                         ", d_ff " + std::to_string(F) + ", " + std::to_string(sizes.encoder_layers) +
                         " encoder and " + std::to_string(sizes.decoder_layers) +
                         " decoder layers: every size must be at least 1");
    }
    checked_value_count({V, D}, "zero_seq2seq_weights: the (V, D) embedding");
    checked_value_count({F, D}, "zero_seq2seq_weights: the (F, D) linear1_weight");
    Seq2SeqWeights weights;
    weights.src_embedding = xt::zeros<double>({V, D});
    weights.tgt_embedding = xt::zeros<double>({V, D});
    for (std::size_t i = 0; i < sizes.encoder_layers; ++i) {
        weights.transformer.encoder_layers.push_back(zero_encoder_layer(D, F));
    }
    weights.transformer.encoder_norm = zero_norm(D);
    for (std::size_t i = 0; i < sizes.decoder_layers; ++i) {
        weights.transformer.decoder_layers.push_back(zero_decoder_layer(D, F));
    }
    weights.transformer.decoder_norm = zero_norm(D);
    weights.generator_weight = xt::zeros<double>({V, D});
    weights.generator_bias = xt::zeros<double>({V});
    return weights;
}

Seq2SeqSizes seq2seq_sizes(const Seq2SeqWeights& weights) {
    const std::string f = "seq2seq";
    if (weights.transformer.encoder_layers.empty() || weights.transformer.decoder_layers.empty()) {
        throw ShapeError(f + ": the model needs at least one encoder and one decoder layer; it has " +
                         std::to_string(weights.transformer.encoder_layers.size()) + " and " +
                         std::to_string(weights.transformer.decoder_layers.size()));
    }
    const ShapeLetters letters = check_shapes(
        f, {{"src_embedding", weights.src_embedding, "V,D"},
            {"tgt_embedding", weights.tgt_embedding, "V,D"},
            {"encoder.layers.0.linear1_weight", weights.transformer.encoder_layers[0].linear1_weight, "F,D"},
            {"generator_weight", weights.generator_weight, "V,D"},
            {"generator_bias", weights.generator_bias, "V"}});
    // The layers' own shapes are checked by the layers themselves, naming the tensor.
    return {letters.at("V"), letters.at("D"), weights.transformer.encoder_layers.size(),
            weights.transformer.decoder_layers.size(), letters.at("F")};
}

Tensor3 embed_with_positions(const Matrix& table, const IdTensor& ids, const std::string& ids_name) {
    Tensor3 x;
    try {
        x = embedding(table, ids);
    } catch (const ShapeError& error) {
        throw ShapeError(ids_name + ": " + error.what());
    } catch (const InputError& error) {
        throw InputError(ids_name + ": " + error.what());
    }
    const std::size_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    const Matrix positions = sinusoidal_positions(T, D);  // (T, D)
    const double scale = std::sqrt(static_cast<double>(D));
    for (std::size_t b = 0; b < B; ++b) {
        for (std::size_t t = 0; t < T; ++t) {
            for (std::size_t d = 0; d < D; ++d) x(b, t, d) = x(b, t, d) * scale + positions(t, d);
        }
    }
    return x;
}

TransformerOptions transformer_options_of(const Seq2SeqOptions& options, const Dropout& dropout) {
    TransformerOptions transformer(options.heads);
    transformer.norm_first = options.norm_first;
    transformer.eps = options.eps;
    transformer.causal = true;
    transformer.dropout = dropout;
    return transformer;
}

Seq2SeqStep seq2seq_forward(const IdTensor& src, const IdTensor& tgt, const Seq2SeqWeights& weights,
                            const Seq2SeqOptions& options, std::mt19937* dropout_generator) {
    check_shapes("seq2seq_forward", {{"src", src, "B,S"}, {"tgt", tgt, "B,T"}});
    seq2seq_sizes(weights);
    if (!(options.dropout >= 0.0 && options.dropout <= 1.0)) {
        throw InputError("seq2seq_forward: options.dropout must be a probability from 0 to 1, got " +
                         std::to_string(options.dropout));
    }
    // Training draws every mask from the one generator; evaluation (no generator) draws nothing.
    const Dropout dropout = dropout_generator ? Dropout(options.dropout, *dropout_generator) : Dropout();
    Seq2SeqStep step;
    DropoutStep<Tensor3> src_x = attn::dropout(embed_with_positions(weights.src_embedding, src, "seq2seq_forward: src"),
                                               dropout);
    DropoutStep<Tensor3> tgt_x = attn::dropout(embed_with_positions(weights.tgt_embedding, tgt, "seq2seq_forward: tgt"),
                                               dropout);
    step.src_embedded = std::move(src_x.output), step.src_dropout = std::move(src_x.mask);
    step.tgt_embedded = std::move(tgt_x.output), step.tgt_dropout = std::move(tgt_x.mask);
    step.transformer = transformer_steps(step.src_embedded, step.tgt_embedded, weights.transformer,
                                         transformer_options_of(options, dropout));
    step.logits = linear(step.transformer.output, weights.generator_weight, weights.generator_bias, "generator_weight");
    return step;
}

}  // namespace attn
