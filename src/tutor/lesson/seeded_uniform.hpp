// tutor/lesson/seeded_uniform.hpp — the seeded random tensors of the lessons' full-size examples.
//
// Why: a layer at the paper's size has millions of parameters that no document can list. The
// document gives a seed and a recipe instead, and the lesson's program and its PyTorch reference
// (tools/reference/seeded.py) draw the same doubles from it, bit for bit: each raw 32-bit draw r
// of std::mt19937(seed) (numpy's RandomState(seed).randint(0, 2**32, dtype=uint32)) becomes
// u = (r + 0.5) / 2³², then center + bound · (2u − 1), one tensor after the other, row-major.
#pragma once

#include <random>

namespace attn::tutor {

template <class Tensor>
Tensor seeded_uniform(std::mt19937& generator, const typename Tensor::shape_type& shape, double bound,
                      double center = 0.0) {
    Tensor tensor = Tensor::from_shape(shape);
    for (double& value : tensor) {
        const double unit = (double(generator()) + 0.5) / 4294967296.0;
        value = center + bound * (2.0 * unit - 1.0);
    }
    return tensor;
}

}  // namespace attn::tutor
