// attn/embedding.hpp — token ids to vectors: the embedding table's lookup (lesson 8).
//
// Why a function for a lookup: it is the first layer of every Transformer, and the only place
// where a token id meets the model. An id outside the table is the classic bug of a tokenizer and
// a model that do not belong together; it is named here with its position instead of reading
// past the table.
//
// Shapes: B batch · T positions · V vocabulary (rows of the table) · D model width
//   weight (V, D) · ids (B, T) → (B, T, D);  output[b, t, :] = weight[ids[b, t], :]
//
// PyTorch: this is F.embedding(ids, weight). Its forward pass ignores padding_idx: the rows are
// copied whatever their id. nn.Embedding(V, D, padding_idx=p) only fills row p of its weight with
// zeros when it is created and keeps that row's gradient 0 in training, so the padding positions
// come out as zeros because the row *is* zeros, not because the lookup skips them. There is
// therefore no padding argument here: give a table whose padding row is zero (seed 003's
// nn.Embedding(10, 3, padding_idx=0)), and the lookup does the rest.
//
//   attn::Matrix weight = {{0, 0}, {1, 2}, {3, 4}};            // (V=3, D=2), row 0 the padding row
//   attn::IdTensor ids = {{2, 0, 1}};                           // (B=1, T=3)
//   attn::embedding(weight, ids);                               // {{{3, 4}, {0, 0}, {1, 2}}}
//   attn::embedding(weight, attn::IdTensor{{3}});  // InputError: ids[0, 0] = 3 … V = 3 rows (ids 0 … 2)
#pragma once

#include <cstdint>
#include <xtensor/xtensor.hpp>

#include "attn/tensor.hpp"

namespace attn {

/// Token ids, as PyTorch's int64 (torch.long) tensors hold them: (B, T).
using IdTensor = xt::xtensor<std::int64_t, 2>;

/// (B, T, D): row ids[b, t] of weight (V, D) for every position. Throws ShapeError when weight or
/// ids has a size 0, InputError naming the first id outside [0, V) with its index and V.
Tensor3 embedding(const Matrix& weight, const IdTensor& ids);

}  // namespace attn
