// Greedy decoding of the copy-task model and its copy accuracy (tutor/train/copy_evaluation.hpp).
#include "tutor/train/copy_evaluation.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "attn/fast/seq2seq_training.hpp"
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

std::vector<std::int64_t> greedy_copy(const CopyTrainer& trainer, const IdTensor& src) {
    if (!trainer.float32) return greedy_copy(trainer.weights, trainer.options, src);
    if (src.shape(0) != 1 || src.shape(1) < 2) {
        throw InputError("greedy_copy: src has shape " + shape_string(src.shape()) +
                         "; it must be one sequence of at least 2 symbols, (1, L)");
    }
    const IdTensor decoded = trainer.float32->greedy_decode(src, copy_start, src.shape(1));
    return {decoded.begin(), decoded.end()};
}

double copy_accuracy(const CopyTrainer& trainer, std::mt19937& generator, std::size_t count, std::size_t length) {
    if (!trainer.float32) return copy_accuracy(trainer.weights, trainer.options, generator, count, length);
    // The sequences one by one, as the double path draws them, decoded 100 at a time.
    constexpr std::size_t chunk = 100;
    const std::size_t V = seq2seq_sizes(trainer.weights).vocabulary;
    std::size_t copied = 0;
    for (std::size_t first = 0; first < count; first += chunk) {
        const std::size_t rows = std::min(chunk, count - first);
        IdTensor sources = IdTensor::from_shape({rows, length});
        for (std::size_t r = 0; r < rows; ++r) {
            const CopyBatch sequence = copy_batch(generator, 1, length, V);
            std::copy(sequence.src.begin(), sequence.src.end(), sources.begin() + std::ptrdiff_t(r * length));
        }
        const IdTensor decoded = trainer.float32->greedy_decode(sources, copy_start, length);
        for (std::size_t r = 0; r < rows; ++r) {
            const auto from = std::ptrdiff_t(r * length), to = std::ptrdiff_t((r + 1) * length);
            copied += std::equal(decoded.begin() + from, decoded.begin() + to, sources.begin() + from) ? 1 : 0;
        }
    }
    return count == 0 ? 0.0 : double(copied) / double(count);
}

}  // namespace attn::tutor
