// src/lib/finite.hpp — private to the library: finding a value that is not a finite number, and
// the error that names it.
//
// Why: the library's policy (docs/architecture.md) is that −∞ enters a computation only through a
// mask, and a row whose keys are all masked gets zero weights. A score of −∞ that came from
// overflowing arithmetic (float64 inputs near 1e308) looks exactly like a masked one, and a NaN
// or +∞ silently poisons every later step; both are refused, naming the tensor and the index.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "finite_values.hpp"  // first_non_finite, throw_non_finite: shared with the fast path

namespace attn::detail {

/// Checks a whole tensor (any xtensor container of double) and throws as throw_non_finite does.
template <class Tensor>
void require_finite(const std::string& function, const std::string& name, const Tensor& tensor, const std::string& why) {
    const std::size_t at = first_non_finite(tensor.data(), tensor.size());
    if (at == tensor.size()) return;
    throw_non_finite(function, name, std::vector<std::size_t>(tensor.shape().begin(), tensor.shape().end()), at,
                     tensor.data()[at], why);
}

/// Checks raw attention scores (…, T, S) before any mask: the first that is NaN or ±∞ is named with
/// its index and the two rows that made it, "scale · Q[0, 1] · K[0, 2]" (`query` and `key` name
/// the tensors those rows come from; their index is the scores' leading axes and t, or s).
void require_finite_scores(const std::string& function, const double* scores, const std::vector<std::size_t>& shape,
                           const std::string& query, const std::string& key);

template <class Tensor>
void require_finite_scores(const std::string& function, const Tensor& scores, const std::string& query,
                           const std::string& key) {
    require_finite_scores(function, scores.data(), std::vector<std::size_t>(scores.shape().begin(), scores.shape().end()),
                          query, key);
}

/// What to tell the user when arithmetic on their inputs overflowed.
inline const char* const overflow_advice =
    "an input holds NaN or ±inf, or the inputs are too large for float64 arithmetic and overflowed (only a mask may "
    "put -inf in the scores); scale them down";

/// Why a backward refuses an upstream gradient that is NaN or ±∞: every gradient it computes would be.
inline const char* const upstream_gradient_advice =
    "the upstream gradient (of the loss with respect to the layer's output) must hold finite numbers";

}  // namespace attn::detail
