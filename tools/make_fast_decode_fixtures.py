#!/usr/bin/python3
"""Regenerate tests/data/fast_decode/: the PyTorch cases attn::fast::IncrementalDecoder
(include/attn/fast/decoder.hpp) is tested on (tests/test_fast_decode.cpp).

What a generating loop must reproduce: at step t the decoder sees tokens 0 … t, so the expected
output of step t is the last position of nn.TransformerDecoder run again on the whole prefix
tgt[:, :t+1] with tgt_mask = generate_square_subsequent_mask(t + 1) — literally re-run per step,
as a user of the module would. Grouped-query attention (kv_heads < heads) is not in PyTorch 1.13's
modules, so those cases use a decoder layer written here by hand with F.linear and
repeat_interleave (query heads j·(h/g) … (j+1)·(h/g) − 1 share K/V head j, in self- and
cross-attention alike); the script first checks that this hand layer with kv_heads = heads
equals nn.TransformerDecoderLayer, so both references stand on PyTorch's module.

Computed in float64 from float32 values (the parameters and inputs are rounded to float32 first),
so the expected outputs are exact to far below float32's precision. Format, as
tests/data/fast_attention:

    CASE/in/memory.npy (B, S, D), CASE/in/tokens.npy (B, T, D)
    CASE/in/layers.I.self_attn.w_q.npy … (w_q, w_k, w_v, b_q, b_k, b_v, w_o, b_o; also cross_attn),
        layers.I.linear1_weight, linear1_bias, linear2_weight, linear2_bias, norm1_weight … norm3_bias
    CASE/in/norm.weight.npy, norm.bias.npy when the stack has a final norm
    CASE/expected/output.npy (B, T, D): row t is step t's output
    CASE/options.txt: heads, kv_heads, layers, norm_first, activation, final_norm

Seeded: running it twice writes the same files.

    /usr/bin/python3 tools/make_fast_decode_fixtures.py

Needs Debian's python3-torch (PyTorch 1.13) and python3-numpy.
"""
import math
import pathlib
import shutil

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "fast_decode"


def float32_values(generator, *shape, scale=1.0):
    """Uniform in [-scale, scale], rounded to float32, held in float64."""
    values = (torch.rand(*shape, generator=generator, dtype=torch.float64) * 2 - 1) * scale
    return values.to(torch.float32).to(torch.float64)


def layer_parameters(generator, d, kv_width, f):
    p = {}
    for block in ("self_attn", "cross_attn"):
        p[f"{block}.w_q"] = float32_values(generator, d, d, scale=1 / math.sqrt(d))
        p[f"{block}.w_k"] = float32_values(generator, kv_width, d, scale=1 / math.sqrt(d))
        p[f"{block}.w_v"] = float32_values(generator, kv_width, d, scale=1 / math.sqrt(d))
        p[f"{block}.b_q"] = float32_values(generator, d, scale=0.3)
        p[f"{block}.b_k"] = float32_values(generator, kv_width, scale=0.3)
        p[f"{block}.b_v"] = float32_values(generator, kv_width, scale=0.3)
        p[f"{block}.w_o"] = float32_values(generator, d, d, scale=1 / math.sqrt(d))
        p[f"{block}.b_o"] = float32_values(generator, d, scale=0.3)
    p["linear1_weight"] = float32_values(generator, f, d, scale=1 / math.sqrt(d))
    p["linear1_bias"] = float32_values(generator, f, scale=0.3)
    p["linear2_weight"] = float32_values(generator, d, f, scale=1 / math.sqrt(f))
    p["linear2_bias"] = float32_values(generator, d, scale=0.3)
    for n in (1, 2, 3):
        p[f"norm{n}_weight"] = 1 + float32_values(generator, d, scale=0.2)
        p[f"norm{n}_bias"] = float32_values(generator, d, scale=0.2)
    return p


