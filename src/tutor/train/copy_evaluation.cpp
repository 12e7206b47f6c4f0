// Greedy decoding of the copy-task model and its copy accuracy (tutor/train/copy_evaluation.hpp).
#include "tutor/train/copy_evaluation.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "attn/generation.hpp"
#include "attn/shape.hpp"
#include "tutor/train/copy_task.hpp"

namespace attn::tutor {

std::vector<std::int64_t> greedy_copy(const Seq2SeqWeights& weights, const Seq2SeqOptions& options, const IdTensor& src) {
    if (src.shape(0) != 1 || src.shape(1) < 2) {
        throw InputError("greedy_copy: src has shape " + shape_string(src.shape()) +
                         "; it must be one sequence of at least 2 symbols, (1, L)");
    }
    seq2seq_sizes(weights);
    EncoderLayerOptions encoder(options.heads);
    encoder.norm_first = options.norm_first;
    encoder.eps = options.eps;
    const Tensor3 memory = transformer_encoder(embed_with_positions(weights.src_embedding, src, "greedy_copy: src"),
                                               weights.transformer.encoder_layers, encoder,
                                               weights.transformer.encoder_norm);
    DecoderLayerOptions decoder(options.heads);
    decoder.norm_first = options.norm_first;
    decoder.eps = options.eps;
    decoder.causal = true;
    const DecoderModel model{weights.tgt_embedding, weights.transformer.decoder_layers, weights.transformer.decoder_norm,
                             weights.generator_weight, weights.generator_bias};
    // The copy task has no stop symbol: the padding id, never right, stands in for one.
    const GreedyDecoding decoded = greedy_decode(model, decoder, memory, copy_start, copy_padding, src.shape(1) - 1);
    std::vector<std::int64_t> ids{copy_start};
    ids.insert(ids.end(), decoded.ids.begin(), decoded.ids.end());
    return ids;
}

double copy_accuracy(const Seq2SeqWeights& weights, const Seq2SeqOptions& options, std::mt19937& generator,
                     std::size_t count, std::size_t length) {
    const std::size_t V = seq2seq_sizes(weights).vocabulary;
    std::size_t copied = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const CopyBatch sequence = copy_batch(generator, 1, length, V);
        const std::vector<std::int64_t> decoded = greedy_copy(weights, options, sequence.src);
        copied += std::equal(decoded.begin(), decoded.end(), sequence.src.begin(), sequence.src.end()) ? 1 : 0;
    }
    return count == 0 ? 0.0 : double(copied) / double(count);
}

}  // namespace attn::tutor
