// tutor/views/heatmap.hpp — attention weights as a shaded grid in the terminal.
//
// Why: a row of weights is easier to read as a picture than as numbers: which keys does each
// query look at? Each cell shows its value and is shaded by it — a 256-colour grey background on
// a terminal, or a block character (" ░▒▓█") when colour is off, so the picture survives
// NO_COLOR, pipes and printouts. Each grid is shaded on its own values — half by the value's place
// between the grid's min and max, half by its rank among them — so that close values of one grid
// still look different, and a legend under it shows values of the grid with their shades. On a
// light background the ramp is reversed: the largest value is the darkest, as on paper.
//
//   Matrix weights = {{0.0009, 0.9991}, {0.5, 0.5}};
//   std::cout << render_heatmap(terminal, weights, {"b0", "b1"}, {"s0", "s1"});
//
//          s0      s1
//   b0   0.0009 █0.9991
//   b1  ▒0.5000 ▒0.5000
//   min  0.0009 ▒0.5000 █0.9991 max
#pragma once

#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "tutor/terminal/terminal.hpp"

namespace attn::tutor {

/// One grid and its legend: rows are queries (or batch items), columns are keys. Labels default to 0, 1, 2, …
/// and must otherwise have one entry per row / column (InputError naming both counts). When long
/// labels would make the grid wider than terminal.width, columns keep the width of their numbers
/// and labels are shortened with "…" (row labels to 20 columns).
std::string render_heatmap(const Terminal& terminal, const Matrix& values,
                           const std::vector<std::string>& row_labels = {},
                           const std::vector<std::string>& column_labels = {});

/// Every grid of a tensor of rank 1 to 4: the last two axes are the grid, the leading ones
/// (batch, head) are enumerated with a caption such as "batch 1 · head 0". A rank-1 tensor is
/// one row. Each grid has its own scale and legend.
std::string render_heatmaps(const Terminal& terminal, const DynamicTensor& values,
                            const std::vector<std::string>& row_labels = {},
                            const std::vector<std::string>& column_labels = {},
                            const std::vector<std::string>& axis_names = {});

/// The same grids one by one, each with its caption and legend (what a screen keeps together).
std::vector<std::string> render_heatmap_grids(const Terminal& terminal, const DynamicTensor& values,
                                              const std::vector<std::string>& row_labels = {},
                                              const std::vector<std::string>& column_labels = {},
                                              const std::vector<std::string>& axis_names = {});

/// `label` cut to at most `width` columns, ending in "…" when it was longer. A grid wider than
/// the terminal shortens its labels this way, so that a long token does not widen every column.
std::string shorten_label(const std::string& label, std::size_t width);

}  // namespace attn::tutor
