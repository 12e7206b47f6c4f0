// `attn heatmap` and `attn view`: pictures of attention weights.
//
// Both take their weights from one of three places: a sentence (`--sentence`, run through untrained
// multi-head self-attention, tutor/views/attention_view.hpp), a .npy file (`--weights`, such as the
// weights.npy of `attn compute mha` or a student's model exported from PyTorch) with optional
// token files, or a trained model (`--checkpoint` of `attn train copy --save`, with `--sequence`:
// its decoder's cross-attention while it decodes the sequence). `attn heatmap` prints every grid with the lessons' terminal renderer; `attn view`
// writes a self-contained HTML page and/or an SVG heatmap (tutor/views/attention_page.hpp).
//
// Everything is read, checked and drawn before the first file is written, and the files are
// written all or none, so a mistake never leaves half a page behind.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "attn/seq2seq_transformer.hpp"
#include "cli/commands.hpp"
#include "tutor/train/copy_files.hpp"
#include "tutor/train/copy_heatmaps.hpp"
#include "tutor/views/attention_page.hpp"
#include "tutor/views/attention_view.hpp"
#include "tutor/views/heatmap.hpp"
#include "tutor/language.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::cli {

using tutor::tr;
using tutor::trf;
using tutor::trn;

namespace {

/// The weights to draw, their labels, and what to say about where they come from.
struct LoadedAttention {
    DynamicTensor weights;  // as read, or (1, h, T, T) for a sentence
    tutor::AttentionHeads first_sequence;  // sequence 0, labelled: proof that the tokens fit
    std::string weights_name;              // "weights.npy (1, 8, 7, 7) (B, h, T, S)", for messages
    std::string title;                     // the sentence, or the weights file
    std::vector<std::string> notes;        // where the weights come from
    std::size_t heads_per_layer = 0;       // a checkpoint's: (1, N·h, T, S) holds N layers of h heads; else 0
};

std::string shape_of(const DynamicTensor& tensor) {
    return shape_string(std::vector<std::size_t>(tensor.shape().begin(), tensor.shape().end()));
}

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
    return text;
}

LoadedAttention load_from_sentence(const AttentionSourceOptions& o) {
    if (o.d_model % o.heads != 0) {
        throw ShapeError(trf("--d-model {1} is not a multiple of --heads {2}; each head gets d_k = D / h features, so h must divide D",
                             {std::to_string(o.d_model), std::to_string(o.heads)}));
    }
    LoadedAttention a;
    const std::vector<std::string> tokens = tutor::split_sentence(*o.sentence);
    tutor::SentenceModel model;
    model.heads = o.heads;
    model.d_model = o.d_model;
    model.seed = o.seed;
    a.weights = tutor::sentence_attention(tokens, model);
    a.weights_name = trf("the sentence's weights {1} (B, h, T, S)", {shape_of(a.weights)});
    a.first_sequence = tutor::select_sequence(a.weights, 0, a.weights_name);
    tutor::label_with_tokens(a.first_sequence, a.weights_name, tokens, tr("the sentence"));
    a.title = joined(tokens);
    a.notes = {
        trf("These weights are untrained. Each token's embedding is a random vector drawn from the token's own text "
            "(the same word always gets the same vector), plus sinusoidal positions; W_q, W_k and W_v are random "
            "numbers drawn with seed {1}. The picture shows how multi-head attention is computed, not what a trained "
            "model has learned.",
            {std::to_string(o.seed)}),
        trn("{1} head, d_model {2} (d_k = {3} per head), no output projection;",
            "{1} heads, d_model {2} (d_k = {3} per head), no output projection;", o.heads,
            {std::to_string(o.heads), std::to_string(o.d_model), std::to_string(o.d_model / o.heads)}) +
            " " + trn("{1} token, split at spaces.", "{1} tokens, split at spaces.", tokens.size(), {std::to_string(tokens.size())}),
    };
    return a;
}

