#!/usr/bin/python3
"""Regenerate tests/data/compute/: inputs and PyTorch's outputs for `attn compute` modules.

Each case is a folder tests/data/compute/MODULE-CASE/ with in/<name>.npy (the module's inputs)
and expected/<name>.npy (what PyTorch computes from them). The C++ tests run the library on the
inputs and compare with the expected files, so the suite checks against PyTorch without needing
PyTorch installed. Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_compute_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import pathlib
import shutil

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "compute"


def save_case(name, inputs, outputs):
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    for sub, tensors in (("in", inputs), ("expected", outputs)):
        (folder / sub).mkdir(parents=True)
        for key, tensor in tensors.items():
            np.save(folder / sub / f"{key}.npy", tensor.detach().numpy())


def dot_reference(encoder_outputs, decoder_output):
    """Dot-product attention as PyTorch users write it (lesson 1)."""
    scores = torch.bmm(encoder_outputs, decoder_output.unsqueeze(2)).squeeze(2)
    weights = torch.softmax(scores, dim=1)
    context = torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1)
    return {"scores": scores, "weights": weights, "context": context}


def dot_cases():
    generator = torch.Generator().manual_seed(2024)
    shapes = {
        "batch4": (4, 7, 16, torch.float32, 1.0),
        "b1": (1, 5, 8, torch.float32, 1.0),
        "s1": (3, 1, 4, torch.float32, 1.0),
        "b1-s1": (1, 1, 1, torch.float32, 1.0),
        "float64": (2, 3, 5, torch.float64, 1.0),
        "large-scores": (2, 6, 32, torch.float32, 4.0),  # scores in the hundreds: the softmax must not overflow
    }
    for case, (b, s, h, dtype, scale) in shapes.items():
        encoder_outputs = (torch.randn(b, s, h, generator=generator, dtype=torch.float64) * scale).to(dtype)
        decoder_output = (torch.randn(b, h, generator=generator, dtype=torch.float64) * scale).to(dtype)
        inputs = {"encoder_outputs": encoder_outputs, "decoder_output": decoder_output}
        save_case(f"dot-{case}", inputs, dot_reference(encoder_outputs, decoder_output))


if __name__ == "__main__":
    dot_cases()
    print(f"wrote {sorted(p.name for p in OUT.iterdir())}")
