#!/usr/bin/python3
"""Regenerate tests/data/positions/: PyTorch's embeddings, sinusoidal positions and RoPE (lesson 8).

Each case is a folder tests/data/positions/KIND-CASE/ with in/<name>.npy, expected/<name>.npy and,
for RoPE, options.txt (layout=..., base=...), the layout of tests/data/compute. The formulas are
written here as the code people copy writes them, independently of the library:

- embedding: nn.Embedding(V, D, padding_idx=0), seed 003's table and ids, and F.embedding;
- positions: the Annotated Transformer's PositionalEncoding (exp and log of 10000, even widths),
  and for an odd width the paper's formula written out column by column (the rule of
  attn/positions.hpp: the last column is a sine);
- rope halves: Hugging Face's LlamaRotaryEmbedding and apply_rotary_pos_emb with rotate_half;
- rope pairs: GPT-J's fixed_pos_embedding, duplicate_interleave and rotate_every_two, checked here
  against Meta's original LLaMA code (adjacent features as complex numbers).

Seeded, in float64: running it twice writes the same files.

    /usr/bin/python3 tools/make_positions_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import math
import pathlib
import shutil

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "positions"


def save_case(name, inputs, outputs, options=None):
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    for sub, tensors in (("in", inputs), ("expected", outputs)):
        if not tensors:
            continue
        (folder / sub).mkdir(parents=True)
        for key, tensor in tensors.items():
            np.save(folder / sub / f"{key}.npy", tensor.detach().numpy())
    if options:
        (folder / "options.txt").write_text("".join(f"{k}={v}\n" for k, v in options.items()))


def embedding_cases():
    torch.manual_seed(3)
    # Seed 003's example: row 0 is the padding row, so positions holding id 0 come out as zeros.
    table = torch.nn.Embedding(10, 3, padding_idx=0).double()
    ids = torch.tensor([[0, 2, 0, 5]], dtype=torch.int64)
    save_case("embedding-seed003", {"weight": table.weight, "ids": ids}, {"output": table(ids)})
    generator = torch.Generator().manual_seed(8)
    weight = torch.randn(7, 5, generator=generator, dtype=torch.float64)
    ids = torch.randint(0, 7, (3, 4), generator=generator, dtype=torch.int64)
    ids[2, 3] = 6  # the last row of the table is reachable
    save_case("embedding-batch3", {"weight": weight, "ids": ids}, {"output": F.embedding(ids, weight)})


def annotated_positional_encoding(max_len, d_model):
    """The Annotated Transformer's table (its PositionalEncoding.__init__), in float64."""
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    position = torch.arange(0, max_len, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def paper_formula(max_len, d_model):
    """PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(...), one column at a time (any d)."""
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    for column in range(d_model):
        two_i = column - column % 2
        angle = torch.arange(max_len, dtype=torch.float64) / 10000.0 ** (two_i / d_model)
        pe[:, column] = torch.sin(angle) if column % 2 == 0 else torch.cos(angle)
    return pe


def positions_cases():
    for T, D in ((4, 4), (6, 6), (50, 16), (128, 64)):
        table = annotated_positional_encoding(T, D)
        assert torch.allclose(table, paper_formula(T, D), rtol=0, atol=1e-12)
        save_case(f"positions-t{T}-d{D}", {}, {"positions": table}, {"T": T, "d_model": D})
    save_case("positions-t7-d5-odd", {}, {"positions": paper_formula(7, 5)}, {"T": 7, "d_model": 5})


def hf_rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def hf_rope(x, positions, base):
    """Hugging Face's LlamaRotaryEmbedding + apply_rotary_pos_emb, for one tensor (B, h, T, d)."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    freqs = torch.outer(positions.double(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + hf_rotate_half(x) * emb.sin()


def gptj_rotate_every_two(x):
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def gptj_duplicate_interleave(m):
    return m.repeat_interleave(2, dim=-1)


def gptj_rope(x, positions, base):
    """GPT-J's fixed_pos_embedding and apply_rotary_pos_emb (B, h, T, d), every feature rotated."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    sinusoid = torch.einsum("i,j->ij", positions.double(), inv_freq)
    sin, cos = gptj_duplicate_interleave(sinusoid.sin()), gptj_duplicate_interleave(sinusoid.cos())
    return x * cos + gptj_rotate_every_two(x) * sin


def meta_llama_rope(x, positions, base):
    """Meta's original LLaMA: adjacent features as one complex number, times e^(i·angle)."""
    d = x.shape[-1]
    freqs = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64)[: d // 2] / d))
    freqs_cis = torch.polar(torch.ones(len(positions), d // 2, dtype=torch.float64), torch.outer(positions.double(), freqs))
    x_complex = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(x_complex * freqs_cis).flatten(-2)


def rope_cases():
    generator = torch.Generator().manual_seed(27)
    shapes = {
        "b2-h3-t5-d8": ((2, 3, 5, 8), [0, 1, 2, 3, 4], 10000.0),
        "shuffled-positions": ((1, 2, 4, 6), [3, 7, 0, 11], 10000.0),
        "d2": ((1, 1, 3, 2), [0, 1, 2], 10000.0),
        "llama3-base": ((1, 2, 3, 16), [0, 100, 4096], 500000.0),
    }
    for case, (shape, positions, base) in shapes.items():
        x = torch.randn(*shape, generator=generator, dtype=torch.float64)
        positions = torch.tensor(positions, dtype=torch.int64)
        pairs = gptj_rope(x, positions, base)
        assert torch.allclose(pairs, meta_llama_rope(x, positions, base), rtol=0, atol=1e-12)
        for layout, output in (("halves", hf_rope(x, positions, base)), ("pairs", pairs)):
            save_case(f"rope-{layout}-{case}", {"x": x, "positions": positions}, {"output": output},
                      {"layout": layout, "base": repr(base)})


if __name__ == "__main__":
    embedding_cases()
    positions_cases()
    rope_cases()