def attention(x, source, p, block, heads, kv_heads, causal):
    """Multi-head attention with K/V heads shared by repeat_interleave; x (B, T, D), source (B, S, D)."""
    b, t, d = x.shape
    s, d_k = source.shape[1], d // heads
    q = F.linear(x, p[f"{block}.w_q"], p[f"{block}.b_q"]).view(b, t, heads, d_k).transpose(1, 2)
    k = F.linear(source, p[f"{block}.w_k"], p[f"{block}.b_k"]).view(b, s, kv_heads, d_k).transpose(1, 2)
    v = F.linear(source, p[f"{block}.w_v"], p[f"{block}.b_v"]).view(b, s, kv_heads, d_k).transpose(1, 2)
    k = k.repeat_interleave(heads // kv_heads, dim=1)
    v = v.repeat_interleave(heads // kv_heads, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if causal:
        scores = scores + torch.triu(torch.full((t, s), float("-inf"), dtype=x.dtype), 1)
    context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
    return F.linear(context, p[f"{block}.w_o"], p[f"{block}.b_o"])


def hand_decoder_layer(x, memory, p, heads, kv_heads, norm_first, activation, eps=1e-5):
    """nn.TransformerDecoderLayer's arithmetic with grouped-query attention, causal self-attention."""
    d = x.shape[-1]
    norm = lambda y, n: F.layer_norm(y, (d,), p[f"norm{n}_weight"], p[f"norm{n}_bias"], eps)
    act = F.relu if activation == "relu" else F.gelu
    ff = lambda y: F.linear(act(F.linear(y, p["linear1_weight"], p["linear1_bias"])), p["linear2_weight"], p["linear2_bias"])
    sa = lambda y: attention(y, y, p, "self_attn", heads, kv_heads, True)
    ca = lambda y: attention(y, memory, p, "cross_attn", heads, kv_heads, False)
    if norm_first:
        x = x + sa(norm(x, 1))
        x = x + ca(norm(x, 2))
        return x + ff(norm(x, 3))
    x = norm(x + sa(x), 1)
    x = norm(x + ca(x), 2)
    return norm(x + ff(x), 3)


def torch_layer(p, d, heads, f, norm_first, activation):
    """nn.TransformerDecoderLayer holding the parameters p (kv_heads = heads)."""
    layer = torch.nn.TransformerDecoderLayer(d, heads, f, dropout=0.0, activation=activation, batch_first=True,
                                             norm_first=norm_first, dtype=torch.float64)
    with torch.no_grad():
        for block, module in (("self_attn", layer.self_attn), ("cross_attn", layer.multihead_attn)):
            module.in_proj_weight.copy_(torch.cat([p[f"{block}.w_{n}"] for n in "qkv"]))
            module.in_proj_bias.copy_(torch.cat([p[f"{block}.b_{n}"] for n in "qkv"]))
            module.out_proj.weight.copy_(p[f"{block}.w_o"])
            module.out_proj.bias.copy_(p[f"{block}.b_o"])
        for name in ("linear1", "linear2"):
            getattr(layer, name).weight.copy_(p[f"{name}_weight"])
            getattr(layer, name).bias.copy_(p[f"{name}_bias"])
        for n in (1, 2, 3):
            getattr(layer, f"norm{n}").weight.copy_(p[f"norm{n}_weight"])
            getattr(layer, f"norm{n}").bias.copy_(p[f"norm{n}_bias"])
    return layer.eval()


def step_outputs(run_prefix, tokens):
    """Row t: the last position of run_prefix(tokens[:, :t+1]), the whole prefix re-run per step."""
    return torch.stack([run_prefix(tokens[:, : t + 1])[:, t] for t in range(tokens.shape[1])], dim=1)


def make_case(name, generator, b, s, t, d, heads, kv_heads, f, layers, norm_first, activation, final_norm):
    memory = float32_values(generator, b, s, d)
    tokens = float32_values(generator, b, t, d)
    params = [layer_parameters(generator, d, kv_heads * (d // heads), f) for _ in range(layers)]
    norm = (1 + float32_values(generator, d, scale=0.2), float32_values(generator, d, scale=0.2)) if final_norm else None
    with torch.no_grad():
        if kv_heads == heads:
            stack = [torch_layer(p, d, heads, f, norm_first, activation) for p in params]
            decoder = torch.nn.TransformerDecoder(stack[0], layers, norm=None).eval()
            decoder.layers = torch.nn.ModuleList(stack)
            if norm is not None:
                decoder.norm = torch.nn.LayerNorm(d, dtype=torch.float64)
                decoder.norm.weight.copy_(norm[0])
                decoder.norm.bias.copy_(norm[1])

            def run_prefix(prefix):
                mask = torch.nn.Transformer.generate_square_subsequent_mask(prefix.shape[1]).to(torch.float64)
                return decoder(prefix, memory, tgt_mask=mask)
        else:
            def run_prefix(prefix):
                x = prefix
                for p in params:
                    x = hand_decoder_layer(x, memory, p, heads, kv_heads, norm_first, activation)
                return F.layer_norm(x, (d,), norm[0], norm[1], 1e-5) if norm is not None else x
        expected = step_outputs(run_prefix, tokens)

    folder = OUT / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "in").mkdir(parents=True)
    (folder / "expected").mkdir()
    inputs = {"memory": memory, "tokens": tokens}
    for i, p in enumerate(params):
        inputs.update({f"layers.{i}.{key}": value for key, value in p.items()})
    if norm is not None:
        inputs.update({"norm.weight": norm[0], "norm.bias": norm[1]})
    for key, value in inputs.items():
        np.save(folder / "in" / f"{key}.npy", value.to(torch.float32).numpy())
    np.save(folder / "expected" / "output.npy", expected.to(torch.float32).numpy())
    options = {"heads": heads, "kv_heads": kv_heads, "layers": layers, "norm_first": int(norm_first),
               "activation": activation, "final_norm": int(final_norm)}
    (folder / "options.txt").write_text("".join(f"{key}={value}\n" for key, value in options.items()))


def check_hand_layer(generator):
    """The hand layer with kv_heads = heads is nn.TransformerDecoderLayer (to 1e-12)."""
    for norm_first, activation in ((False, "relu"), (True, "gelu")):
        p = layer_parameters(generator, 12, 12, 20)
        x, memory = float32_values(generator, 2, 5, 12), float32_values(generator, 2, 7, 12)
        mask = torch.nn.Transformer.generate_square_subsequent_mask(5).to(torch.float64)
        with torch.no_grad():
            module = torch_layer(p, 12, 3, 20, norm_first, activation)(x, memory, tgt_mask=mask)
            hand = hand_decoder_layer(x, memory, p, 3, 3, norm_first, activation)
        assert (module - hand).abs().max() < 1e-12, "the hand-written decoder layer differs from PyTorch's"


def main():
    generator = torch.Generator().manual_seed(2809)
    check_hand_layer(generator)
    shutil.rmtree(OUT, ignore_errors=True)
    # name: B, S, T, D, heads, kv_heads, F, layers, norm_first, activation, final norm
    cases = {
        "decode-post-relu-final-norm": (2, 5, 6, 8, 2, 2, 16, 2, False, "relu", True),
        "decode-pre-gelu-long": (1, 37, 21, 48, 2, 2, 40, 1, True, "gelu", False),
        "decode-gqa-post-relu": (2, 9, 7, 32, 4, 2, 24, 2, False, "relu", True),
        "decode-mqa-pre-gelu": (1, 19, 18, 40, 4, 1, 36, 1, True, "gelu", False),
    }
    for name, (b, s, t, d, heads, kv_heads, f, layers, norm_first, activation, final_norm) in cases.items():
        make_case(name, generator, b, s, t, d, heads, kv_heads, f, layers, norm_first, activation, final_norm)


if __name__ == "__main__":
    main()
