// nn.Linear on rows, split over the worker pool (projection.hpp).
#include "projection.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstring>

namespace attn::fast::detail {

namespace {

// y (rows, out) = x (rows, in) · Wᵀ + beta · y, one single-threaded sgemm.
void sgemm_rows(const float* x, std::size_t rows, std::size_t in, const Matrix& weight, float beta, float* y) {
    const std::size_t out = weight.shape(0);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(out),
                static_cast<int>(in), 1.0f, x, static_cast<int>(in), weight.data(), static_cast<int>(in), beta, y,
                static_cast<int>(out));
}

}  // namespace

void project(const float* x, std::size_t rows, std::size_t in, const Matrix& weight, const float* bias, float* y,
             WorkerPool& pool) {
    const std::size_t out = weight.shape(0);
    // A part per thread, and none smaller than 64 rows: below that the split costs more than it saves.
    const std::size_t parts = std::max<std::size_t>(1, std::min(pool.size(), rows / 64));
    pool.run(parts, [&](std::size_t part, std::size_t) {
        const std::size_t begin = part == 0 ? 0 : (rows * part / parts) / 16 * 16;
        const std::size_t end = part + 1 == parts ? rows : (rows * (part + 1) / parts) / 16 * 16;
        if (end <= begin) return;
        if (bias != nullptr) {
            for (std::size_t r = begin; r < end; ++r) std::memcpy(y + r * out, bias, out * sizeof(float));
        }
        sgemm_rows(x + begin * in, end - begin, in, weight, bias != nullptr ? 1.0f : 0.0f, y + begin * out);
    });
}

}  // namespace attn::fast::detail