// A checkpoint of attn train copy: its decoder's cross-attention while it greedily decodes
// --sequence, every layer's heads side by side, (1, N·h, T, S) (tutor/train/copy_heatmaps.hpp).
LoadedAttention load_from_checkpoint(const AttentionSourceOptions& o) {
    const tutor::CopyCheckpoint checkpoint = tutor::read_copy_checkpoint(o.checkpoint);
    const Seq2SeqSizes sizes = seq2seq_sizes(checkpoint.weights);
    const IdTensor src =
        tutor::parse_copy_sequence(o.sequence, sizes.vocabulary, tutor::max_drawn_tokens, printable_text(o.checkpoint));
    const tutor::CopyAttention seen = tutor::copy_attention(checkpoint.weights, checkpoint.options, src);
    const std::size_t N = seen.cross_attention.size(), h = checkpoint.options.heads;
    const std::size_t T = seen.cross_attention[0].shape(2), S = seen.cross_attention[0].shape(3);
    LoadedAttention a;
    a.heads_per_layer = h;
    a.weights = DynamicTensor::from_shape({1, N * h, T, S});
    for (std::size_t layer = 0; layer < N; ++layer) {
        std::copy(seen.cross_attention[layer].begin(), seen.cross_attention[layer].end(),
                  a.weights.begin() + static_cast<std::ptrdiff_t>(layer * h * T * S));
    }
    a.weights_name = trf("the cross-attention of {1} {2} (1, N·h, T, S)", {printable_text(o.checkpoint), shape_of(a.weights)});
    a.first_sequence = tutor::select_sequence(a.weights, 0, a.weights_name);
    a.first_sequence.query_tokens = tutor::copy_query_labels(seen);
    a.first_sequence.key_tokens = tutor::copy_key_labels(seen);
    std::vector<std::string> source, decoded;
    for (const std::int64_t id : seen.source) source.push_back(std::to_string(id));
    for (const std::int64_t id : seen.decoded) decoded.push_back(std::to_string(id));
    a.title = joined(source) + "  →  " + joined(decoded);
    a.notes = {
        trf("The model of {1} (d_model {2}, {3} heads, {4} decoder layers) read the sequence {5} and decoded it greedily "
            "as {6}.",
            {printable_text(o.checkpoint), std::to_string(sizes.d_model), std::to_string(h), std::to_string(N),
             joined(source), joined(decoded)}),
        tr("Each row is one step of the decode: the symbol the decoder read → the symbol it wrote; the columns are the "
           "source's symbols. A model that copies looks at source position t + 1, the symbol it writes."),
        N == 1 ? trf("Heads 0 to {1} are the decoder layer's cross-attention heads.", {std::to_string(h - 1)})
               : trf("Heads 0 to {1} are decoder layer 0's cross-attention, {2} to {3} layer 1's, and so on: head j of "
                     "layer l is number l·{4} + j.",
                     {std::to_string(h - 1), std::to_string(h), std::to_string(2 * h - 1), std::to_string(h)}),
    };
    return a;
}

LoadedAttention load_from_file(const AttentionSourceOptions& o) {
    LoadedAttention a;
    a.weights = tutor::read_attention_weights(o.weights);
    a.weights_name = printable_text(o.weights) + " " + shape_of(a.weights) + " " + tutor::weights_legend(a.weights.dimension());
    a.first_sequence = tutor::select_sequence(a.weights, 0, a.weights_name);
    if (!o.key_tokens.empty() && o.tokens.empty()) {
        throw InputError(tr("--key-tokens labels the keys; give the queries' tokens with --tokens too"));
    }
    if (!o.tokens.empty()) {
        const std::vector<std::string> key_tokens = o.key_tokens.empty() ? std::vector<std::string>{} : tutor::read_tokens(o.key_tokens);
        tutor::label_with_tokens(a.first_sequence, a.weights_name, tutor::read_tokens(o.tokens), o.tokens, key_tokens,
                                 o.key_tokens);
    }
    a.title = printable_text(o.weights);
    a.notes.push_back(trf("Weights read from {1}.", {a.weights_name}));
    a.notes.push_back(o.tokens.empty() ? tr("No token file was given: positions are numbered (--tokens FILE labels them, one token per line).")
                      : o.key_tokens.empty()
                          ? trf("Tokens from {1}.", {printable_text(o.tokens)})
                          : trf("Tokens from {1} (queries) and {2} (keys).", {printable_text(o.tokens), printable_text(o.key_tokens)}));
    return a;
}

// True when both paths lead to one file: the same folder (links resolved) and the same name.
bool same_file(const std::string& first, const std::string& second) {
    namespace fs = std::filesystem;
    std::error_code error;
    auto identity = [&error](const std::string& path) {
        const fs::path p(path);
        return fs::weakly_canonical(p.has_parent_path() ? p.parent_path() : fs::path("."), error) / p.filename();
    };
    return identity(first) == identity(second);
}

LoadedAttention load_attention(const AttentionSourceOptions& o) {
    if (o.sentence) return load_from_sentence(o);
    if (!o.weights.empty()) return load_from_file(o);
    if (!o.checkpoint.empty()) return load_from_checkpoint(o);
    throw InputError(tr("nothing to draw: give --sentence \"some words\", --weights weights.npy (with --tokens tokens.txt) "
                        "or --checkpoint model.npz --sequence \"1 2 3 4 5 6 7 8 9 10\""));
}

}  // namespace

