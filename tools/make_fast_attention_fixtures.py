#!/usr/bin/python3
"""Regenerate tests/data/fast_attention/: inputs, parameters and PyTorch's outputs for the
float32 fast path (include/attn/fast_attention.hpp).

Each case is a folder tests/data/fast_attention/CASE/ with
    case.txt        one `key = value` per line: module (mha | encoder), heads, causal,
                    and for the encoder norm_first, activation, layer_norm_eps
    in/<name>.npy   float32 inputs and parameters, named as in FastAttentionParameters /
                    FastEncoderLayerParameters; mask.npy is (B, S) with 1 = attend, 0 = padding
    expected/       output.npy (B, T, D), and for mha weights.npy (B, h, T, S)

References: torch.nn.MultiheadAttention(batch_first=True) with need_weights=True,
average_attn_weights=False; seed 000's module (q, k, v projections, no output projection) for
the `no-wo` case; torch.nn.TransformerEncoderLayer(dropout=0.0, batch_first=True) in train mode,
which takes PyTorch's ordinary (not the fused eval) path: with dropout 0 the numbers are those of
eval mode without its padding shortcuts. No case has a query whose keys are all masked (PyTorch
gives NaN there; the library gives zeros: tested separately). Seeded: running it twice writes
the same files.

    /usr/bin/python3 tools/make_fast_attention_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import math
import pathlib
import shutil

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "fast_attention"


def save_case(name, meta, inputs, outputs):
    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    for sub, tensors in (("in", inputs), ("expected", outputs)):
        (folder / sub).mkdir(parents=True)
        for key, tensor in tensors.items():
            np.save(folder / sub / f"{key}.npy", tensor.detach().to(torch.float32).numpy())
    (folder / "case.txt").write_text("".join(f"{k} = {v}\n" for k, v in meta.items()))


def randomize(module, generator):
    """Every parameter drawn afresh (biases and LayerNorm weights too: defaults of 0 and 1 hide bugs)."""
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * (1.0 / math.sqrt(p.shape[-1])))


def causal_bool(T, S):
    return torch.triu(torch.ones(T, S, dtype=torch.bool), diagonal=1)  # True = hidden


def padding_mask(B, S, lengths):
    """1 = attend, 0 = padding, float32: the convention of seed 000 and of the library."""
    mask = torch.zeros(B, S)
    for b, n in enumerate(lengths):
        mask[b, :n] = 1.0
    return mask


def mha_parameters(mha, D):
    w, b = mha.in_proj_weight, mha.in_proj_bias
    return {"w_q": w[:D], "w_k": w[D:2 * D], "w_v": w[2 * D:], "b_q": b[:D], "b_k": b[D:2 * D], "b_v": b[2 * D:],
            "w_o": mha.out_proj.weight, "b_o": mha.out_proj.bias}


def mha_case(name, generator, B, T, S, D, h, cross=False, lengths=None, causal=False, scale=1.0):
    mha = torch.nn.MultiheadAttention(D, h, batch_first=True)
    randomize(mha, generator)
    query = torch.randn(B, T, D, generator=generator) * scale
    if cross:
        key = torch.randn(B, S, D, generator=generator) * scale
        value = torch.randn(B, S, D, generator=generator) * scale
    else:
        assert T == S
        key = value = query
    inputs = {"query": query, "key": key, "value": value, **mha_parameters(mha, D)}
    kwargs = {}
    if lengths is not None:
        mask = padding_mask(B, S, lengths)
        inputs["mask"] = mask
        kwargs["key_padding_mask"] = mask == 0  # PyTorch: True = ignore
    if causal:
        kwargs["attn_mask"] = causal_bool(T, S)
    with torch.no_grad():
        output, weights = mha(query, key, value, need_weights=True, average_attn_weights=False, **kwargs)
    assert torch.isfinite(weights).all(), name
    save_case(name, {"module": "mha", "heads": h, "causal": int(causal)}, inputs,
              {"output": output, "weights": weights})


def seed000_case(name, generator, B, T, D, h, lengths):
    """Seed 000's MultiHeadedAttention: nn.Linear q, k, v, mask 1 = attend, no output projection."""
    linears = [torch.nn.Linear(D, D) for _ in range(3)]
    for linear in linears:
        randomize(linear, generator)
    x = torch.rand(B, T, D, generator=generator)
    mask = padding_mask(B, T, lengths)
    d_k = D // h

    def heads(t):
        return t.view(B, T, h, d_k).permute(0, 2, 1, 3)

    with torch.no_grad():
        q, k, v = (heads(linear(x)) for linear in linears)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d_k)
        scores = scores.masked_fill(mask.unsqueeze(1).unsqueeze(1) == 0, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        context = torch.matmul(weights, v).permute(0, 2, 1, 3).contiguous().view(B, T, D)
    inputs = {"query": x, "key": x, "value": x, "mask": mask}
    for letter, linear in zip("qkv", linears):
        inputs[f"w_{letter}"] = linear.weight
        inputs[f"b_{letter}"] = linear.bias
    save_case(name, {"module": "mha", "heads": h, "causal": 0}, inputs, {"output": context, "weights": weights})


def encoder_case(name, generator, B, T, D, h, F, norm_first, activation, lengths=None, causal=False, eps=1e-5):
    layer = torch.nn.TransformerEncoderLayer(D, h, F, dropout=0.0, activation=activation, layer_norm_eps=eps,
                                             batch_first=True, norm_first=norm_first)
    randomize(layer, generator)
    layer.train()  # the ordinary path; dropout 0 makes it deterministic
    x = torch.randn(B, T, D, generator=generator)
    inputs = {"x": x, **mha_parameters(layer.self_attn, D),
              "norm1_weight": layer.norm1.weight, "norm1_bias": layer.norm1.bias,
              "norm2_weight": layer.norm2.weight, "norm2_bias": layer.norm2.bias,
              "linear1_weight": layer.linear1.weight, "linear1_bias": layer.linear1.bias,
              "linear2_weight": layer.linear2.weight, "linear2_bias": layer.linear2.bias}
    kwargs = {}
    if lengths is not None:
        mask = padding_mask(B, T, lengths)
        inputs["mask"] = mask
        kwargs["src_key_padding_mask"] = mask == 0
    if causal:
        kwargs["src_mask"] = causal_bool(T, T)
    with torch.no_grad():
        output = layer(x, **kwargs)
    assert torch.isfinite(output).all(), name
    meta = {"module": "encoder", "heads": h, "causal": int(causal), "norm_first": int(norm_first),
            "activation": activation, "layer_norm_eps": eps}
    save_case(name, meta, inputs, {"output": output})


def main():
    g = torch.Generator().manual_seed(2025)
    mha_case("mha-self", g, B=2, T=5, S=5, D=8, h=2)
    mha_case("mha-cross", g, B=2, T=3, S=6, D=12, h=3, cross=True)
    mha_case("mha-padding", g, B=3, T=5, S=5, D=8, h=2, lengths=[5, 3, 1])
    mha_case("mha-causal", g, B=2, T=6, S=6, D=8, h=4, causal=True)
    mha_case("mha-causal-padding", g, B=2, T=5, S=5, D=8, h=2, lengths=[5, 2], causal=True)
    mha_case("mha-cross-causal", g, B=2, T=4, S=7, D=8, h=2, cross=True, causal=True)
    mha_case("mha-b1", g, B=1, T=4, S=4, D=6, h=3)
    mha_case("mha-t1", g, B=2, T=1, S=5, D=8, h=2, cross=True, lengths=[5, 2])
    mha_case("mha-large-scores", g, B=2, T=6, S=6, D=16, h=2, scale=8.0)  # scores in the hundreds
    mha_case("mha-wide", g, B=2, T=33, S=33, D=64, h=4, lengths=[33, 20])  # rows longer than a vector
    seed000_case("mha-no-wo", g, B=2, T=5, D=12, h=3, lengths=[5, 4])
    encoder_case("encoder-post-relu", g, B=2, T=5, D=8, h=2, F=16, norm_first=False, activation="relu")
    encoder_case("encoder-pre-gelu", g, B=2, T=5, D=8, h=2, F=16, norm_first=True, activation="gelu")
    encoder_case("encoder-post-gelu-padding", g, B=3, T=6, D=12, h=3, F=20, norm_first=False, activation="gelu",
                 lengths=[6, 4, 1])
    encoder_case("encoder-pre-relu-causal", g, B=2, T=6, D=8, h=4, F=12, norm_first=True, activation="relu",
                 causal=True)
    encoder_case("encoder-b1-t1", g, B=1, T=1, D=8, h=2, F=16, norm_first=False, activation="relu")
    encoder_case("encoder-wide", g, B=2, T=17, D=64, h=4, F=96, norm_first=False, activation="gelu", eps=1e-6)
    print(f"wrote {sorted(p.name for p in OUT.iterdir())}")


if __name__ == "__main__":
    main()
