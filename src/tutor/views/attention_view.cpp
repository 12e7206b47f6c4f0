#include "tutor/views/attention_view.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "attn/error.hpp"
#include "attn/files.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/npy_tensor.hpp"
#include "attn/positions.hpp"
#include "attn/printable.hpp"
#include "attn/shape.hpp"
#include "tutor/language.hpp"

namespace attn::tutor {

namespace {

constexpr double pi = 3.14159265358979323846;

// A uniform value in (0, 1) from the top 53 bits: never 0, so that log() below is finite.
double uniform_open(std::mt19937_64& generator) {
    return (static_cast<double>(generator() >> 11) + 0.5) / 9007199254740992.0;  // 2^53
}

// Box–Muller, one value per pair of uniforms: the same numbers with any standard library.
double standard_normal(std::mt19937_64& generator) {
    const double radius = std::sqrt(-2.0 * std::log(uniform_open(generator)));
    return radius * std::cos(2.0 * pi * uniform_open(generator));
}

std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

// True when every column of the (T, S) grid starting at `grid` sums to 1: the tensor was
// probably saved transposed, keys before queries.
bool columns_sum_to_one(const double* grid, std::size_t rows, std::size_t columns) {
    for (std::size_t c = 0; c < columns; ++c) {
        double sum = 0.0;
        for (std::size_t r = 0; r < rows; ++r) sum += grid[r * columns + c];
        if (std::abs(sum - 1.0) > row_sum_tolerance) return false;
    }
    return true;
}

std::string count_text(std::size_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace

std::vector<std::string> split_sentence(const std::string& sentence) {
    std::vector<std::string> tokens;
    std::istringstream words(sentence);
    for (std::string word; words >> word;) tokens.push_back(printable_text(word));
    if (tokens.empty()) throw InputError(tr("the sentence is empty: give at least one word, e.g. --sentence \"El perro va\""));
    return tokens;
}

std::vector<std::string> parse_tokens(const std::string& text, const std::string& name) {
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        tokens.push_back(printable_text(line));
        start = end + 1;
    }
    if (tokens.empty()) throw InputError(trf("{1} is empty: write one token per line", {printable_text(name)}));
    return tokens;
}

std::vector<std::string> read_tokens(const std::string& path) {
    const std::string name = trf("the tokens file {1}", {path});
    return parse_tokens(read_input_file(path, max_tokens_file_bytes, "the tokens file"), name);
}

std::uint64_t stable_text_hash(const std::string& text) {
    std::uint64_t hash = 14695981039346656037ull;  // FNV-1a's 64-bit offset basis
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ull;  // FNV's 64-bit prime
    }
    return hash;
}

Matrix token_embeddings(const std::vector<std::string>& tokens, std::size_t d_model) {
    Matrix embeddings = Matrix::from_shape({tokens.size(), d_model});
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        std::mt19937_64 generator(stable_text_hash(tokens[t]));
        for (std::size_t d = 0; d < d_model; ++d) embeddings(t, d) = standard_normal(generator);
    }
    return embeddings;
}

Tensor4 sentence_attention(const std::vector<std::string>& tokens, const SentenceModel& model) {
    if (tokens.empty()) throw InputError("sentence_attention: there are no tokens");
    const std::size_t T = tokens.size(), D = model.d_model;
    if (model.heads == 0 || D == 0 || D % model.heads != 0) {
        throw ShapeError("sentence_attention: " + count_text(model.heads, "head", "heads") + " cannot split d_model " +
                         std::to_string(D) + "; each head gets d_k = d_model / heads features, so heads must divide d_model");
    }
    // Sizes are checked before anything is allocated: (h, T, T) weights and (D, D) matrices.
    if (D > max_sentence_d_model) {
        throw InputError(trf("sentence_attention: d_model {1} is more than {2}, the widest untrained model drawn (--d-model)",
                             {std::to_string(D), std::to_string(max_sentence_d_model)}));
    }
    if (T > max_sentence_tokens) {
        throw InputError(trf("sentence_attention: the sentence has {1} tokens; at most {2} are drawn",
                             {std::to_string(T), std::to_string(max_sentence_tokens)}));
    }
    const Matrix x = token_embeddings(tokens, D) + sinusoidal_positions(T, D);
    Tensor3 sequence = Tensor3::from_shape({1, T, D});
    std::copy(x.begin(), x.end(), sequence.begin());

    // Normal with standard deviation 1/√D: each projected feature has about the variance of the
    // input's, so the scores are neither all equal nor all one-hot.
    std::mt19937_64 generator(model.seed);
    const double deviation = 1.0 / std::sqrt(static_cast<double>(D));
    MultiHeadAttentionWeights w;
    for (Matrix* m : {&w.w_q, &w.w_k, &w.w_v}) {
        *m = Matrix::from_shape({D, D});
        for (auto& value : *m) value = deviation * standard_normal(generator);
    }
    w.b_q = w.b_k = w.b_v = Vector(xt::zeros<double>({D}));
    w.no_output_projection = true;  // the weights are what is shown; no W_o mixes the heads
    return multi_head_attention(sequence, sequence, sequence, w, model.heads).weights;
}

std::string weights_legend(std::size_t rank) {
    switch (rank) {
        case 2: return "(T, S)";
        case 3: return "(B, T, S)";
        case 4: return "(B, h, T, S)";
        default: return "";
    }
}

