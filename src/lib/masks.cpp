#include "attn/masks.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "attn/error.hpp"
#include "attn/shape.hpp"

namespace attn {

CausalAlignment parse_causal_alignment(const std::string& name) {
    if (name == "top-left") return CausalAlignment::top_left;
    if (name == "bottom-right") return CausalAlignment::bottom_right;
    throw InputError("unknown causal alignment '" + name +
                     "'; expected top-left (query t sees keys 0 … t, PyTorch's default) or bottom-right "
                     "(the last query sees every key, as in KV-cache decoding)");
}

Matrix causal_mask(std::size_t queries, std::size_t keys, CausalAlignment alignment) {
    Matrix mask = Matrix::from_shape({queries, keys});
    for (std::size_t t = 0; t < queries; ++t) {
        for (std::size_t s = 0; s < keys; ++s) {
            mask(t, s) = is_future_key(t, s, queries, keys, alignment) ? -std::numeric_limits<double>::infinity() : 0.0;
        }
    }
    return mask;
}

void check_attention_mask(const Matrix& attention_mask, const std::string& name) {
    const std::size_t columns = attention_mask.shape(1);
    for (std::size_t i = 0; i < attention_mask.size(); ++i) {
        const double value = attention_mask.data()[i];
        if (value == 0.0 || value == 1.0) continue;
        std::ostringstream text;
        text << name << " " << shape_string(attention_mask.shape()) << " holds " << value << " at ["
             << i / columns << ", " << i % columns
             << "]; an attention mask holds only 1 (attend to this key) and 0 (padding: ignore it)";
        throw InputError(text.str());
    }
}

Matrix padding_mask(const Matrix& attention_mask) {
    check_attention_mask(attention_mask);
    Matrix mask = Matrix::from_shape(attention_mask.shape());
    for (std::size_t i = 0; i < attention_mask.size(); ++i) {
        mask.data()[i] = attention_mask.data()[i] == 1.0 ? 0.0 : -std::numeric_limits<double>::infinity();
    }
    return mask;
}

namespace {

// `heads` blocks of (T, S) scores per batch item, back to back: −∞ wherever a key is hidden.
void hide_keys(double* scores, std::size_t B, std::size_t heads, std::size_t T, std::size_t S, bool causal,
               CausalAlignment alignment, const std::optional<Matrix>& attention_mask) {
    const double hidden = -std::numeric_limits<double>::infinity();
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j)
            for (std::size_t t = 0; t < T; ++t)
                for (std::size_t s = 0; s < S; ++s) {
                    const bool future = causal && is_future_key(t, s, T, S, alignment);
                    const bool padding = attention_mask && (*attention_mask)(b, s) == 0.0;
                    if (future || padding) scores[((b * heads + j) * T + t) * S + s] = hidden;
                }
}

}  // namespace

Tensor3 add_masks(Tensor3 scores, bool causal, CausalAlignment alignment, const std::optional<Matrix>& attention_mask) {
    hide_keys(scores.data(), scores.shape(0), 1, scores.shape(1), scores.shape(2), causal, alignment, attention_mask);
    return scores;
}

Tensor4 add_masks(Tensor4 scores, bool causal, CausalAlignment alignment, const std::optional<Matrix>& attention_mask) {
    hide_keys(scores.data(), scores.shape(0), scores.shape(1), scores.shape(2), scores.shape(3), causal, alignment,
              attention_mask);
    return scores;
}

namespace {

// `heads` blocks of (T, S) scores per batch item, back to back, plus the mask's block for each.
// A finite score plus a finite mask value can overflow: to +∞ (one key would take a row's whole
// weight, shared with any other such key) or to −∞ (a key hidden that the exact sum keeps). Only
// a −∞ in a mask may hide a key, so an overflowing sum is an InputError, as every other overflow.
void add_blocks(double* scores, const std::vector<std::size_t>& shape, std::size_t heads, const Tensor3& mask,
                const std::string& function) {
    const std::size_t B = shape[0], T = shape[shape.size() - 2], S = shape.back();
    const bool shared = mask.shape(0) == 1;
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t j = 0; j < heads; ++j) {
            const std::size_t block = b * heads + j;
            const double* added = mask.data() + (shared ? 0 : block) * T * S;
            double* row = scores + block * T * S;
            for (std::size_t i = 0; i < T * S; ++i) {
                const double score = row[i];
                row[i] += added[i];
                if (std::isfinite(row[i]) || !std::isfinite(score) || !std::isfinite(added[i])) continue;
                std::ostringstream text;
                text.precision(17);
                text << function << ": scores" << index_string(block * T * S + i, shape) << " + the additive mask"
                     << index_string((shared ? 0 : block) * T * S + i, {mask.shape().begin(), mask.shape().end()}) << " = "
                     << score << " + " << added[i] << " overflows to " << (row[i] > 0 ? "+inf" : "-inf")
                     << " in float64; only -inf in a mask may hide a key, and finite mask values this large change "
                        "every weight of the row: scale the mask down (PyTorch's convention: 0 keeps a key, -inf hides it)";
                throw InputError(text.str());
            }
        }
}

}  // namespace

Tensor3 add_additive_mask(Tensor3 scores, const Tensor3& additive_mask, const std::string& function) {
    add_blocks(scores.data(), {scores.shape().begin(), scores.shape().end()}, 1, additive_mask, function);
    return scores;
}

Tensor4 add_additive_mask(Tensor4 scores, const Tensor3& additive_mask, const std::string& function) {
    add_blocks(scores.data(), {scores.shape().begin(), scores.shape().end()}, scores.shape(1), additive_mask, function);
    return scores;
}

void check_additive_mask(const std::string& function, const Tensor3& additive_mask, std::size_t rows,
                         const std::string& rows_legend, std::size_t queries, std::size_t keys) {
    const std::size_t first = additive_mask.shape(0);
    if ((first != 1 && first != rows) || additive_mask.shape(1) != queries || additive_mask.shape(2) != keys) {
        throw ShapeError(function + ": the additive mask is " + shape_string(additive_mask.shape()) + "; it must be (1, " +
                         std::to_string(queries) + ", " + std::to_string(keys) + ") or (" + rows_legend + ", T, S) = (" +
                         std::to_string(rows) + ", " + std::to_string(queries) + ", " + std::to_string(keys) + ")");
    }
    for (std::size_t i = 0; i < additive_mask.size(); ++i) {
        const double value = additive_mask.data()[i];
        if (std::isnan(value) || value == std::numeric_limits<double>::infinity()) {
            throw InputError(function + ": the additive mask holds " + (std::isnan(value) ? "nan" : "inf") + " at " +
                             index_string(i, {additive_mask.shape().begin(), additive_mask.shape().end()}) +
                             "; it holds 0 (keep the key), -inf (hide it) or a finite value added to the score");
        }
    }
}

}  // namespace attn
