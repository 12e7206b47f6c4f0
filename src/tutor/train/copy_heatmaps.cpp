// Where the copy-task model looks (tutor/train/copy_heatmaps.hpp).
#include "tutor/train/copy_heatmaps.hpp"

#include <algorithm>
#include <sstream>

#include "attn/error.hpp"
#include "attn/printable.hpp"
#include "tutor/language.hpp"
#include "attn/shape.hpp"
#include "tutor/train/copy_task.hpp"
#include "tutor/views/heatmap.hpp"

namespace attn::tutor {

IdTensor parse_copy_sequence(const std::string& text, std::size_t vocabulary, std::size_t longest,
                             const std::string& vocabulary_owner) {
    std::vector<std::int64_t> ids;
    std::istringstream words(text);
    for (std::string word; words >> word;) {
        const bool digits = !word.empty() && word.size() <= 9 &&
                            std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
        const std::int64_t id = digits ? std::stoll(word) : -1;
        if (id < 0 || id >= static_cast<std::int64_t>(vocabulary)) {
            throw InputError(trf("--sequence: '{1}' is not a symbol of {2}, whose vocabulary is 0 to {3}",
                                 {printable_text(word), vocabulary_owner, std::to_string(vocabulary - 1)}));
        }
        ids.push_back(id);
    }
    if (ids.size() < 2 || ids.size() > longest) {
        throw InputError(trf("--sequence holds {1} symbols; give 2 to {2}, such as \"1 2 3 4 5 6 7 8 9 10\"",
                             {std::to_string(ids.size()), std::to_string(longest)}));
    }
    IdTensor src = IdTensor::from_shape({1, ids.size()});
    std::copy(ids.begin(), ids.end(), src.begin());
    return src;
}

CopyAttention copy_attention(const Seq2SeqWeights& weights, const Seq2SeqOptions& options, const IdTensor& src) {
    if (src.shape(0) != 1 || src.shape(1) < 2) {
        throw InputError("copy_attention: src has shape " + shape_string(src.shape()) +
                         "; it must be one sequence of at least 2 symbols, (1, S)");
    }
    CopyAttention seen;
    seen.source.assign(src.begin(), src.end());
    seen.decoded = {copy_start};
    // Greedy decoding with the whole prefix run again at every step (no cache): the last step's
    // forward reads the decode without its last symbol, and its cross-attention is the picture.
    Seq2SeqStep step;
    while (seen.decoded.size() < seen.source.size()) {
        const std::size_t T = seen.decoded.size();
        IdTensor decoder_input = IdTensor::from_shape({1, T});
        std::copy(seen.decoded.begin(), seen.decoded.end(), decoder_input.begin());
        step = seq2seq_forward(src, decoder_input, weights, options);
        std::size_t best = 0;
        for (std::size_t v = 1; v < step.logits.shape(2); ++v) best = step.logits(0, T - 1, v) > step.logits(0, T - 1, best) ? v : best;
        seen.decoded.push_back(static_cast<std::int64_t>(best));
    }
    for (DecoderLayerStep& layer : step.transformer.decoder_layers) {
        seen.cross_attention.push_back(std::move(layer.cross_attention.weights));
    }
    return seen;
}

std::vector<std::string> copy_query_labels(const CopyAttention& seen) {
    std::vector<std::string> labels;
    for (std::size_t t = 0; t + 1 < seen.decoded.size(); ++t) {
        labels.push_back(std::to_string(seen.decoded[t]) + "→" + std::to_string(seen.decoded[t + 1]));
    }
    return labels;
}

std::vector<std::string> copy_key_labels(const CopyAttention& seen) {
    std::vector<std::string> labels;
    for (const std::int64_t id : seen.source) labels.push_back(std::to_string(id));
    return labels;
}

void check_heatmap_head(std::optional<std::size_t> head, std::size_t heads) {
    if (head && *head >= heads) {
        throw InputError(trf("--heatmap-head {1}: the model's {2} heads are numbered 0 to {3}",
                             {std::to_string(*head), std::to_string(heads), std::to_string(heads - 1)}));
    }
}

Matrix copy_attention_grid(const CopyAttention& seen, std::size_t layer, std::optional<std::size_t> head) {
    const Tensor4& weights = seen.cross_attention.at(layer);
    const std::size_t h = weights.shape(1), T = weights.shape(2), S = weights.shape(3);
    check_heatmap_head(head, h);
    Matrix grid = Matrix::from_shape({T, S});
    for (std::size_t t = 0; t < T; ++t) {
        for (std::size_t s = 0; s < S; ++s) {
            double sum = 0;
            for (std::size_t j = 0; j < h; ++j) sum += weights(0, j, t, s);
            grid(t, s) = head ? weights(0, *head, t, s) : sum / double(h);
        }
    }
    return grid;
}

std::pair<std::size_t, std::size_t> rows_reading_next_symbol(const CopyAttention& seen, std::optional<std::size_t> head) {
    const Matrix grid = copy_attention_grid(seen, seen.cross_attention.size() - 1, head);
    std::size_t rows = 0;
    for (std::size_t t = 0; t < grid.shape(0); ++t) {
        std::size_t strongest = 0;
        for (std::size_t s = 1; s < grid.shape(1); ++s) strongest = grid(t, s) > grid(t, strongest) ? s : strongest;
        rows += strongest == t + 1 ? 1 : 0;
    }
    return {rows, grid.shape(0)};
}

std::string render_copy_heatmap(const Terminal& terminal, const CopyAttention& seen, std::optional<std::size_t> head,
                                bool trained) {
    const std::size_t layers = seen.cross_attention.size(), heads = seen.cross_attention.back().shape(1);
    const std::string which = head ? trf("head {1}", {std::to_string(*head)})
                                   : trn("the mean of its {1} head", "the mean of its {1} heads", heads, {std::to_string(heads)});
    const std::string caption =
        trained ? trf("After training: the cross-attention of decoder layer {1} (the last), {2}, on a fresh sequence",
                      {std::to_string(layers - 1), which})
                : trf("Before training: the cross-attention of decoder layer {1} (the last), {2}, on a fresh sequence",
                      {std::to_string(layers - 1), which});
    const auto [reading, rows] = rows_reading_next_symbol(seen, head);
    return paint(terminal, Style::bold, caption) + "\n" +
           tr("rows: each step of the greedy decode, the symbol read → the symbol written; columns: the source") + "\n\n" +
           render_heatmap(terminal, copy_attention_grid(seen, layers - 1, head), copy_query_labels(seen),
                          copy_key_labels(seen)) +
           trn("In {1} of {2} row the largest weight is on source position t + 1, the symbol a copy writes at that step.",
               "In {1} of {2} rows the largest weight is on source position t + 1, the symbol a copy writes at that step.", rows,
               {std::to_string(reading), std::to_string(rows)}) +
           "\n";
}

}  // namespace attn::tutor
