// src/fast/label_smoothing_loss.hpp — private to the fast path: the Annotated Transformer's loss on
// float32 logits and its gradient, as attn/cross_entropy.hpp defines them in double.
//
//   q[n, c] = 1 − ε on the target, ε / (V − 2) elsewhere, 0 on the padding class
//   loss    = Σ_{counted n} Σ_c q (log q − log_softmax(logits)) / counted      (0 · log 0 = 0)
//   ∂loss/∂logits[n] = (softmax(logits[n]) − q[n]) / counted, 0 on a row whose target is padding
//
// Each row's log-sum-exp and the sums are taken in double (the rows are only V wide).
//
// Shapes: logits, grad_logits (rows, V) · targets (rows)
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn::fast::detail {

/// The loss; grad_logits receives its gradient. InputError when a target is outside 0 … V − 1,
/// every target is the padding class, or a logit is not finite.
double label_smoothing_loss(const float* logits, const std::int64_t* targets, std::size_t rows, std::size_t V,
                            std::int64_t padding_index, double label_smoothing, float* grad_logits);

}  // namespace attn::fast::detail