int run_heatmap(const GlobalOptions&, const HeatmapOptions& options) {
    const LoadedAttention a = load_attention(options.source);
    const tutor::Terminal terminal = tutor::detect_terminal();
    // One caption per grid, without a batch axis of size 1: "head 3" rather than "batch 0 · head 3".
    DynamicTensor grids = a.weights;
    std::vector<std::string> axis_names;
    const std::size_t rank = grids.dimension();
    const bool single_sequence = rank > 2 && grids.shape()[0] == 1;
    if (a.heads_per_layer > 0) {
        // A checkpoint's layers, each with its own heads: "decoder layer 1 · head 0".
        axis_names = {tr("decoder layer"), tr("head")};
        grids.reshape({grids.shape()[1] / a.heads_per_layer, a.heads_per_layer, grids.shape()[2], grids.shape()[3]});
    } else if (rank == 4) {
        axis_names = single_sequence ? std::vector<std::string>{tr("head")} : std::vector<std::string>{tr("batch"), tr("head")};
        if (single_sequence) grids.reshape({grids.shape()[1], grids.shape()[2], grids.shape()[3]});
    } else if (rank == 3) {
        axis_names = {tr("batch")};
        if (single_sequence) grids.reshape({grids.shape()[1], grids.shape()[2]});
    }
    std::cout << tutor::paint(terminal, tutor::Style::heading, a.title) << "\n";
    // One line per note, unwrapped: a path or a shape such as (3, 2, 5, 5) must not be cut in two.
    for (const auto& note : a.notes) std::cout << note << "\n";
    std::cout << tutor::paint(terminal, tutor::Style::dim, tr("rows: queries · columns: keys · each row sums to 1")) << "\n\n";
    std::cout << tutor::render_heatmaps(terminal, grids, a.first_sequence.query_tokens, a.first_sequence.key_tokens,
                                        axis_names);
    return exit_success;
}

int run_view(const GlobalOptions&, const ViewOptions& options) {
    if (options.html.empty() && options.svg.empty()) {
        throw InputError(tr("nothing to write: give --html out.html, --svg out.svg or both"));
    }
    if (!options.html.empty() && !options.svg.empty() && same_file(options.html, options.svg)) {
        throw InputError(trf("--html {1} and --svg {2} name the same file; give the page and the picture their own names",
                             {printable_text(options.html), printable_text(options.svg)}));
    }
    const LoadedAttention a = load_attention(options.source);
    tutor::AttentionHeads heads = tutor::select_sequence(a.weights, options.item, a.weights_name);
    heads.query_tokens = a.first_sequence.query_tokens;
    heads.key_tokens = a.first_sequence.key_tokens;
    std::vector<std::string> notes = a.notes;
    if (a.weights.dimension() > 2 && a.weights.shape()[0] > 1) {
        notes.push_back(trf("This page shows sequence {1} of the {2} in the batch (--item chooses another).",
                            {std::to_string(options.item), std::to_string(a.weights.shape()[0])}));
    }
    std::vector<OutputFile> files;
    if (!options.html.empty()) {
        files.push_back({options.html, tutor::render_attention_page(heads, tutor::PageText{a.title, notes}, options.head), "--html"});
    }
    if (!options.svg.empty()) {
        files.push_back({options.svg, tutor::render_heatmap_svg(heads, options.head, a.title), "--svg"});
    }
    // Never written over what was read: `--html w.npy` with `--weights w.npy` would lose the weights.
    std::vector<InputPath> inputs;
    const AttentionSourceOptions& source = options.source;
    for (const auto& [what, path] : {std::pair<std::string, std::string>{"--weights", source.weights},
                                     {"--tokens", source.tokens}, {"--key-tokens", source.key_tokens},
                                     {"--checkpoint", source.checkpoint}}) {
        if (!path.empty()) inputs.push_back({what, path});
    }
    write_files_atomically(files, inputs);
    const std::size_t h = heads.weights.shape(0), T = heads.weights.shape(1), S = heads.weights.shape(2);
    const std::string queries_by_keys = trn("{1} query", "{1} queries", T, {std::to_string(T)}) + " × " +
                                        trn("{1} key", "{1} keys", S, {std::to_string(S)});
    if (!options.html.empty()) {
        std::cout << trn("wrote {1}: {2} head, {3}; open it in a browser (it needs no network)",
                         "wrote {1}: {2} heads, {3}; open it in a browser (it needs no network)", h,
                         {printable_text(options.html), std::to_string(h), queries_by_keys})
                  << "\n";
    }
    if (!options.svg.empty()) {
        std::cout << trf("wrote {1}: the heatmap of head {2}, {3}", {printable_text(options.svg), std::to_string(options.head), queries_by_keys})
                  << "\n";
    }
    return exit_success;
}

}  // namespace attn::cli
