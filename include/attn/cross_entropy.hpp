// attn/cross_entropy.hpp — the loss of next-token prediction: cross-entropy over the vocabulary,
// with the Annotated Transformer's label smoothing and padding (lesson 11: training).
//
// Why a KL divergence: the Annotated Transformer's LabelSmoothing compares log_softmax(logits)
// with a target *distribution* q instead of a single class, through nn.KLDivLoss(reduction="sum"),
// and its SimpleLossCompute divides by the number of target tokens that are not padding:
//
//   q[n, c] = 1 − ε              on the target c = targets[n]
//           = ε / (V − 2)         on every other class, when there is a padding class p
//                                 (it takes no share: the 2 is the target and p)
//           = 0                   on the padding class p
//           = ε / (V − 1)         on every other class, without a padding class
//   loss    = Σ_{counted n} Σ_c q[n, c] · (log q[n, c] − log p[n, c]) / counted     (0 · log 0 = 0)
//
// where p = softmax(logits) row by row, and a row whose target is the padding class is not
// counted: its q is all zero and it adds nothing. With ε = 0, q is one-hot and the loss is the
// mean of −log p[n, targets[n]] over the counted rows: F.cross_entropy(logits, targets,
// ignore_index=p). The KL form differs from the cross-entropy −Σ q log p only by Σ q log q, a
// constant of ε and V: the gradients are the same, the value printed is not.
//
// Not PyTorch's own label smoothing: F.cross_entropy(label_smoothing=ε) spreads ε/V over *every*
// class, the target and the ignored index included, and returns a cross-entropy, not a KL.
//
// The gradient: ∂loss/∂logits[n, :] = (p[n, :] − q[n, :]) / counted on a counted row (the softmax's
// and the log's Jacobians collapse because Σ_c q[n, c] = 1), and 0 on a skipped row.
//
// Shapes: N target tokens (every position of every sequence one row) · V vocabulary
//   logits (N, V) · targets (N) → loss; log_probabilities (N, V); target_distribution (N, V)
//
//   attn::Matrix logits = {{0, 0, std::log(2.0)}};         // p = (1/4, 1/4, 1/2)
//   attn::cross_entropy(logits, {2}).loss;                  // −log(1/2) = 0.6931…
//   attn::cross_entropy_backward(attn::cross_entropy(logits, {2}));   // {{0.25, 0.25, −0.5}}
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

struct CrossEntropyOptions {
    /// The class that marks padding (0 in the copy task): rows with this target are skipped and no
    /// row's smoothing goes to it. Must be a class of the vocabulary, 0 … V − 1.
    std::optional<std::int64_t> padding_index;
    /// ε in [0, 1): the probability taken from the target and spread over the other classes.
    double label_smoothing = 0;
};

/// The loss and what its backward needs, every intermediate a lesson can print.
struct CrossEntropyResult {
    double loss;
    Matrix log_probabilities;    // (N, V) log_softmax(logits), every row (skipped ones too)
    Matrix target_distribution;  // (N, V) q: zero on skipped rows
    std::size_t counted;         // rows whose target is not padding: the loss's divisor
    std::vector<bool> row_counted;  // (N) false where the target is the padding class
};

/// The loss above. Throws ShapeError when logits has a size 0 or targets is not N long; InputError
/// naming the first target outside 0 … V − 1 (with its index), a padding_index outside it, ε
/// outside [0, 1) or a vocabulary too small to spread ε over, every target padding (counted = 0:
/// nothing to average), and the first logit that is NaN or ±∞.
CrossEntropyResult cross_entropy(const Matrix& logits, const std::vector<std::int64_t>& targets,
                                 const CrossEntropyOptions& options = {});

/// ∂(grad_loss · loss)/∂logits (N, V): (p − q) · grad_loss / counted on counted rows, 0 on the others.
/// Throws ShapeError when the result's tensors disagree in shape, InputError when grad_loss is not
/// finite or the result counts no row.
Matrix cross_entropy_backward(const CrossEntropyResult& forward, double grad_loss = 1.0);

}  // namespace attn
