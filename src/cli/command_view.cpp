// `attn heatmap` and `attn view`: pictures of attention weights.
//
// Both take their weights from one of two places: a sentence (`--sentence`, run through untrained
// multi-head self-attention, tutor/attention_view.hpp) or a .npy file (`--weights`, such as the
// weights.npy of `attn compute mha` or a student's model exported from PyTorch) with optional
// token files. `attn heatmap` prints every grid with the lessons' terminal renderer; `attn view`
// writes a self-contained HTML page and/or an SVG heatmap (tutor/attention_page.hpp).
//
// Everything is read, checked and drawn before the first file is written, and the files are
// written all or none, so a mistake never leaves half a page behind.
#include <filesystem>
#include <iostream>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "cli/commands.hpp"
#include "tutor/attention_page.hpp"
#include "tutor/attention_view.hpp"
#include "tutor/heatmap.hpp"
#include "tutor/terminal.hpp"

namespace attn::cli {

namespace {

/// The weights to draw, their labels, and what to say about where they come from.
struct LoadedAttention {
    DynamicTensor weights;  // as read, or (1, h, T, T) for a sentence
    tutor::AttentionHeads first_sequence;  // sequence 0, labelled: proof that the tokens fit
    std::string weights_name;              // "weights.npy (1, 8, 7, 7) (B, h, T, S)", for messages
    std::string title;                     // the sentence, or the weights file
    std::vector<std::string> notes;        // where the weights come from
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
        throw ShapeError("--d-model " + std::to_string(o.d_model) + " is not a multiple of --heads " + std::to_string(o.heads) +
                         "; each head gets d_k = D / h features, so h must divide D");
    }
    LoadedAttention a;
    const std::vector<std::string> tokens = tutor::split_sentence(*o.sentence);
    tutor::SentenceModel model;
    model.heads = o.heads;
    model.d_model = o.d_model;
    model.seed = o.seed;
    a.weights = tutor::sentence_attention(tokens, model);
    a.weights_name = "the sentence's weights " + shape_of(a.weights) + " (B, h, T, S)";
    a.first_sequence = tutor::select_sequence(a.weights, 0, a.weights_name);
    tutor::label_with_tokens(a.first_sequence, a.weights_name, tokens, "the sentence");
    a.title = joined(tokens);
    a.notes = {
        "These weights are untrained. Each token's embedding is a random vector drawn from the token's own text "
        "(the same word always gets the same vector), plus sinusoidal positions; W_q, W_k and W_v are random "
        "numbers drawn with seed " + std::to_string(o.seed) + ". The picture shows how multi-head attention is "
        "computed, not what a trained model has learned.",
        std::to_string(o.heads) + (o.heads == 1 ? " head" : " heads") + ", d_model " + std::to_string(o.d_model) +
            " (d_k = " + std::to_string(o.d_model / o.heads) + " per head), no output projection; " +
            std::to_string(tokens.size()) + " tokens, split at spaces.",
    };
    return a;
}

LoadedAttention load_from_file(const AttentionSourceOptions& o) {
    LoadedAttention a;
    a.weights = tutor::read_attention_weights(o.weights);
    a.weights_name = printable_text(o.weights) + " " + shape_of(a.weights) + " " + tutor::weights_legend(a.weights.dimension());
    a.first_sequence = tutor::select_sequence(a.weights, 0, a.weights_name);
    if (!o.key_tokens.empty() && o.tokens.empty()) {
        throw InputError("--key-tokens labels the keys; give the queries' tokens with --tokens too");
    }
    if (!o.tokens.empty()) {
        const std::vector<std::string> key_tokens = o.key_tokens.empty() ? std::vector<std::string>{} : tutor::read_tokens(o.key_tokens);
        tutor::label_with_tokens(a.first_sequence, a.weights_name, tutor::read_tokens(o.tokens), o.tokens, key_tokens,
                                 o.key_tokens);
    }
    a.title = printable_text(o.weights);
    a.notes.push_back("Weights read from " + a.weights_name + ".");
    a.notes.push_back(o.tokens.empty() ? "No token file was given: positions are numbered (--tokens FILE labels them, one token per line)."
                                       : "Tokens from " + printable_text(o.tokens) +
                                             (o.key_tokens.empty() ? "" : " (queries) and " + printable_text(o.key_tokens) + " (keys)") + ".");
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
    throw InputError("nothing to draw: give --sentence \"some words\" or --weights weights.npy (with --tokens tokens.txt)");
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
    if (rank == 4) {
        axis_names = single_sequence ? std::vector<std::string>{"head"} : std::vector<std::string>{"batch", "head"};
        if (single_sequence) grids.reshape({grids.shape()[1], grids.shape()[2], grids.shape()[3]});
    } else if (rank == 3) {
        axis_names = {"batch"};
        if (single_sequence) grids.reshape({grids.shape()[1], grids.shape()[2]});
    }
    std::cout << tutor::paint(terminal, tutor::Style::heading, a.title) << "\n";
    // One line per note, unwrapped: a path or a shape such as (3, 2, 5, 5) must not be cut in two.
    for (const auto& note : a.notes) std::cout << note << "\n";
    std::cout << tutor::paint(terminal, tutor::Style::dim, "rows: queries · columns: keys · each row sums to 1") << "\n\n";
    std::cout << tutor::render_heatmaps(terminal, grids, a.first_sequence.query_tokens, a.first_sequence.key_tokens,
                                        axis_names);
    return exit_success;
}

int run_view(const GlobalOptions&, const ViewOptions& options) {
    if (options.html.empty() && options.svg.empty()) {
        throw InputError("nothing to write: give --html out.html, --svg out.svg or both");
    }
    if (!options.html.empty() && !options.svg.empty() && same_file(options.html, options.svg)) {
        throw InputError("--html " + printable_text(options.html) + " and --svg " + printable_text(options.svg) +
                         " name the same file; give the page and the picture their own names");
    }
    const LoadedAttention a = load_attention(options.source);
    tutor::AttentionHeads heads = tutor::select_sequence(a.weights, options.item, a.weights_name);
    heads.query_tokens = a.first_sequence.query_tokens;
    heads.key_tokens = a.first_sequence.key_tokens;
    std::vector<std::string> notes = a.notes;
    if (a.weights.dimension() > 2 && a.weights.shape()[0] > 1) {
        notes.push_back("This page shows sequence " + std::to_string(options.item) + " of the " +
                        std::to_string(a.weights.shape()[0]) + " in the batch (--item chooses another).");
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
                                     {"--tokens", source.tokens}, {"--key-tokens", source.key_tokens}}) {
        if (!path.empty()) inputs.push_back({what, path});
    }
    write_files_atomically(files, inputs);
    const std::size_t h = heads.weights.shape(0), T = heads.weights.shape(1), S = heads.weights.shape(2);
    const std::string what = std::to_string(h) + (h == 1 ? " head" : " heads") + ", " + std::to_string(T) + " queries × " +
                             std::to_string(S) + " keys";
    if (!options.html.empty()) {
        std::cout << "wrote " << printable_text(options.html) << ": " << what << "; open it in a browser (it needs no network)\n";
    }
    if (!options.svg.empty()) {
        std::cout << "wrote " << printable_text(options.svg) << ": the heatmap of head " << options.head << ", " << T << " queries × " << S
                  << " keys\n";
    }
    return exit_success;
}

}  // namespace attn::cli
