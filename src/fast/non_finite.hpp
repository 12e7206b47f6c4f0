// src/fast/non_finite.hpp — private to the fast path: finding the first value that is NaN or ±∞
// and reporting it as the lesson path does.
//
// Why: the library's policy (docs/architecture.md) is that −∞ enters the scores only through a
// mask; a NaN or ±∞ anywhere else — a NaN input, float32 arithmetic that overflowed — is an
// InputError naming the tensor and the index. Workers find such values in parallel, in any order;
// the error must still name the value the lesson path would name first, so each finding carries
// its place in the lesson path's order and the first in that order wins.
//
//   FirstNonFinite bad;
//   bad.offer({{3, b, head, 0, t, s}, "scores", {B, h, T, S}, flat, value, "why"});   // any thread
//   bad.throw_if_found("fast::multi_head_attention");   // "…: scores[0, 1, 2, 3] is inf, not a finite number: why"
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "thread_pool.hpp"

namespace attn::fast::detail {

struct NonFiniteValue {
    std::vector<std::size_t> order;  // compared lexicographically: smaller is reported first
    std::string tensor;              // the lesson path's name: q, scores, context_heads, output, …
    std::vector<std::size_t> shape;  // that tensor's shape
    std::size_t flat = 0;            // the row-major index in that shape
    float value = 0.0f;
    std::string why;                 // what the value is computed from, and what to do
};

class FirstNonFinite {
public:
    /// Keeps `found` when it comes before every value offered so far. Safe from any thread.
    void offer(NonFiniteValue found);
    bool found() const;
    /// Throws InputError "function: tensor[i, j, …] is nan, not a finite number: why" for the
    /// first value offered, if any.
    void throw_if_found(const std::string& function) const;

private:
    mutable std::mutex mutex_;
    std::optional<NonFiniteValue> first_;
};

/// The index of the first of data[0, count) that is NaN or ±∞, or `count`; split over the pool.
std::size_t first_non_finite(const float* data, std::size_t count, WorkerPool& pool);

/// Throws InputError naming tensor[index] when data (of `shape`) holds NaN or ±∞.
void require_finite(const std::string& function, const std::string& tensor, const std::vector<std::size_t>& shape,
                    const float* data, const std::string& why, WorkerPool& pool);

/// What to tell the user when float32 arithmetic on their inputs overflowed.
inline const char* const float32_overflow_advice =
    "an input holds NaN or ±inf, or the inputs are too large for float32 arithmetic and overflowed (only a mask may "
    "put -inf in the scores); scale them down";

}  // namespace attn::fast::detail
