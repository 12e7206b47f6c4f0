// Adam over a flat float32 buffer (adam_update.hpp).
#include "adam_update.hpp"

#include <algorithm>
#include <cmath>

namespace attn::fast::detail {

void adam_update(float* parameters, const float* gradients, float* first_moment, float* second_moment,
                 std::size_t count, const AdamScalars& s, WorkerPool& pool) {
    const double t = double(s.step);
    const float step_size = static_cast<float>(s.learning_rate / (1.0 - std::pow(s.beta1, t)));
    const float correction2 = static_cast<float>(std::sqrt(1.0 - std::pow(s.beta2, t)));
    const float beta1 = static_cast<float>(s.beta1), beta2 = static_cast<float>(s.beta2);
    const float keep1 = static_cast<float>(1.0 - s.beta1), keep2 = static_cast<float>(1.0 - s.beta2);
    const float eps = static_cast<float>(s.eps);
    // Blocks of 64 Ki values: enough of them for the workers to balance, few enough to cost nothing.
    constexpr std::size_t block = 1 << 16;
    pool.run((count + block - 1) / block, [&](std::size_t index, std::size_t) {
        const std::size_t begin = index * block, end = std::min(count, begin + block);
        // Four distinct buffers, said so (with the scalars in locals) so that the loop is vectorised.
        float* __restrict theta = parameters + begin;
        const float* __restrict grad = gradients + begin;
        float* __restrict first = first_moment + begin;
        float* __restrict second = second_moment + begin;
        const float b1 = beta1, b2 = beta2, k1 = keep1, k2 = keep2, size = step_size, c2 = correction2, e = eps;
#pragma omp simd
        for (std::size_t i = 0; i < end - begin; ++i) {
            const float g = grad[i];
            const float m = first[i] * b1 + g * k1;
            const float v = second[i] * b2 + g * g * k2;
            first[i] = m;
            second[i] = v;
            theta[i] -= size * m / (std::sqrt(v) / c2 + e);
        }
    });
}

}  // namespace attn::fast::detail
