// src/lib/attention_block.hpp — private to the library: scaled dot-product attention on one
// contiguous block of memory, shared by scaled_dot_product_attention (one block per batch item)
// and the vectorised multi_head_attention (one block per batch item and head).
//
// Why raw pointers: both callers already hold row-major, contiguous (T × d_k), (S × d_k), (S × d_v)
// blocks; working on them in place lets CBLAS do the two matrix products without a copy, and keeps
// the masking and softmax rules in one place.
#pragma once

#include <cstddef>

#include "attn/masks.hpp"

namespace attn::detail {

struct AttentionBlock {
    const double* q = nullptr;  // (T × d_k)
    const double* k = nullptr;  // (S × d_k)
    const double* v = nullptr;  // (S × d_v)
    std::size_t queries = 0, keys = 0, key_width = 0, value_width = 0;  // T, S, d_k, d_v
    double scale = 1.0;
    bool causal = false;                 // hide keys in the query's future
    CausalAlignment causal_alignment = CausalAlignment::top_left;  // with T ≠ S (attn/masks.hpp)
    const double* keep_key = nullptr;    // S values, 1 = attend, 0 = padding (already checked); null: none
};

/// Where attend_block met a value that is not a finite number (none: it did not).
struct NonFiniteAt {
    enum class Tensor { none, scores, output } tensor = Tensor::none;
    std::size_t index = 0;  // flat index inside the block's (T × S) scores or (T × d_v) output
};

/// scores = scale · q kᵀ (T × S); masked = scores + masks; weights = softmax(masked) over S;
/// output = weights · v (T × d_v). `masked_scores` may be null when the caller does not keep them.
/// A raw score or an output value that is NaN or ±∞ stops the block (the library's policy: only a
/// mask may put −∞ in the scores); the caller names the tensor and the index in its error.
NonFiniteAt attend_block(const AttentionBlock& block, double* scores, double* masked_scores, double* weights,
                         double* output);

}  // namespace attn::detail