void check_attention_weights(const DynamicTensor& weights, const std::string& name) {
    const std::vector<std::size_t> shape(weights.shape().begin(), weights.shape().end());
    const std::size_t rank = shape.size();
    if (rank < 2 || rank > 4) {
        throw InputError(trf("{1} has shape {2}, rank {3}; attention weights have rank 2 to 4: (T, S), (B, T, S) or (B, h, T, S)",
                             {name, shape_string(shape), std::to_string(rank)}));
    }
    for (const std::size_t size : shape) {
        if (size == 0) {
            throw InputError(trf("{1} has shape {2} {3}: an empty axis leaves nothing to draw",
                                 {name, shape_string(shape), weights_legend(rank)}));
        }
    }
    const std::size_t rows = shape[rank - 2], columns = shape[rank - 1];
    const double* data = weights.data();
    for (std::size_t i = 0; i < weights.size(); ++i) {
        if (std::isnan(data[i])) {
            throw InputError(trf("{1} holds NaN at {2}; PyTorch gives NaN to a query whose keys are all masked: "
                                 "torch.nan_to_num(weights) makes that row 0, as this library does",
                                 {name, index_string(i, shape)}));
        }
        if (!std::isfinite(data[i]) || data[i] < -1e-6 || data[i] > 1.0 + 1e-6) {
            throw InputError(trf("{1} holds {2} at {3}; attention weights lie in [0, 1]. Are these the scores before the softmax?",
                                 {name, number_text(data[i]), index_string(i, shape)}));
        }
    }
    for (std::size_t row = 0; row < weights.size() / columns; ++row) {
        double sum = 0.0;
        bool all_zero = true;
        for (std::size_t c = 0; c < columns; ++c) {
            sum += data[row * columns + c];
            all_zero = all_zero && data[row * columns + c] == 0.0;
        }
        if (all_zero || std::abs(sum - 1.0) <= row_sum_tolerance) continue;
        // "[0, 2, 3, :]": the row as NumPy would slice it.
        std::string at = index_string(row, std::vector<std::size_t>(shape.begin(), shape.end() - 1));
        at.insert(at.size() - 1, ", :");
        std::string message = trf("{1}: the weights of query {2} (the last axis, {3} keys) sum to {4}, not 1; each query's "
                                  "weights over the keys sum to 1 (a row of zeros, a query whose keys are all masked, is allowed)",
                                  {name, at, std::to_string(columns), number_text(sum)});
        const double* grid = data + (row / rows) * rows * columns;
        if (columns_sum_to_one(grid, rows, columns)) {
            message += tr(". Its columns sum to 1: was it saved transposed, (S, T) instead of (T, S)?");
        }
        throw InputError(message);
    }
}

DynamicTensor read_attention_weights(const std::string& path) {
    DynamicTensor weights = read_npy_tensor(path);
    check_attention_weights(weights, path);
    return weights;
}

AttentionHeads select_sequence(const DynamicTensor& weights, std::size_t item, const std::string& name) {
    const std::size_t rank = weights.dimension();
    if (rank < 2 || rank > 4) {
        throw InputError(trf("{1}: attention weights have rank 2 to 4, not {2}", {name, std::to_string(rank)}));
    }
    const std::size_t sequences = rank == 2 ? 1 : weights.shape()[0];
    const std::size_t heads = rank == 4 ? weights.shape()[1] : 1;
    const std::size_t T = weights.shape()[rank - 2], S = weights.shape()[rank - 1];
    if (item >= sequences) {
        throw InputError(trn("{1} holds {2} sequence (B = {2}); there is no sequence {3} (they are numbered from 0)",
                             "{1} holds {2} sequences (B = {2}); there is no sequence {3} (they are numbered from 0)", sequences,
                             {name, std::to_string(sequences), std::to_string(item)}));
    }
    AttentionHeads out;
    out.weights = Tensor3::from_shape({heads, T, S});
    const double* first = weights.data() + item * heads * T * S;
    std::copy(first, first + heads * T * S, out.weights.begin());
    for (std::size_t t = 0; t < T; ++t) out.query_tokens.push_back(std::to_string(t));
    for (std::size_t s = 0; s < S; ++s) out.key_tokens.push_back(std::to_string(s));
    return out;
}

void label_with_tokens(AttentionHeads& heads, const std::string& weights_name, const std::vector<std::string>& query_tokens,
                       const std::string& query_tokens_name, const std::vector<std::string>& key_tokens,
                       const std::string& key_tokens_name) {
    const std::size_t T = heads.weights.shape(1), S = heads.weights.shape(2);
    const std::string axes = trf("T = {1} queries and S = {2} keys", {std::to_string(T), std::to_string(S)});
    if (key_tokens.empty() && T != S) {
        throw InputError(trf("{1} has {2} (not self-attention): label the queries with --tokens and the keys with --key-tokens",
                             {weights_name, axes}));
    }
    if (query_tokens.size() != T) {
        throw InputError(trn("{1} has {2} token but {3} has {4}: one token per line, one line per position",
                             "{1} has {2} tokens but {3} has {4}: one token per line, one line per position", query_tokens.size(),
                             {query_tokens_name, std::to_string(query_tokens.size()), weights_name, axes}));
    }
    if (!key_tokens.empty() && key_tokens.size() != S) {
        throw InputError(trn("{1} has {2} token but {3} has {4}: one key token per line, one line per key",
                             "{1} has {2} tokens but {3} has {4}: one key token per line, one line per key", key_tokens.size(),
                             {key_tokens_name, std::to_string(key_tokens.size()), weights_name, axes}));
    }
    heads.query_tokens = query_tokens;
    heads.key_tokens = key_tokens.empty() ? query_tokens : key_tokens;
}

}  // namespace attn::tutor
