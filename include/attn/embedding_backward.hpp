// attn/embedding_backward.hpp — the gradient of the embedding table (lesson 11: training).
//
// Why a scatter-add: the lookup copies row ids[b, t] of the table to position (b, t), so a change
// of weight[v, :] moves every position whose id is v, and only those. The gradient of row v is
// therefore the sum of grad_output over the positions that read it:
//
//   grad_weight[v, :] = Σ_{(b, t) : ids[b, t] = v} grad_output[b, t, :]
//
// A token that appears twice in a batch gets both positions' gradients added; a token that does
// not appear gets a zero row (Adam still moves it while its moments are not zero). The ids
// themselves are integers: they have no gradient.
//
// padding_index: as nn.Embedding(V, D, padding_idx=p), row p gets a zero gradient whatever the
// positions that read it, so that the padding row stays what it was created as (zeros) through
// training. Without it, row p is a row like any other.
//
// Shapes: B batch · T positions · V vocabulary · D model width
//   ids (B, T) · grad_output (B, T, D) → grad_weight (V, D)
//
//   attn::IdTensor ids = {{2, 0, 2}};                                    // (B=1, T=3), id 2 twice
//   attn::Tensor3 dY = {{{1, 0}, {5, 5}, {0, 1}}};                       // (1, 3, D=2)
//   attn::embedding_backward(3, ids, dY);      // {{5, 5}, {0, 0}, {1, 1}}
//   attn::embedding_backward(3, ids, dY, 0);   // {{0, 0}, {0, 0}, {1, 1}}: row 0 is padding
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "attn/embedding.hpp"
#include "attn/tensor.hpp"

namespace attn {

/// ∂loss/∂weight (V, D) of embedding(weight, ids) given grad_output = ∂loss/∂output (B, T, D).
/// Throws ShapeError when vocabulary is 0, ids and grad_output disagree on (B, T) or a size is 0;
/// InputError naming the first id outside 0 … V − 1 (with its index), a padding_index outside it,
/// and the first value of grad_output that is NaN or ±∞.
Matrix embedding_backward(std::size_t vocabulary, const IdTensor& ids, const Tensor3& grad_output,
                          std::optional<std::int64_t> padding_index = std::nullopt);

}  // namespace attn
