// nn.Linear on rows, split over the worker pool (projection.hpp).
#include "projection.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace attn::fast::detail {

namespace {

// y (rows, out) = x (rows, in) · Wᵀ + beta · y, one single-threaded sgemm.
void sgemm_rows(const float* x, std::size_t rows, std::size_t in, const float* weight, std::size_t out, float beta,
                float* y) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(out),
                static_cast<int>(in), 1.0f, x, static_cast<int>(in), weight, static_cast<int>(in), beta, y,
                static_cast<int>(out));
}

// The part-th of `parts` blocks of [0, n), its bounds multiples of 16 (OpenBLAS's blocking).
std::pair<std::size_t, std::size_t> block_of(std::size_t n, std::size_t part, std::size_t parts) {
    const std::size_t begin = part == 0 ? 0 : (n * part / parts) / 16 * 16;
    const std::size_t end = part + 1 == parts ? n : (n * (part + 1) / parts) / 16 * 16;
    return {begin, std::max(begin, end)};
}

}  // namespace

void project(const float* x, std::size_t rows, std::size_t in, const Matrix& weight, const float* bias, float* y,
             WorkerPool& pool) {
    project(x, rows, in, weight.data(), weight.shape(0), bias, y, pool);
}

void project(const float* x, std::size_t rows, std::size_t in, const float* weight, std::size_t out, const float* bias,
             float* y, WorkerPool& pool) {
    // A part per thread, and none smaller than 64 rows: below that the split costs more than it saves.
    const std::size_t parts = std::max<std::size_t>(1, std::min(pool.size(), rows / 64));
    pool.run(parts, [&](std::size_t part, std::size_t) {
        const auto [begin, end] = block_of(rows, part, parts);
        if (end <= begin) return;
        if (bias != nullptr) {
            for (std::size_t r = begin; r < end; ++r) std::memcpy(y + r * out, bias, out * sizeof(float));
        }
        sgemm_rows(x + begin * in, end - begin, in, weight, out, bias != nullptr ? 1.0f : 0.0f, y + begin * out);
    });
}

void project_together(const std::vector<Product>& products, std::size_t rows, WorkerPool& pool) {
    // Blocks of output rows: a multiple of 16 (OpenBLAS's blocking), about one per worker per product.
    const std::size_t parts = pool.size();
    pool.run(products.size() * parts, [&](std::size_t task, std::size_t) {
        const Product& p = products[task / parts];
        const std::size_t part = task % parts, out = p.weight->shape(0), in = p.weight->shape(1);
        const auto [begin, end] = block_of(out, part, parts);
        if (end <= begin) return;
        const float beta = p.bias != nullptr ? 1.0f : 0.0f;
        const float* weight = p.weight->data() + begin * in;
        if (p.bias != nullptr) {
            for (std::size_t r = 0; r < rows; ++r) std::memcpy(p.y + r * out + begin, p.bias + begin, (end - begin) * sizeof(float));
        }
        if (rows == 1) {
            cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(end - begin), static_cast<int>(in), 1.0f, weight,
                        static_cast<int>(in), p.x, 1, beta, p.y + begin, 1);
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), static_cast<int>(end - begin),
                        static_cast<int>(in), 1.0f, p.x, static_cast<int>(in), weight, static_cast<int>(in), beta,
                        p.y + begin, static_cast<int>(out));
        }
    });
}

namespace {

// d_weight rows [begin, end) = dy[:, begin:end]ᵀ x, and those columns' sums into d_bias.
void weight_gradient_rows(const float* x, const float* dy, std::size_t rows, std::size_t in, std::size_t out,
                          std::size_t begin, std::size_t end, float* d_weight, float* d_bias) {
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(end - begin), static_cast<int>(in),
                static_cast<int>(rows), 1.0f, dy + begin, static_cast<int>(out), x, static_cast<int>(in), 0.0f,
                d_weight + begin * in, static_cast<int>(in));
    if (d_bias == nullptr) return;
    std::vector<double> sums(end - begin, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        const float* row = dy + r * out + begin;
        for (std::size_t c = 0; c < end - begin; ++c) sums[c] += row[c];
    }
    for (std::size_t c = 0; c < end - begin; ++c) d_bias[begin + c] = static_cast<float>(sums[c]);
}

}  // namespace

void project_backward(const float* x, const float* dy, std::size_t rows, std::size_t in, const Matrix& weight,
                      float* d_weight, float* d_bias, float* dx, WorkerPool& pool) {
    project_backward(x, dy, rows, in, weight.data(), weight.shape(0), d_weight, d_bias, dx, pool);
}

void project_backward(const float* x, const float* dy, std::size_t rows, std::size_t in, const float* weight,
                      std::size_t out, float* d_weight, float* d_bias, float* dx, WorkerPool& pool) {
    const std::size_t weight_parts = std::max<std::size_t>(1, std::min(pool.size(), out / 64));
    const std::size_t input_parts = dx == nullptr ? 0 : std::max<std::size_t>(1, std::min(pool.size(), rows / 64));
    pool.run(weight_parts + input_parts, [&](std::size_t task, std::size_t) {
        if (task < weight_parts) {
            const auto [begin, end] = block_of(out, task, weight_parts);
            if (end > begin) weight_gradient_rows(x, dy, rows, in, out, begin, end, d_weight, d_bias);
            return;
        }
        // dx rows [begin, end) = dy rows · weight (out, in).
        const auto [begin, end] = block_of(rows, task - weight_parts, input_parts);
        if (end <= begin) return;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(end - begin), static_cast<int>(in),
                    static_cast<int>(out), 1.0f, dy + begin * out, static_cast<int>(out), weight,
                    static_cast<int>(in), 0.0f, dx + begin * in, static_cast<int>(in));
    });
}

}  // namespace attn::fast::detail
