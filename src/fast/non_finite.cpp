// Finding and reporting non-finite values (non_finite.hpp).
#include "non_finite.hpp"

#include <algorithm>

#include "finite_values.hpp"  // attn::detail::throw_non_finite: one message for both paths
#include "kernels.hpp"

namespace attn::fast::detail {

void FirstNonFinite::offer(NonFiniteValue found) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (first_ && !(found.order < first_->order)) return;
    first_ = std::move(found);
}

bool FirstNonFinite::found() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_.has_value();
}

void FirstNonFinite::throw_if_found(const std::string& function) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!first_) return;
    attn::detail::throw_non_finite(function, first_->tensor, first_->shape, first_->flat, first_->value, first_->why);
}

std::size_t first_non_finite(const float* data, std::size_t count, WorkerPool& pool) {
    const std::size_t chunk = std::size_t(1) << 16;
    const std::size_t chunks = (count + chunk - 1) / chunk;
    std::vector<std::size_t> first(chunks, count);
    pool.run(chunks, [&](std::size_t c, std::size_t) {
        const std::size_t begin = c * chunk, size = std::min(chunk, count - begin);
        if (count_non_finite(data + begin, size) != 0) first[c] = begin + attn::detail::first_non_finite(data + begin, size);
    });
    for (std::size_t at : first) {
        if (at != count) return at;
    }
    return count;
}

void require_finite(const std::string& function, const std::string& tensor, const std::vector<std::size_t>& shape,
                    const float* data, const std::string& why, WorkerPool& pool) {
    std::size_t count = 1;
    for (std::size_t size : shape) count *= size;
    const std::size_t at = first_non_finite(data, count, pool);
    if (at != count) attn::detail::throw_non_finite(function, tensor, shape, at, data[at], why);
}

}  // namespace attn::fast::detail
