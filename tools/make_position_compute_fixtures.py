#!/usr/bin/python3
"""Regenerate lesson 8's cases in tests/data/compute/: positions-*, rope-*, embedding-*.

Each case is a folder tests/data/compute/MODULE-CASE/ with in/<name>.npy and expected/<name>.npy,
as tools/make_compute_fixtures.py writes them. The expected values come from PyTorch written
independently of attn: the Annotated Transformer's PositionalEncoding, Hugging Face's rotate_half
and GPT-J's rotate_every_two, and F.embedding. Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_position_compute_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import math

import torch
import torch.nn.functional as F

from make_compute_fixtures import save_case  # the one writer of a case folder (in/, expected/)


def annotated_positional_encoding(T, d_model, dtype):
    """The Annotated Transformer's PositionalEncoding table (its buffer pe), in float64 first."""
    pe = torch.zeros(T, d_model, dtype=torch.float64)
    position = torch.arange(0, T, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.to(dtype)


def positions_cases(generator):
    for case, (b, t, d, dtype) in {"batch2": (2, 5, 8, torch.float32), "float64": (3, 7, 6, torch.float64),
                                   "b1-t1": (1, 1, 4, torch.float32)}.items():
        x = torch.randn(b, t, d, generator=generator, dtype=torch.float64).to(dtype)
        pe = annotated_positional_encoding(t, d, torch.float64)
        save_case(f"positions-{case}", {"x": x}, {"positions": pe.to(dtype), "output": (x.double() + pe).to(dtype)})


def rotate_half(x):
    """Hugging Face's (LLaMA in transformers)."""
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    """GPT-J's."""
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def rope_reference(x, positions, layout, base):
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    freqs = positions.double()[:, None] * inv_freq[None, :]  # (T, d/2)
    if layout == "halves":
        emb = torch.cat((freqs, freqs), dim=-1)
        return x.double() * emb.cos() + rotate_half(x.double()) * emb.sin()
    emb = freqs.repeat_interleave(2, dim=-1)
    return x.double() * emb.cos() + rotate_every_two(x.double()) * emb.sin()


def rope_cases(generator):
    cases = {
        "halves": (2, 2, 5, 3, 8, torch.float32, "halves", 10000.0, False),
        "pairs": (2, 2, 5, 3, 8, torch.float32, "pairs", 10000.0, False),
        "float64-base": (1, 3, 4, 6, 6, torch.float64, "halves", 500000.0, False),
        "positions": (2, 1, 3, 7, 4, torch.float32, "pairs", 10000.0, True),
    }
    for case, (b, h, t, s, d, dtype, layout, base, explicit) in cases.items():
        q = torch.randn(b, h, t, d, generator=generator, dtype=torch.float64).to(dtype)
        k = torch.randn(b, h, s, d, generator=generator, dtype=torch.float64).to(dtype)
        # A KV cache: the new queries sit after the cached keys.
        positions_q = torch.arange(s - t, s) if explicit else torch.arange(t)
        positions_k = torch.arange(s)
        inputs = {"q": q, "k": k}
        if explicit:
            inputs.update({"positions_q": positions_q, "positions_k": positions_k})
        outputs = {"q": rope_reference(q, positions_q, layout, base).to(dtype),
                   "k": rope_reference(k, positions_k, layout, base).to(dtype)}
        save_case(f"rope-{case}", inputs, outputs)


def embedding_cases(generator):
    cases = {"scaled": (2, 4, 10, 8, torch.float32, math.sqrt(8.0)), "float64": (3, 5, 7, 3, torch.float64, 1.0)}
    for case, (b, t, v, d, dtype, scale) in cases.items():
        table = torch.nn.Embedding(v, d, padding_idx=0, dtype=torch.float64)
        with torch.no_grad():
            table.weight.copy_(torch.randn(v, d, generator=generator, dtype=torch.float64))
            table.weight[0].zero_()
        weight = table.weight.detach().to(dtype)
        ids = torch.randint(0, v, (b, t), generator=generator)
        ids[0, 0] = 0  # a padding position: its row is zeros
        output = F.embedding(ids, weight.double()) * scale
        save_case(f"embedding-{case}", {"ids": ids, "weight": weight}, {"output": output.to(dtype)})


def main():
    generator = torch.Generator().manual_seed(8008)
    positions_cases(generator)
    rope_cases(generator)
    embedding_cases(generator)


if __name__ == "__main__":
    main()
