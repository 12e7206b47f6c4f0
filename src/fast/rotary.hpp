// src/fast/rotary.hpp — private to the fast path: RoPE (attn/rotary.hpp) on the projected Q or K
// in float32, in place, every head of every row.
//
// Why tables: a head's pair i at position p turns by p · θ_i, the same angle for every head and
// batch item, so the cos and sin of each (position, pair) are computed once per call — in double,
// where p · θ_i keeps its digits for p in the tens of thousands, then rounded to float32 — and the
// rotation itself is two multiply-adds per feature.
//
// Shapes: x (rows = B·T, D), head j in columns j·d_k … (j+1)·d_k − 1 · positions (T) ·
//         cos, sin (T, d_k/2)
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attn/fast/multi_head_attention.hpp"
#include "thread_pool.hpp"

namespace attn::fast::detail {

/// cos and sin of positions[t] · θ_i, (T, d_k/2) each, row-major.
struct RotaryTable {
    std::size_t positions = 0, pairs = 0;
    std::vector<float> cos, sin;
};

/// The table for `positions` (empty: 0 … count − 1). Assumes check_rotary_options passed.
RotaryTable rotary_table(const std::vector<std::int64_t>& positions, std::size_t count, std::size_t d_k, double base,
                         WorkerPool& pool);

/// InputError naming `function` for an odd or 0 d_k, a base that is not a finite number above 0 or
/// a negative position; ShapeError when a list of positions is given and is not (T) or (S).
void check_rotary_options(const std::string& function, const RotaryOptions& rope, std::size_t T, std::size_t S,
                          std::size_t d_k);

/// Turns each head of x (rows = batch · table.positions, D) in place by the table, pairs chosen by
/// `layout`: row r uses the table's row r % table.positions.
void rotate_heads(float* x, std::size_t rows, std::size_t D, std::size_t heads, const RotaryTable& table,
                  RopeLayout layout, WorkerPool& pool);

}  // namespace attn::fast::detail
