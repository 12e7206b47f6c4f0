"""Seeded uniform tensors that a lesson's C++ program draws identically (src/tutor/lesson/seeded_uniform.hpp)."""
import numpy as np
import torch


def seeded_uniform(generator, shape, bound, center=0.0):
    """center + bound · (2u − 1), u = (r + 0.5) / 2³² for each raw 32-bit draw r of the generator, in
    row-major order. numpy's RandomState(seed).randint(0, 2**32, dtype=uint32) gives the raw outputs
    of std::mt19937(seed), which the lessons' programs use: the same numbers, bit for bit."""
    raw = generator.randint(0, 2 ** 32, size=int(np.prod(shape)), dtype=np.uint32).astype(np.float64)
    unit = (raw + 0.5) / 2.0 ** 32
    return torch.from_numpy(center + bound * (2.0 * unit - 1.0)).reshape(shape)
